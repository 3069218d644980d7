// RUN: gnnc-opt -gnn-assign-buffers -split-input-file %s | FileCheck %s

// A chain of 64-byte products `a w` of a's own type, each dead after its
// one use: each writes over its left operand (gnnrt_cpu_matmul computes a
// tile of rows before writing them), so %a to %d share offset 0. The
// returned value goes to result slot 0.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: gnn.arena_bytes = 64 : i64
// CHECK: gnn.matmul %arg0, %arg1 {gnn.offsets = array<i64: 0>}
// CHECK: gnn.matmul %{{.*}}, %arg1 {gnn.offsets = array<i64: 0>}
// CHECK: gnn.matmul %{{.*}}, %arg1 {gnn.offsets = array<i64: 0>}
// CHECK: gnn.matmul %{{.*}}, %arg1 {gnn.offsets = array<i64: 0>}
// CHECK: gnn.matmul %{{.*}}, %arg1 {gnn.offsets = array<i64: -2>, gnn.result_slots = array<i64: 0>}
func.func @chain(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = gnn.matmul %x, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %b = gnn.matmul %a, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %c = gnn.matmul %b, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %d = gnn.matmul %c, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %e = gnn.matmul %d, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %e : tensor<4x4xf32>
}

// -----

// Products that cannot write over their operand: a transposed left
// operand (each row of the result reads a column of it), a product of a
// value with itself, a result of another width. %a and %c share offset 0,
// %b takes 64.
// CHECK-LABEL: func.func @not_in_place
// CHECK-SAME: gnn.arena_bytes = 128 : i64
// CHECK: %[[A:.*]] = gnn.matmul %arg0, %arg1 {gnn.offsets = array<i64: 0>, transpose_a}
// CHECK: %[[B:.*]] = gnn.matmul %[[A]], %[[A]] {gnn.offsets = array<i64: 64>}
// CHECK: gnn.matmul %[[B]], %arg2 {gnn.offsets = array<i64: 0>}
func.func @not_in_place(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>, %v: tensor<4x2xf32>) -> tensor<2x2xf32> {
  %a = gnn.matmul %x, %w {transpose_a} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %b = gnn.matmul %a, %a : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %c = gnn.matmul %b, %v : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %d = gnn.matmul %c, %c {transpose_a} : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>
  return %d : tensor<2x2xf32>
}

// -----

// The same chain in a function whose caller reads its results from the
// arena (gnn.results_in_arena, the predict function): the returned value
// is an arena value live to the end (no result slot), in the slot the
// chain wrote over, and the function says where.
// CHECK-LABEL: func.func @chain_in_arena
// CHECK-SAME: gnn.arena_bytes = 64 : i64
// CHECK-SAME: gnn.result_offsets = array<i64: 0>
// CHECK-NEXT: gnn.matmul %arg0, %arg1 {gnn.offsets = array<i64: 0>}
// CHECK-NEXT: gnn.matmul %{{.*}}, %arg1 {gnn.offsets = array<i64: 0>}
// CHECK-NEXT: gnn.matmul %{{.*}}, %arg1 {gnn.offsets = array<i64: 0>}
// CHECK-NEXT: gnn.matmul %{{.*}}, %arg1 {gnn.offsets = array<i64: 0>}
// CHECK-NEXT: gnn.matmul %{{.*}}, %arg1 {gnn.offsets = array<i64: 0>}
// CHECK-NEXT: return
func.func @chain_in_arena(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> attributes {gnn.results_in_arena} {
  %a = gnn.matmul %x, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %b = gnn.matmul %a, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %c = gnn.matmul %b, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %d = gnn.matmul %c, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %e = gnn.matmul %d, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %e : tensor<4x4xf32>
}

// -----

// Element-wise ops write their result over an operand that dies at them:
// the whole chain of activations is one 64-byte slot.
// CHECK-LABEL: func.func @in_place_chain
// CHECK-SAME: gnn.arena_bytes = 64 : i64
// CHECK: gnn.activation relu %arg0 {gnn.offsets = array<i64: 0>}
// CHECK: gnn.activation relu %{{.*}} {gnn.offsets = array<i64: 0>}
// CHECK: gnn.activation relu %{{.*}} {gnn.offsets = array<i64: 0>}
// CHECK: gnn.activation relu %{{.*}} {gnn.offsets = array<i64: -2>, gnn.result_slots = array<i64: 0>}
func.func @in_place_chain(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = gnn.activation relu %x : tensor<4x4xf32>
  %b = gnn.activation relu %a : tensor<4x4xf32>
  %c = gnn.activation relu %b : tensor<4x4xf32>
  %d = gnn.activation relu %c : tensor<4x4xf32>
  return %d : tensor<4x4xf32>
}

// -----

// The same chain with %a used again at the end: %b cannot take %a's slot,
// since %a lives on; %c and %d take %b's.
// CHECK-LABEL: func.func @overlap
// CHECK-SAME: gnn.arena_bytes = 128 : i64
// CHECK: gnn.activation relu %arg0 {gnn.offsets = array<i64: 0>}
// CHECK: gnn.activation relu %{{.*}} {gnn.offsets = array<i64: 64>}
// CHECK: gnn.activation relu %{{.*}} {gnn.offsets = array<i64: 64>}
// CHECK: gnn.activation relu %{{.*}} {gnn.offsets = array<i64: 64>}
// CHECK: gnn.add {{.*}} {gnn.offsets = array<i64: -2>, gnn.result_slots = array<i64: 0>}
func.func @overlap(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = gnn.activation relu %x : tensor<4x4xf32>
  %b = gnn.activation relu %a : tensor<4x4xf32>
  %c = gnn.activation relu %b : tensor<4x4xf32>
  %d = gnn.activation relu %c : tensor<4x4xf32>
  %e = gnn.add %d, %a : tensor<4x4xf32>
  return %e : tensor<4x4xf32>
}

// -----

// Which operand a result takes over: the first that dies at the op, read
// at the element. %s reads %a and %b, both dying: it takes %a's slot (0).
// bias_add reads its [4] bias at the column, so %t does not take the slot
// of %c (also 64 bytes aligned), though %c dies there: %s still holds 0, so
// %t needs a third slot.
// CHECK-LABEL: func.func @operands
// CHECK-SAME: gnn.arena_bytes = 192 : i64
// CHECK: gnn.activation relu %arg0 {gnn.offsets = array<i64: 0>}
// CHECK: gnn.activation relu %arg0 {gnn.offsets = array<i64: 64>}
// CHECK: gnn.sub {{.*}} {gnn.offsets = array<i64: 0>}
// CHECK: gnn.activation relu %arg1 {gnn.offsets = array<i64: 64>}
// CHECK: gnn.bias_add {{.*}} {gnn.offsets = array<i64: 128>}
// CHECK: gnn.add {{.*}} {gnn.offsets = array<i64: -2>, gnn.result_slots = array<i64: 0>}
func.func @operands(%x: tensor<4x4xf32>, %bias: tensor<4xf32>) -> tensor<4x4xf32> {
  %a = gnn.activation relu %x : tensor<4x4xf32>
  %b = gnn.activation relu %x : tensor<4x4xf32>
  %s = gnn.sub %a, %b : tensor<4x4xf32>
  %c = gnn.activation relu %bias : tensor<4xf32>
  %t = gnn.bias_add %x, %c : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  %v = gnn.add %s, %t : tensor<4x4xf32>
  return %v : tensor<4x4xf32>
}

// -----

// Graph storage: add_self_loops of a 3-node, 2-edge graph holds both CSR
// views of 5 edges, 4 * 2 * (3 + 1 + 2 * 5) = 112 bytes, 128 aligned. The
// transpose is a view (-1) whose last use (the spmm) keeps that storage
// alive, so %z, defined after the last direct use of %g1, cannot take
// offset 0; %x2 takes %z's slot over. Keys take no storage; returned constants are written to their
// slot; a value returned twice goes to its first slot; a returned argument
// is the caller's.
// CHECK-LABEL: func.func @graph
// CHECK-SAME: gnn.arena_bytes = 256 : i64
// CHECK: gnn.rng_key {{.*}} {gnn.offsets = array<i64: -1>}
// CHECK: gnn.add_self_loops {{.*}} {gnn.offsets = array<i64: 0>}
// CHECK: gnn.edge_norm {{.*}} {gnn.offsets = array<i64: 128>}
// CHECK: gnn.transpose {{.*}} {gnn.offsets = array<i64: -1>}
// CHECK: gnn.zeros {gnn.offsets = array<i64: 192>}
// CHECK: gnn.add {{.*}} {gnn.offsets = array<i64: 192>}
// CHECK: arith.constant {gnn.offsets = array<i64: -2>, gnn.result_slots = array<i64: 3>} dense<true>
// CHECK: gnn.spmm {{.*}} {gnn.offsets = array<i64: -2>, gnn.result_slots = array<i64: 1>}
func.func @graph(%g: !gnn.graph<3x2>, %x: tensor<3x2xf32>, %s: i64)
    -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3xi1>) {
  %k = gnn.rng_key %s, %s
  %g1 = gnn.add_self_loops %g : <3x2> -> <3x5>
  %w = gnn.edge_norm symmetric %g1 : <3x5> -> tensor<5xf32>
  %t = gnn.transpose %g1 : <3x5>
  %z = gnn.zeros : tensor<3x2xf32>
  %x2 = gnn.add %x, %z : tensor<3x2xf32>
  %m = arith.constant dense<true> : tensor<3xi1>
  %y = gnn.spmm sum %t, %x2, %w : (!gnn.graph<3x5>, tensor<3x2xf32>, tensor<5xf32>) -> tensor<3x2xf32>
  return %x, %y, %y, %m : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<3xi1>
}

// -----

// A #gnn.csr matrix takes gnnrt_csr_matrix_bytes(8, 10, 5): indptr (36 B)
// and colptr (44 B) in 64 each, indices, CSC rows, perm and values (20 B)
// in 64 each: 384 bytes. The product after it starts at 384.
// CHECK-LABEL: func.func @csr
// CHECK-SAME: gnn.arena_bytes = 512 : i64
// CHECK: gnn.dropout {{.*}} {gnn.offsets = array<i64: 0>, p = 5.000000e-01 : f64, stream = 0 : i64}
// CHECK: gnn.matmul {{.*}} {gnn.offsets = array<i64: 384>}
func.func @csr(%x: tensor<8x10xf32, #gnn.csr<nnz = 5>>, %w: tensor<10x4xf32>,
               %s: i64) -> tensor<8x4xf32> {
  %k = gnn.rng_key %s, %s
  %d = gnn.dropout %x, %k {p = 5.000000e-01 : f64, stream = 0 : i64} : tensor<8x10xf32, #gnn.csr<nnz = 5>>
  %y = gnn.matmul %d, %w : (tensor<8x10xf32, #gnn.csr<nnz = 5>>, tensor<10x4xf32>) -> tensor<8x4xf32>
  %z = gnn.activation relu %y : tensor<8x4xf32>
  return %z : tensor<8x4xf32>
}

// -----

// A returned graph (@M.prepare's results) is a struct the caller receives;
// its arrays stay in the arena, live to the return: 4 * 2 * (3 + 1 + 2 * 5)
// = 112 bytes, 128 aligned. Tensors still go to their result slots; the
// view takes nothing.
// CHECK-LABEL: func.func @prepare
// CHECK-SAME: gnn.arena_bytes = 128 : i64
// CHECK: gnn.add_self_loops {{.*}} {gnn.offsets = array<i64: 0>}
// CHECK: gnn.edge_norm {{.*}} {gnn.offsets = array<i64: -2>, gnn.result_slots = array<i64: 1>}
// CHECK: gnn.transpose {{.*}} {gnn.offsets = array<i64: -1>}
func.func @prepare(%g: !gnn.graph<3x2>)
    -> (!gnn.graph<3x5>, tensor<5xf32>, !gnn.graph<3x5>) {
  %g1 = gnn.add_self_loops %g : <3x2> -> <3x5>
  %w = gnn.edge_norm symmetric %g1 : <3x5> -> tensor<5xf32>
  %t = gnn.transpose %g1 : <3x5>
  return %g1, %w, %t : !gnn.graph<3x5>, tensor<5xf32>, !gnn.graph<3x5>
}

// -----

// A value living across a hand-over of large values: %m is born while %c
// (1024 bytes) lives and dies where %a (1024 bytes) is born, and %l (64
// bytes) lives throughout. First fit puts %a where %e was, so %m sits above
// both large slots and %l above %m: 2368 bytes in definition order and
// largest first alike. Reusing the slot freed last, %c's, for %a leaves
// %e's slot to %m and then %b: the arena is the live peak, 2112 bytes
// (%l, %e and %c at %c's op; %l, %a and %b at %b's). The square products
// are transposed (`e^T w`) so that none writes over its operand.
// CHECK-LABEL: func.func @hand_over
// CHECK-SAME: gnn.arena_bytes = 2112 : i64
func.func @hand_over(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>,
                     %p: tensor<4x16xf32>, %q: tensor<16x4xf32>)
    -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<16x16xf32>) {
  %l = gnn.matmul %p, %q : (tensor<4x16xf32>, tensor<16x4xf32>) -> tensor<4x4xf32>
  %e = gnn.matmul %x, %w : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %c = gnn.matmul %e, %w {transpose_a} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %m = gnn.matmul %p, %w : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %s = gnn.matmul %p, %c : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  %a = gnn.matmul %q, %m : (tensor<16x4xf32>, tensor<4x16xf32>) -> tensor<16x16xf32>
  %b = gnn.matmul %a, %w {transpose_a} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %f = gnn.matmul %l, %p : (tensor<4x4xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = gnn.matmul %b, %w {transpose_a} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %s, %f, %r : tensor<4x16xf32>, tensor<4x16xf32>, tensor<16x16xf32>
}

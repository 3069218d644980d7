// RUN: gnnc-opt -test-print-memory-plan -split-input-file -o /dev/null %s | FileCheck %s --match-full-lines
// RUN: gnnc-opt -gnn-assign-buffers -test-print-memory-plan -split-input-file -o /dev/null %s | FileCheck %s --check-prefix=PLACED

// A small training step. The loss is result 0 (train.role = "loss"), so the
// forward part is the loss's backward slice: add_self_loops, the matmul, the
// spmm and the loss itself. Saved values are forward arena values that the
// backward part reads:
// * the spmm's output %a (32 bytes), read by the loss gradient;
// * the graph with self loops %gs (4 * 2 * (4 + 1 + 2 * 10) = 200 bytes),
//   read by the backward spmm only through its view %t, which also extends
//   its life to point 7.
// The seed cotangent %one sits at point 0, ahead of the forward ops, yet is
// not saved: it is not in the loss's slice. %h is forward but only the
// forward spmm reads it. Keys, views and graph arguments take no bytes.
// CHECK-LABEL: memory plan @step: 11 ops, loss at 5 (train.cross_entropy)
// CHECK-NEXT: value bytes def last storage saved
// CHECK-NEXT: %arg0:graph                 0  -  1  argument no
// CHECK-NEXT: %arg1:features            128  -  8  argument no
// CHECK-NEXT: %arg2:labels               16  -  6  argument no
// CHECK-NEXT: %arg3:train_mask            4  -  6  argument no
// CHECK-NEXT: %arg4:param[linear_0.weight] 64  -  9  argument no
// CHECK-NEXT: %arg5:prepared[1]          40  -  7  argument no
// CHECK-NEXT: arith.constant#0            4  0  6  arena    no
// CHECK-NEXT: gnn.add_self_loops#0      200  1  7  arena    yes
// CHECK-NEXT: gnn.transpose#0             0  2  7  none     no
// CHECK-NEXT: gnn.matmul#0               32  3  4  arena    no
// CHECK-NEXT: gnn.spmm#0                 32  4  6  arena    yes
// CHECK-NEXT: train.cross_entropy#0       4  5 10  result   no
// CHECK-NEXT: train.cross_entropy_grad#0 32  6  7  arena    no
// CHECK-NEXT: gnn.spmm#0                 32  7  8  arena    no
// CHECK-NEXT: gnn.matmul#0               64  8  9  arena    no
// CHECK-NEXT: train.sgd#0                64  9 10  result   no
// The live arena bytes count 64-byte slots (%gs takes 256): the peak is at
// point 4, where %one, %gs, %h and %a are live: 64 + 256 + 64 + 64.
// CHECK-NEXT: point op live
// CHECK-NEXT: 0  arith.constant            64
// CHECK-NEXT: 1  gnn.add_self_loops       320
// CHECK-NEXT: 2  gnn.transpose            320
// CHECK-NEXT: 3  gnn.matmul               384
// CHECK-NEXT: 4  gnn.spmm                 448
// CHECK-NEXT: 5  train.cross_entropy      384
// CHECK-NEXT: 6  train.cross_entropy_grad 448
// CHECK-NEXT: 7  gnn.spmm                 384
// CHECK-NEXT: 8  gnn.matmul               128
// CHECK-NEXT: 9  train.sgd                 64
// CHECK-NEXT: 10 func.return                0
// Arguments 128 + 16 + 4 + 64 + 40; results one buffer per slot, the new
// weight twice: 4 + 64 + 64.
// CHECK-NEXT: resident 384 bytes (arguments 252, results 132)
// CHECK-NEXT: saved 232 bytes in 2 values
// CHECK-NEXT: arena peak 448 bytes at 4 (gnn.spmm){{$}}
// First fit packs this step without a gap.
// PLACED-LABEL: memory plan @step:
// PLACED: arena peak 448 bytes at 4 (gnn.spmm), gnn.arena_bytes 448
func.func @step(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                %x: tensor<4x8xf32> {gnn.input = "features"},
                %y: tensor<4xi32> {gnn.input = "labels"},
                %mask: tensor<4xi1> {gnn.input = "train_mask"},
                %w: tensor<8x2xf32> {gnn.param = "linear_0.weight", train.role = "param"},
                %p: tensor<10xf32> {gnn.input = "prepared", gnn.prepared = 1 : i64})
    -> (tensor<f32> {train.role = "loss"}, tensor<8x2xf32>, tensor<8x2xf32>) {
  %one = arith.constant dense<1.0> : tensor<f32>
  %gs = gnn.add_self_loops %g : <4x6> -> <4x10>
  %t = gnn.transpose %gs : <4x10>
  %h = gnn.matmul %x, %w : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %a = gnn.spmm sum %gs, %h, %p : (!gnn.graph<4x10>, tensor<4x2xf32>, tensor<10xf32>) -> tensor<4x2xf32>
  %loss = train.cross_entropy %a, %y, %mask : (tensor<4x2xf32>, tensor<4xi32>, tensor<4xi1>) -> tensor<f32>
  %da = train.cross_entropy_grad %a, %y, %mask, %one : (tensor<4x2xf32>, tensor<4xi32>, tensor<4xi1>, tensor<f32>) -> tensor<4x2xf32>
  %dh = gnn.spmm sum %t, %da, %p : (!gnn.graph<4x10>, tensor<4x2xf32>, tensor<10xf32>) -> tensor<4x2xf32>
  %dw = gnn.matmul %x, %dh {transpose_a} : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  %w2 = train.sgd %w, %dw {lr = 0.1 : f64} : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<8x2xf32>
  return %loss, %w2, %w2 : tensor<f32>, tensor<8x2xf32>, tensor<8x2xf32>
}

// -----

// Fragmentation: the live-bytes peak is a lower bound of the arena, not its
// size. In definition order %a [0, 1] takes offset 0 and %b [1, 3] offset
// 64; when %c (128 bytes, [2, 3]) is placed, the 64 bytes %a left are too
// few, so first fit puts it at 128: an arena of 256 bytes for a peak of 192.
// Placing the largest first (%c at 0; %a [0, 1] does not overlap it and
// takes 0 too; %b at 128) gives 192, and the smaller arena is kept.
// Without a loss nothing is forward, so nothing is saved.
// CHECK-LABEL: memory plan @fragment: 5 ops, no loss
// CHECK-NEXT: value bytes def last storage saved
// CHECK-NEXT: %arg0       64  -  1  argument no
// CHECK-NEXT: gnn.activation#0   64  0  1  arena   no
// CHECK-NEXT: gnn.matmul#0      64  1  3  arena   no
// CHECK-NEXT: gnn.zeros#0       128  2  3  arena   no
// CHECK-NEXT: gnn.matmul#0      128  3  4  result  no
// CHECK-NEXT: point op live
// CHECK-NEXT: 0 gnn.activation  64
// CHECK-NEXT: 1 gnn.matmul     128
// CHECK-NEXT: 2 gnn.zeros      192
// CHECK-NEXT: 3 gnn.matmul     192
// CHECK-NEXT: 4 func.return      0
// CHECK-NEXT: resident 192 bytes (arguments 64, results 128)
// CHECK-NEXT: saved 0 bytes in 0 values
// CHECK-NEXT: arena peak 192 bytes at 2 (gnn.zeros){{$}}
// PLACED-LABEL: memory plan @fragment:
// PLACED: arena peak 192 bytes at 2 (gnn.zeros), gnn.arena_bytes 192
func.func @fragment(%x: tensor<4x4xf32>) -> tensor<4x8xf32> {
  %a = gnn.activation relu %x : tensor<4x4xf32>
  %b = gnn.matmul %a, %x {transpose_a} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %c = gnn.zeros : tensor<4x8xf32>
  %d = gnn.matmul %b, %c : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

// @M.prepare's shape: a returned graph is a struct the caller receives and
// its arrays stay in the arena until the return (point 3); a returned
// tensor is the caller's; the returned view takes nothing. Nothing is live
// in the arena before the first op defines something.
// CHECK-LABEL: memory plan @prepare: 4 ops, no loss
// CHECK: gnn.add_self_loops#0  112  0  3  arena   no
// CHECK-NEXT: gnn.edge_norm#0   20  1  3  result  no
// CHECK-NEXT: gnn.transpose#0    0  2  3  none    no
// CHECK: resident 20 bytes (arguments 0, results 20)
// CHECK: arena peak 128 bytes at 0 (gnn.add_self_loops){{$}}
// PLACED-LABEL: memory plan @prepare:
// PLACED: gnn.arena_bytes 128
func.func @prepare(%g: !gnn.graph<3x2> {gnn.input = "graph"})
    -> (!gnn.graph<3x5>, tensor<5xf32>, !gnn.graph<3x5>) {
  %g1 = gnn.add_self_loops %g : <3x2> -> <3x5>
  %w = gnn.edge_norm symmetric %g1 : <3x5> -> tensor<5xf32>
  %t = gnn.transpose %g1 : <3x5>
  return %g1, %w, %t : !gnn.graph<3x5>, tensor<5xf32>, !gnn.graph<3x5>
}

// -----

// An empty function: no arena, no peak point.
// CHECK-LABEL: memory plan @empty: 1 ops, no loss
// CHECK: arena peak 0 bytes at -{{$}}
func.func @empty() {
  return
}

// -----

// In-place results: the add writes over %a, which dies there (its first
// operand; %b dies there too but keeps its own slot until then), and the
// ReLU over the add's result. %a's bytes count until the add, the add's
// from there, so the curve holds two 64-byte slots at most, not three.
// CHECK-LABEL: memory plan @in_place: 5 ops, no loss
// CHECK-NEXT: value bytes def last storage saved
// CHECK-NEXT: %arg0       64  -  1  argument no
// CHECK-NEXT: gnn.activation#0   64  0  2  arena   no
// CHECK-NEXT: gnn.activation#0   64  1  2  arena   no
// CHECK-NEXT: gnn.add#0   64  2  3  arena   no  over gnn.activation#0 from 0
// CHECK-NEXT: gnn.activation#0   64  3  4  result  no
// CHECK-NEXT: point op live
// CHECK-NEXT: 0 gnn.activation  64
// CHECK-NEXT: 1 gnn.activation 128
// CHECK-NEXT: 2 gnn.add        128
// CHECK-NEXT: 3 gnn.activation  64
// CHECK-NEXT: 4 func.return      0
// CHECK-NEXT: resident 128 bytes (arguments 64, results 64)
// CHECK-NEXT: saved 0 bytes in 0 values
// CHECK-NEXT: arena peak 128 bytes at 1 (gnn.activation){{$}}
// PLACED-LABEL: memory plan @in_place:
// PLACED: arena peak 128 bytes at 1 (gnn.activation), gnn.arena_bytes 128
func.func @in_place(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = gnn.activation relu %x : tensor<4x4xf32>
  %b = gnn.activation relu %x : tensor<4x4xf32>
  %s = gnn.add %a, %b : tensor<4x4xf32>
  %r = gnn.activation relu %s : tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// An edge softmax writes over its input, and its gradient over the incoming
// gradient, when they die there (one [E, heads] slot each instead of two;
// on GAT the gradient's was the step's peak at the tightest budgets).
// CHECK-LABEL: memory plan @edge_softmax_in_place: 6 ops, no loss
// CHECK:      gnn.edge_softmax#0 48 1 3 arena no over gnn.activation#0 from 0
// CHECK-NEXT: gnn.activation#0 48 2 3 arena no
// CHECK-NEXT: gnn.edge_softmax_grad#0 48 3 4 arena no over gnn.activation#0 from 2
// CHECK:      3 gnn.edge_softmax_grad 128
// CHECK:      arena peak 128 bytes at 2 (gnn.activation){{$}}
// PLACED-LABEL: memory plan @edge_softmax_in_place:
// PLACED: arena peak 128 bytes at 2 (gnn.activation), gnn.arena_bytes 128
func.func @edge_softmax_in_place(%g: !gnn.graph<4x6> {gnn.input = "graph"}, %x: tensor<6x2xf32>) -> tensor<6x2xf32> {
  %e = gnn.activation relu %x : tensor<6x2xf32>
  %y = gnn.edge_softmax %g, %e : (!gnn.graph<4x6>, tensor<6x2xf32>) -> tensor<6x2xf32>
  %d = gnn.activation relu %x : tensor<6x2xf32>
  %dx = gnn.edge_softmax_grad %g, %y, %d : (!gnn.graph<4x6>, tensor<6x2xf32>, tensor<6x2xf32>) -> tensor<6x2xf32>
  %r = gnn.activation relu %dx : tensor<6x2xf32>
  return %r : tensor<6x2xf32>
}

// -----

// When the incoming gradient lives on, the gradient takes the softmax
// output's slot instead.
// CHECK-LABEL: memory plan @edge_softmax_grad_over_output: 5 ops, no loss
// CHECK:      gnn.edge_softmax_grad#0 48 2 3 arena no over gnn.edge_softmax#0 from 0
// CHECK:      arena peak 128 bytes at 1 (gnn.activation){{$}}
func.func @edge_softmax_grad_over_output(%g: !gnn.graph<4x6> {gnn.input = "graph"}, %x: tensor<6x2xf32>) -> tensor<6x2xf32> {
  %y = gnn.edge_softmax %g, %x : (!gnn.graph<4x6>, tensor<6x2xf32>) -> tensor<6x2xf32>
  %d = gnn.activation relu %x : tensor<6x2xf32>
  %dx = gnn.edge_softmax_grad %g, %y, %d : (!gnn.graph<4x6>, tensor<6x2xf32>, tensor<6x2xf32>) -> tensor<6x2xf32>
  %r = gnn.add %dx, %d : tensor<6x2xf32>
  return %r : tensor<6x2xf32>
}

// -----

// A packed mem.load_sign takes no storage: it views the bits, which live
// on to the gradient that reads them: 64 bytes beside the gradient at
// point 4, where unpacking took 2048.
// CHECK-LABEL: memory plan @packed_signs: 6 ops, no loss
// CHECK:      mem.store_sign#0 64 1 4 arena no
// CHECK-NEXT: gnn.activation#0 2048 2 4 arena no
// CHECK-NEXT: mem.load_sign#0 0 3 4 none no
// CHECK-NEXT: gnn.activation_grad#0 2048 4 5 result no
// CHECK:      4 gnn.activation_grad 2112
// CHECK:      arena peak 2112 bytes at 1 (mem.store_sign){{$}}
func.func @packed_signs(%x: tensor<64x8xf32>, %dy: tensor<64x8xf32>) -> tensor<64x8xf32> {
  %a = gnn.activation relu %x : tensor<64x8xf32>
  %s = mem.store_sign %a : tensor<64x8xf32> -> tensor<64x1xi8>
  %d = gnn.activation relu %dy : tensor<64x8xf32>
  %l = mem.load_sign %s {packed} : tensor<64x1xi8> -> tensor<64x8xf32>
  %g = gnn.activation_grad relu %l, %d : tensor<64x8xf32>
  return %g : tensor<64x8xf32>
}

// Every mem op, type and attribute parses, verifies, prints and parses again.
// RUN: gnnc-opt %s | gnnc-opt | FileCheck %s
// RUN: gnnc-opt %s --mlir-print-op-generic | gnnc-opt | FileCheck %s

// CHECK-LABEL: func.func @offload_prefetch
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
func.func @offload_prefetch(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  // The default stream (1) is elided when printed.
  // CHECK: %[[H:.*]] = mem.offload %[[X]] to host : tensor<4x8xf32> -> !mem.offloaded<host, tensor<4x8xf32>>
  %h = mem.offload %x to host {stream = 1} : tensor<4x8xf32> -> !mem.offloaded<host, tensor<4x8xf32>>
  // CHECK: %[[D:.*]] = mem.offload %[[Y]] to disk {stream = 2 : i64} : tensor<4x8xf32> -> !mem.offloaded<disk, tensor<4x8xf32>>
  %d = mem.offload %y to disk {stream = 2} : tensor<4x8xf32> -> !mem.offloaded<disk, tensor<4x8xf32>>
  // CHECK: %[[X1:.*]] = mem.prefetch %[[H]] : !mem.offloaded<host, tensor<4x8xf32>> -> tensor<4x8xf32>
  %x1 = mem.prefetch %h : !mem.offloaded<host, tensor<4x8xf32>> -> tensor<4x8xf32>
  // CHECK: %[[Y1:.*]] = mem.prefetch %[[D]] {stream = 0 : i64} : !mem.offloaded<disk, tensor<4x8xf32>> -> tensor<4x8xf32>
  %y1 = mem.prefetch %d {stream = 0} : !mem.offloaded<disk, tensor<4x8xf32>> -> tensor<4x8xf32>
  // CHECK: mem.free %[[H]] : !mem.offloaded<host, tensor<4x8xf32>>
  mem.free %h : !mem.offloaded<host, tensor<4x8xf32>>
  // CHECK: mem.free %[[D]] : !mem.offloaded<disk, tensor<4x8xf32>>
  mem.free %d : !mem.offloaded<disk, tensor<4x8xf32>>
  // CHECK: return %[[X1]], %[[Y1]]
  return %x1, %y1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// A transfer may go just before its input's last reader, the next gnn op
// (only mem ops between), which may then write over the input's buffer;
// the same host copy is brought back twice before it is freed.
// CHECK-LABEL: func.func @hand_off
func.func @hand_off(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK: %[[H:.*]] = mem.offload %[[X:.*]] to host
  %h = mem.offload %x to host : tensor<4x8xf32> -> !mem.offloaded<host, tensor<4x8xf32>>
  // CHECK-NEXT: mem.store_sign %[[Y:.*]] :
  %s = mem.store_sign %y : tensor<4x8xf32> -> tensor<4x1xi8>
  // CHECK-NEXT: gnn.add %[[X]], %[[Y]]
  %z = gnn.add %x, %y : tensor<4x8xf32>
  %x1 = mem.prefetch %h : !mem.offloaded<host, tensor<4x8xf32>> -> tensor<4x8xf32>
  %x2 = mem.prefetch %h : !mem.offloaded<host, tensor<4x8xf32>> -> tensor<4x8xf32>
  mem.free %h : !mem.offloaded<host, tensor<4x8xf32>>
  return %z, %x1, %x2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// A copy of the rows of one set only: R_1 of sets with 2 hops over 4 rows
// (2 * 4 + 2 + 1 = 11 integers).
// CHECK-LABEL: func.func @offload_rows
func.func @offload_rows(%x: tensor<4x8xf32>, %r: tensor<8xi32>) -> tensor<4x8xf32> {
  // CHECK: %[[H:.*]] = mem.offload %{{.*}} rows %{{.*}} to host {level = 1 : i64} : tensor<4x8xf32>, tensor<8xi32> -> !mem.offloaded<host, tensor<4x8xf32>>
  %h = mem.offload %x rows %r to host {level = 1 : i64} : tensor<4x8xf32>, tensor<8xi32> -> !mem.offloaded<host, tensor<4x8xf32>>
  // CHECK: mem.prefetch %[[H]] rows %{{.*}} {level = 1 : i64} : !mem.offloaded<host, tensor<4x8xf32>>, tensor<8xi32> -> tensor<4x8xf32>
  %y = mem.prefetch %h rows %r {level = 1 : i64} : !mem.offloaded<host, tensor<4x8xf32>>, tensor<8xi32> -> tensor<4x8xf32>
  mem.free %h : !mem.offloaded<host, tensor<4x8xf32>>
  return %y : tensor<4x8xf32>
}

// A host home copied in at the rows of R_2 only.
// CHECK-LABEL: func.func @load_home_rows
func.func @load_home_rows(%x: tensor<4x8xf32> {mem.home = "host"}, %r: tensor<8xi32>) -> tensor<4x8xf32> {
  // CHECK: mem.load_home %{{.*}} rows %{{.*}} {level = 2 : i64} : tensor<4x8xf32>, tensor<8xi32>
  %y = mem.load_home %x rows %r {level = 2 : i64} : tensor<4x8xf32>, tensor<8xi32>
  return %y : tensor<4x8xf32>
}

// A host-homed graph's in view copied in, then aggregated over.
// CHECK-LABEL: func.func @load_graph_home
func.func @load_graph_home(%g: !gnn.graph<4x6> {mem.home = "host"}, %x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK: %[[G:.*]] = mem.load_graph_home %{{.*}} : !gnn.graph<4x6>
  %g0 = mem.load_graph_home %g : !gnn.graph<4x6>
  // CHECK: gnn.spmm sum %[[G]]
  %y = gnn.spmm sum %g0, %x : (!gnn.graph<4x6>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// The out view, for a sum over each node's outgoing edges.
// CHECK-LABEL: func.func @load_graph_home_out
func.func @load_graph_home_out(%g: !gnn.graph<4x6> {mem.home = "host"}, %e: tensor<6x2xf32>) -> tensor<4x2xf32> {
  // CHECK: %[[G:.*]] = mem.load_graph_home %{{.*}} {out} : !gnn.graph<4x6>
  %g0 = mem.load_graph_home %g {out} : !gnn.graph<4x6>
  // CHECK: gnn.scatter src %[[G]]
  %y = gnn.scatter src %g0, %e : (!gnn.graph<4x6>, tensor<6x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// The out view left in host memory, read a tile at a time by a scatter to
// sources restricted to the rows of a set (gnnrt_cpu_scatter_rows_tiles).
// CHECK-LABEL: func.func @load_graph_home_out_tiles
func.func @load_graph_home_out_tiles(%g: !gnn.graph<4x6> {mem.home = "host"}, %e: tensor<6x2xf32>, %sets: tensor<6xi32>) -> tensor<4x2xf32> {
  // CHECK: %[[G:.*]] = mem.load_graph_home %{{.*}} {out, tile_bytes = 280 : i64} : !gnn.graph<4x6>
  %g0 = mem.load_graph_home %g {out, tile_bytes = 280 : i64} : !gnn.graph<4x6>
  // CHECK: gnn.scatter src %[[G]], %{{.*}} rows %{{.*}} {level = 0 : i64}
  %y = gnn.scatter src %g0, %e rows %sets {level = 0 : i64} : (!gnn.graph<4x6>, tensor<6x2xf32>, tensor<6xi32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// The in view and the edge weights left in host memory, read a tile at a
// time by the aggregation.
// CHECK-LABEL: func.func @load_graph_home_tiles
func.func @load_graph_home_tiles(%g: !gnn.graph<4x6> {mem.home = "host"}, %x: tensor<4x8xf32>, %w: tensor<6xf32> {mem.home = "host"}) -> tensor<4x8xf32> {
  // CHECK: %[[G:.*]] = mem.load_graph_home %{{.*}} {tile_bytes = 280 : i64} : !gnn.graph<4x6>
  %g0 = mem.load_graph_home %g {tile_bytes = 280 : i64} : !gnn.graph<4x6>
  // CHECK: %[[W:.*]] = mem.load_home %{{.*}} {tile_bytes = 40 : i64} : tensor<6xf32>
  %w0 = mem.load_home %w {tile_bytes = 40 : i64} : tensor<6xf32>
  // CHECK: gnn.spmm mean %[[G]], %{{.*}}, %[[W]]
  %y = gnn.spmm mean %g0, %x, %w0 : (!gnn.graph<4x6>, tensor<4x8xf32>, tensor<6xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// The edge kernels read the in view a tile at a time too: SDDMM, the edge
// soft-max and its gradient.
// CHECK-LABEL: func.func @load_graph_home_edge_tiles
func.func @load_graph_home_edge_tiles(%g: !gnn.graph<4x6> {mem.home = "host"}, %x: tensor<4x6xf32>, %dy: tensor<6x3xf32>) -> tensor<6x3xf32> {
  // CHECK: %[[G:.*]] = mem.load_graph_home %{{.*}} {tile_bytes = 280 : i64} : !gnn.graph<4x6>
  %g0 = mem.load_graph_home %g {tile_bytes = 280 : i64} : !gnn.graph<4x6>
  // CHECK: gnn.sddmm %[[G]],
  %s = gnn.sddmm %g0, %x, %x {heads = 3 : i64} : (!gnn.graph<4x6>, tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<6x3xf32>
  // CHECK: gnn.edge_softmax %[[G]],
  %a = gnn.edge_softmax %g0, %s : (!gnn.graph<4x6>, tensor<6x3xf32>) -> tensor<6x3xf32>
  // CHECK: gnn.edge_softmax_grad %[[G]],
  %d = gnn.edge_softmax_grad %g0, %a, %dy : (!gnn.graph<4x6>, tensor<6x3xf32>, tensor<6x3xf32>) -> tensor<6x3xf32>
  return %d : tensor<6x3xf32>
}

// A CSR matrix offloaded whole, then read from the host copy a tile at a
// time by both products; features read from their home the same way.
// CHECK-LABEL: func.func @csr_tiles
func.func @csr_tiles(%a: tensor<4x6xf32, #gnn.csr<nnz = 5>>, %f: tensor<4x6xf32, #gnn.csr<nnz = 5>> {mem.home = "host"}, %w: tensor<6x2xf32>, %g: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<6x2xf32>, tensor<4x2xf32>) {
  // CHECK: %[[H:.*]] = mem.offload
  %h = mem.offload %a to host : tensor<4x6xf32, #gnn.csr<nnz = 5>> -> !mem.offloaded<host, tensor<4x6xf32, #gnn.csr<nnz = 5>>>
  // CHECK: %[[T:.*]] = mem.prefetch %[[H]] {tile_bytes = 112 : i64}
  %t = mem.prefetch %h {tile_bytes = 112 : i64} : !mem.offloaded<host, tensor<4x6xf32, #gnn.csr<nnz = 5>>> -> tensor<4x6xf32, #gnn.csr<nnz = 5>>
  // CHECK: gnn.matmul %[[T]]
  %y = gnn.matmul %t, %w : (tensor<4x6xf32, #gnn.csr<nnz = 5>>, tensor<6x2xf32>) -> tensor<4x2xf32>
  %t2 = mem.prefetch %h {tile_bytes = 112 : i64} : !mem.offloaded<host, tensor<4x6xf32, #gnn.csr<nnz = 5>>> -> tensor<4x6xf32, #gnn.csr<nnz = 5>>
  %dw = gnn.matmul %t2, %g {transpose_a} : (tensor<4x6xf32, #gnn.csr<nnz = 5>>, tensor<4x2xf32>) -> tensor<6x2xf32>
  mem.free %h : !mem.offloaded<host, tensor<4x6xf32, #gnn.csr<nnz = 5>>>
  // CHECK: mem.load_home %{{.*}} {tile_bytes = 112 : i64} : tensor<4x6xf32, #gnn.csr<nnz = 5>>
  %f0 = mem.load_home %f {tile_bytes = 112 : i64} : tensor<4x6xf32, #gnn.csr<nnz = 5>>
  %z = gnn.matmul %f0, %w : (tensor<4x6xf32, #gnn.csr<nnz = 5>>, tensor<6x2xf32>) -> tensor<4x2xf32>
  return %y, %dw, %z : tensor<4x2xf32>, tensor<6x2xf32>, tensor<4x2xf32>
}

// CHECK-LABEL: func.func @recompute
// CHECK-SAME: (%[[A:.*]]: tensor<8x4xf32>, %[[W:.*]]: tensor<4x4xf32>)
func.func @recompute(%a: tensor<8x4xf32>, %w: tensor<4x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  // CHECK: %[[R:.*]]:2 = mem.recompute(%[[A]], %[[W]]) : (tensor<8x4xf32>, tensor<4x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  // CHECK-NEXT: ^bb0(%[[A0:.*]]: tensor<8x4xf32>, %[[W0:.*]]: tensor<4x4xf32>):
  // CHECK-NEXT: %[[M:.*]] = gnn.matmul %[[A0]], %[[W0]]
  // CHECK-NEXT: %[[S:.*]] = gnn.activation relu %[[M]]
  // CHECK-NEXT: mem.yield %[[M]], %[[S]] : tensor<8x4xf32>, tensor<8x4xf32>
  // CHECK-NEXT: }
  %r:2 = mem.recompute (%a, %w) : (tensor<8x4xf32>, tensor<4x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  ^bb0(%a0: tensor<8x4xf32>, %w0: tensor<4x4xf32>):
    %m = gnn.matmul %a0, %w0 : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
    %s = gnn.activation relu %m : tensor<8x4xf32>
    mem.yield %m, %s : tensor<8x4xf32>, tensor<8x4xf32>
  }
  // CHECK: return %[[R]]#0, %[[R]]#1
  return %r#0, %r#1 : tensor<8x4xf32>, tensor<8x4xf32>
}

// A recompute with no inputs (a constant re-materialised) prints no block
// header.
// CHECK-LABEL: func.func @recompute_no_inputs
func.func @recompute_no_inputs() -> tensor<2xf32> {
  // CHECK: mem.recompute() : () -> tensor<2xf32> {
  // CHECK-NEXT: arith.constant
  // CHECK-NEXT: mem.yield %{{.*}} : tensor<2xf32>
  %r = mem.recompute () : () -> tensor<2xf32> {
    %c = arith.constant dense<1.0> : tensor<2xf32>
    mem.yield %c : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// CHECK-LABEL: func.func @signs
func.func @signs(%x: tensor<6x9xf32>, %dy: tensor<6x9xf32>, %sets: tensor<11xi32>, %e: tensor<5xf32>, %de: tensor<5xf32>) -> (tensor<6x9xf32>, tensor<6x9xf32>, tensor<5xf32>) {
  // CHECK: %[[S:.*]] = mem.store_sign %{{.*}} : tensor<6x9xf32> -> tensor<6x2xi8>
  %s = mem.store_sign %x : tensor<6x9xf32> -> tensor<6x2xi8>
  // CHECK: mem.load_sign %[[S]] : tensor<6x2xi8> -> tensor<6x9xf32>
  %l = mem.load_sign %s : tensor<6x2xi8> -> tensor<6x9xf32>
  %g = gnn.activation_grad relu %l, %dy : tensor<6x9xf32>
  // CHECK: %[[R:.*]] = mem.store_sign %{{.*}} rows %{{.*}} {level = 1 : i64} : tensor<6x9xf32>, tensor<11xi32> -> tensor<6x2xi8>
  %r = mem.store_sign %dy rows %sets {level = 1 : i64} : tensor<6x9xf32>, tensor<11xi32> -> tensor<6x2xi8>
  // CHECK: mem.load_sign %[[R]] rows %{{.*}} {level = 1 : i64} : tensor<6x2xi8>, tensor<11xi32> -> tensor<6x9xf32>
  %lr = mem.load_sign %r rows %sets {level = 1 : i64} : tensor<6x2xi8>, tensor<11xi32> -> tensor<6x9xf32>
  %gr = gnn.activation_grad leaky_relu %lr, %g {slope = 2.0e-01 : f64} : tensor<6x9xf32>
  // Packed: the gradient reads the bits themselves.
  // CHECK: mem.load_sign %[[R]] rows %{{.*}} {level = 1 : i64, packed} : tensor<6x2xi8>, tensor<11xi32> -> tensor<6x9xf32>
  %pr = mem.load_sign %r rows %sets {level = 1 : i64, packed} : tensor<6x2xi8>, tensor<11xi32> -> tensor<6x9xf32>
  %gp = gnn.activation_grad relu %pr, %gr rows %sets : tensor<11xi32> {level = 1 : i64} : tensor<6x9xf32>
  // A vector packs as a column.
  // CHECK: mem.store_sign %{{.*}} : tensor<5xf32> -> tensor<5x1xi8>
  %v = mem.store_sign %e : tensor<5xf32> -> tensor<5x1xi8>
  %lv = mem.load_sign %v : tensor<5x1xi8> -> tensor<5xf32>
  %gv = gnn.activation_grad relu %lv, %de : tensor<5xf32>
  return %gp, %gr, %gv : tensor<6x9xf32>, tensor<6x9xf32>, tensor<5xf32>
}

// CHECK-LABEL: func.func @precision
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Z:.*]]: tensor<3xf64>)
func.func @precision(%x: tensor<4x8xf32>, %z: tensor<3xf64>) -> (tensor<4x8xf32>, tensor<3xf64>) {
  // CHECK: %[[S:.*]] = mem.store_as %[[X]] : tensor<4x8xf32> -> tensor<4x8xbf16>
  %s = mem.store_as %x : tensor<4x8xf32> -> tensor<4x8xbf16>
  // CHECK: %[[L:.*]] = mem.load_as %[[S]] : tensor<4x8xbf16> -> tensor<4x8xf32>
  %l = mem.load_as %s : tensor<4x8xbf16> -> tensor<4x8xf32>
  // CHECK: %[[S2:.*]] = mem.store_as %[[Z]] : tensor<3xf64> -> tensor<3xf16>
  %s2 = mem.store_as %z : tensor<3xf64> -> tensor<3xf16>
  // CHECK: %[[L2:.*]] = mem.load_as %[[S2]] : tensor<3xf16> -> tensor<3xf64>
  %l2 = mem.load_as %s2 : tensor<3xf16> -> tensor<3xf64>
  // CHECK: return %[[L]], %[[L2]]
  return %l, %l2 : tensor<4x8xf32>, tensor<3xf64>
}

// CHECK-LABEL: func.func @free
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
func.func @free(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK: %[[Y:.*]] = gnn.activation relu %[[X]]
  %y = gnn.activation relu %x : tensor<4x8xf32>
  // CHECK-NEXT: mem.free %[[X]] : tensor<4x8xf32>
  mem.free %x : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// The plan attribute keeps every field; floats print in MLIR's round-trip
// form.
// CHECK-LABEL: func.func @planned
// CHECK-SAME: attributes {mem.plan = #mem.plan<budget = 268435456, peak_device = 201326592, peak_host = 67108864, peak_disk = 0, predicted_seconds = 1.500000e-03, keep_all_seconds = 1.200000e-03, policy = "auto">}
func.func @planned() attributes {mem.plan = #mem.plan<budget = 268435456, peak_device = 201326592, peak_host = 67108864, peak_disk = 0, predicted_seconds = 1.5e-3, keep_all_seconds = 1.2e-3, policy = "auto">} {
  return
}

// Fields parse in any order; a plan with no overhead.
// CHECK-LABEL: func.func @planned_reordered
// CHECK-SAME: #mem.plan<budget = 1024, peak_device = 1024, peak_host = 0, peak_disk = 4096, predicted_seconds = 2.000000e+00, keep_all_seconds = 2.000000e+00, policy = "offload_all">
func.func @planned_reordered() attributes {mem.plan = #mem.plan<policy = "offload_all", peak_disk = 4096, keep_all_seconds = 2.0, budget = 1024, peak_host = 0, predicted_seconds = 2.0, peak_device = 1024>} {
  return
}

// Tiers as attributes, on their own (reports and later passes name them).
// CHECK-LABEL: func.func @tiers
// CHECK-SAME: tiers = [#mem.tier<device>, #mem.tier<host>, #mem.tier<disk>]
func.func @tiers() attributes {tiers = [#mem.tier<device>, #mem.tier<host>, #mem.tier<disk>]} {
  return
}

// The planned step of docs/Dialects/Mem.md, verbatim: it parses, verifies
// and keeps its decisions in order.
// CHECK-LABEL: func.func @step
// CHECK-SAME: mem.plan = #mem.plan<budget = 16777216
// CHECK: gnn.matmul
// CHECK-NEXT: mem.offload
// CHECK-NEXT: gnn.activation relu
// CHECK-NEXT: mem.free
// CHECK-NEXT: gnn.matmul
// CHECK-NEXT: mem.store_as
// CHECK-NEXT: mem.load_as
// CHECK-NEXT: gnn.matmul
// CHECK-NEXT: gnn.matmul
// CHECK-NEXT: mem.prefetch
// CHECK-NEXT: mem.recompute
// CHECK-NEXT: ^bb0
// CHECK-NEXT: gnn.matmul
// CHECK-NEXT: mem.yield
// CHECK-NEXT: }
// CHECK-NEXT: gnn.activation_grad
// CHECK-NEXT: gnn.matmul
// CHECK-NEXT: mem.free
// CHECK-NEXT: return
func.func @step(%x: tensor<2708x1433xf32>, %w1: tensor<1433x16xf32>, %w2: tensor<16x7xf32>, %dy: tensor<2708x7xf32>)
    -> (tensor<2708x7xf32>, tensor<1433x16xf32>, tensor<16x7xf32>)
    attributes {mem.plan = #mem.plan<budget = 16777216, peak_device = 16286448, peak_host = 15522256, peak_disk = 0, predicted_seconds = 2.1e-3, keep_all_seconds = 1.9e-3, policy = "auto">} {
  %h = gnn.matmul %x, %w1 : (tensor<2708x1433xf32>, tensor<1433x16xf32>) -> tensor<2708x16xf32>
  %xh = mem.offload %x to host : tensor<2708x1433xf32> -> !mem.offloaded<host, tensor<2708x1433xf32>>
  %a = gnn.activation relu %h : tensor<2708x16xf32>
  mem.free %h : tensor<2708x16xf32>
  %y = gnn.matmul %a, %w2 : (tensor<2708x16xf32>, tensor<16x7xf32>) -> tensor<2708x7xf32>
  %as = mem.store_as %a : tensor<2708x16xf32> -> tensor<2708x16xbf16>
  %al = mem.load_as %as : tensor<2708x16xbf16> -> tensor<2708x16xf32>
  %dw2 = gnn.matmul %al, %dy {transpose_a} : (tensor<2708x16xf32>, tensor<2708x7xf32>) -> tensor<16x7xf32>
  %da = gnn.matmul %dy, %w2 {transpose_b} : (tensor<2708x7xf32>, tensor<16x7xf32>) -> tensor<2708x16xf32>
  %x2 = mem.prefetch %xh : !mem.offloaded<host, tensor<2708x1433xf32>> -> tensor<2708x1433xf32>
  %h2 = mem.recompute (%x2, %w1) : (tensor<2708x1433xf32>, tensor<1433x16xf32>) -> tensor<2708x16xf32> {
  ^bb0(%x0: tensor<2708x1433xf32>, %w0: tensor<1433x16xf32>):
    %m = gnn.matmul %x0, %w0 : (tensor<2708x1433xf32>, tensor<1433x16xf32>) -> tensor<2708x16xf32>
    mem.yield %m : tensor<2708x16xf32>
  }
  %dh = gnn.activation_grad relu %h2, %da : tensor<2708x16xf32>
  %dw1 = gnn.matmul %x2, %dh {transpose_a} : (tensor<2708x1433xf32>, tensor<2708x16xf32>) -> tensor<1433x16xf32>
  mem.free %xh : !mem.offloaded<host, tensor<2708x1433xf32>>
  return %y, %dw1, %dw2 : tensor<2708x7xf32>, tensor<1433x16xf32>, tensor<16x7xf32>
}

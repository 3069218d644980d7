// RUN: gnnc-opt -gnn-restrict-rows -split-input-file %s | FileCheck %s
// RUN: gnnc-opt -gnn-restrict-rows=edge-rows=false -split-input-file %s | FileCheck %s --check-prefix=NOEDGE

// A two-layer GCN step with CSR features, as gnn-autodiff and
// gnn-sparse-features leave it. The loss reads R_0 (the mask), so the last
// aggregation computes R_0, the first R_1, and the feature dropout and
// product R_2. The loss gradient is zero outside R_0; each aggregation over
// the transposed graph adds a hop (R_1, then R_2) and skips the sources
// where its input is zero (R_0, then R_1); the weight gradients sum over
// the rows where both factors can be non-zero (R_1 for the dense product,
// R_2 for the CSR one). The hidden layer's ReLU, its product with w2 and
// their gradients are read at R_1 only, so they compute R_1. Row sets:
// 2 * 4 nodes + 2 hops + 1 = 11 integers. `gnn.rest_unread` marks the
// restricted results that no op reads outside their own set (their kernels
// need not zero the other rows): not the logits (the loss reads them
// whole) nor the weight gradients (not node tensors).
// CHECK-LABEL: func.func @M.step
// CHECK-SAME: (%[[G:[^:]*]]: !gnn.graph<4x6> {gnn.input = "graph"}
// CHECK-SAME: %[[MASK:[^:]*]]: tensor<4xi1> {gnn.input = "train_mask"}
// The sets are computed from the graph with self loops (same sets), which
// the step reads anyway, so the input graph need not stay resident.
// CHECK: %[[L:.*]] = gnn.add_self_loops %[[G]]
// CHECK-NEXT: %[[R:.*]] = gnn.receptive_rows %[[L]], %[[MASK]] {hops = 2 : i64} : (!gnn.graph<4x10>, tensor<4xi1>) -> tensor<8xi32>
// CHECK: %[[XD:.*]] = gnn.dropout %{{.*}}, %{{.*}} rows %[[R]] : tensor<8xi32> {gnn.rest_unread, level = 2 : i64,
// CHECK: gnn.matmul %[[XD]], %{{.*}} rows %[[R]] {gnn.rest_unread, level = 2 : i64}
// CHECK: %[[H:.*]] = gnn.spmm sum %{{.*}} rows %[[R]] {gnn.rest_unread, level = 1 : i64}
// CHECK: %[[RELU:.*]] = gnn.activation relu %[[H]] rows %[[R]] : tensor<8xi32> {gnn.rest_unread, level = 1 : i64}
// CHECK: %[[HW:.*]] = gnn.matmul %[[RELU]], %{{[^ ]*}} rows %[[R]] {gnn.rest_unread, level = 1 : i64} :
// CHECK: gnn.spmm sum %{{.*}}, %[[HW]], %{{.*}} rows %[[R]] {level = 0 : i64}
// CHECK: %[[DHW:.*]] = gnn.spmm sum %{{.*}} rows %[[R]] {gnn.rest_unread, level = 1 : i64, skip = 0 : i64}
// CHECK: gnn.matmul %[[RELU]], %[[DHW]] rows %[[R]] {level = 1 : i64, transpose_a} :
// CHECK: %[[DR:.*]] = gnn.matmul %[[DHW]], %{{[^ ]*}} rows %[[R]] {gnn.rest_unread, level = 1 : i64, transpose_b} :
// CHECK: gnn.activation_grad relu %[[H]], %[[DR]] rows %[[R]] : tensor<8xi32> {gnn.rest_unread, level = 1 : i64}
// CHECK: gnn.spmm sum %{{.*}} rows %[[R]] {gnn.rest_unread, level = 2 : i64, skip = 1 : i64}
// CHECK: gnn.matmul %[[XD]], %{{.*}} rows %[[R]] {level = 2 : i64, transpose_a}
func.func @M.step(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                  %x: tensor<4x8xf32, #gnn.csr<nnz = 5>> {gnn.input = "features"},
                  %labels: tensor<4xi32> {gnn.input = "labels"},
                  %mask: tensor<4xi1> {gnn.input = "train_mask"},
                  %seed: i64, %step: i64, %w1: tensor<8x3xf32>,
                  %w2: tensor<3x2xf32>)
    -> (tensor<f32>, tensor<8x3xf32>, tensor<3x2xf32>)
    attributes {gnn.model = "M"} {
  %one = arith.constant dense<1.0> : tensor<f32>
  %key = gnn.rng_key %seed, %step
  %l = gnn.add_self_loops %g : <4x6> -> <4x10>
  %n = gnn.edge_norm symmetric %l : <4x10> -> tensor<10xf32>
  %xd = gnn.dropout %x, %key {p = 5.000000e-01 : f64, stream = 0 : i64} : tensor<4x8xf32, #gnn.csr<nnz = 5>>
  %xw = gnn.matmul %xd, %w1 : (tensor<4x8xf32, #gnn.csr<nnz = 5>>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %h = gnn.spmm sum %l, %xw, %n : (!gnn.graph<4x10>, tensor<4x3xf32>, tensor<10xf32>) -> tensor<4x3xf32>
  %r = gnn.activation relu %h : tensor<4x3xf32>
  %hw = gnn.matmul %r, %w2 : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %z = gnn.spmm sum %l, %hw, %n : (!gnn.graph<4x10>, tensor<4x2xf32>, tensor<10xf32>) -> tensor<4x2xf32>
  %loss = train.cross_entropy %z, %labels, %mask : (tensor<4x2xf32>, tensor<4xi32>, tensor<4xi1>) -> tensor<f32>
  %dz = train.cross_entropy_grad %z, %labels, %mask, %one : (tensor<4x2xf32>, tensor<4xi32>, tensor<4xi1>, tensor<f32>) -> tensor<4x2xf32>
  %t = gnn.transpose %l : <4x10>
  %dhw = gnn.spmm sum %t, %dz, %n : (!gnn.graph<4x10>, tensor<4x2xf32>, tensor<10xf32>) -> tensor<4x2xf32>
  %dw2 = gnn.matmul %r, %dhw {transpose_a} : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %dr = gnn.matmul %dhw, %w2 {transpose_b} : (tensor<4x2xf32>, tensor<3x2xf32>) -> tensor<4x3xf32>
  %dh = gnn.activation_grad relu %h, %dr : tensor<4x3xf32>
  %dxw = gnn.spmm sum %t, %dh, %n : (!gnn.graph<4x10>, tensor<4x3xf32>, tensor<10xf32>) -> tensor<4x3xf32>
  %dw1 = gnn.matmul %xd, %dxw {transpose_a} : (tensor<4x8xf32, #gnn.csr<nnz = 5>>, tensor<4x3xf32>) -> tensor<8x3xf32>
  return %loss, %dw1, %dw2 : tensor<f32>, tensor<8x3xf32>, tensor<3x2xf32>
}

// -----

// The logits are also returned, so every row of the forward pass is
// needed: nothing there is restricted. The backward pass still is, since
// the loss gradient is zero outside the mask whatever reads the logits;
// its last aggregation is returned, so its other rows are zeroed.
// CHECK-LABEL: func.func @logits_out
// CHECK: gnn.receptive_rows {{.*}} {hops = 2 : i64}
// CHECK: gnn.spmm sum %{{[^ ]*}}, %{{[^ ]*}} :
// CHECK: gnn.spmm sum %{{[^ ]*}}, %{{[^ ]*}} :
// CHECK: gnn.spmm sum %{{.*}} rows %{{.*}} {gnn.rest_unread, level = 1 : i64, skip = 0 : i64}
// CHECK: gnn.spmm sum %{{.*}} rows %{{.*}} {level = 2 : i64, skip = 1 : i64}
func.func @logits_out(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                      %x: tensor<4x3xf32>, %labels: tensor<4xi32>,
                      %mask: tensor<4xi1>)
    -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %one = arith.constant dense<1.0> : tensor<f32>
  %l = gnn.add_self_loops %g : <4x6> -> <4x10>
  %h = gnn.spmm sum %l, %x : (!gnn.graph<4x10>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %z = gnn.spmm sum %l, %h : (!gnn.graph<4x10>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %dz = train.cross_entropy_grad %z, %labels, %mask, %one : (tensor<4x3xf32>, tensor<4xi32>, tensor<4xi1>, tensor<f32>) -> tensor<4x3xf32>
  %t = gnn.transpose %l : <4x10>
  %dh = gnn.spmm sum %t, %dz : (!gnn.graph<4x10>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %dx = gnn.spmm sum %t, %dh : (!gnn.graph<4x10>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %z, %dx : tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// Without a loss gradient (predict), or when the loss and its gradient
// read different masks, nothing changes.
// CHECK-LABEL: func.func @M.predict
// CHECK-NOT: receptive_rows
// CHECK-NOT: rows
// CHECK-LABEL: func.func @two_masks
// CHECK-NOT: receptive_rows
// CHECK-NOT: rows
func.func @M.predict(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                     %x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %l = gnn.add_self_loops %g : <4x6> -> <4x10>
  %h = gnn.spmm sum %l, %x : (!gnn.graph<4x10>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %h : tensor<4x3xf32>
}
func.func @two_masks(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                     %x: tensor<4x3xf32>, %labels: tensor<4xi32>,
                     %m1: tensor<4xi1>, %m2: tensor<4xi1>) -> (tensor<f32>, tensor<4x3xf32>) {
  %one = arith.constant dense<1.0> : tensor<f32>
  %h = gnn.spmm sum %g, %x : (!gnn.graph<4x6>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %loss = train.cross_entropy %h, %labels, %m1 : (tensor<4x3xf32>, tensor<4xi32>, tensor<4xi1>) -> tensor<f32>
  %dh = train.cross_entropy_grad %h, %labels, %m2, %one : (tensor<4x3xf32>, tensor<4xi32>, tensor<4xi1>, tensor<f32>) -> tensor<4x3xf32>
  %t = gnn.transpose %g : <4x6>
  %dx = gnn.spmm sum %t, %dh : (!gnn.graph<4x6>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %loss, %dx : tensor<f32>, tensor<4x3xf32>
}

// -----

// Dense features, a bias and a skip connection. The sum that the last
// aggregation reads is needed at R_1 only, so the add computes R_1; the
// bias sum is also returned (through its ReLU), so it and everything
// before it compute every row. The bias gradient, a sum over rows of the
// loss gradient's first aggregation, reads only R_1, where that can be
// non-zero. One hop: 2 * 4 + 1 + 1 = 10 integers.
// CHECK-LABEL: func.func @dense
// CHECK: %[[R:.*]] = gnn.receptive_rows
// CHECK: gnn.dropout %{{[^ ]*}}, %{{[^ ]*}} {p
// CHECK: %[[HB:.*]] = gnn.bias_add %{{[^ ]*}}, %{{[^ ]*}} :
// CHECK: gnn.add %[[HB]], %{{[^ ]*}} rows %[[R]] : tensor<7xi32> {gnn.rest_unread, level = 1 : i64}
// CHECK: gnn.activation relu %[[HB]] :
// CHECK: %[[DS:.*]] = gnn.spmm sum %{{.*}} rows %[[R]] {gnn.rest_unread, level = 1 : i64, skip = 0 : i64}
// CHECK: gnn.reduce sum %[[DS]] rows %[[R]] : tensor<7xi32> {dim = 0 : i64, level = 1 : i64}
func.func @dense(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                 %x: tensor<4x3xf32>, %labels: tensor<4xi32>,
                 %mask: tensor<4xi1>, %seed: i64, %step: i64,
                 %b: tensor<3xf32>)
    -> (tensor<f32>, tensor<3xf32>, tensor<4x3xf32>) {
  %one = arith.constant dense<1.0> : tensor<f32>
  %key = gnn.rng_key %seed, %step
  %xd = gnn.dropout %x, %key {p = 5.000000e-01 : f64, stream = 0 : i64} : tensor<4x3xf32>
  %h = gnn.spmm sum %g, %xd : (!gnn.graph<4x6>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %hb = gnn.bias_add %h, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %s = gnn.add %hb, %xd : tensor<4x3xf32>
  %kept = gnn.activation relu %hb : tensor<4x3xf32>
  %z = gnn.spmm sum %g, %s : (!gnn.graph<4x6>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %loss = train.cross_entropy %z, %labels, %mask : (tensor<4x3xf32>, tensor<4xi32>, tensor<4xi1>) -> tensor<f32>
  %dz = train.cross_entropy_grad %z, %labels, %mask, %one : (tensor<4x3xf32>, tensor<4xi32>, tensor<4xi1>, tensor<f32>) -> tensor<4x3xf32>
  %t = gnn.transpose %g : <4x6>
  %ds = gnn.spmm sum %t, %dz : (!gnn.graph<4x6>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %db = gnn.reduce sum %ds {dim = 0 : i64} : tensor<4x3xf32> -> tensor<3xf32>
  return %loss, %db, %kept : tensor<f32>, tensor<3xf32>, tensor<4x3xf32>
}

// -----

// GAT's shape: its attention aggregates by max here, which is not
// restricted, so only the output layer's product computes R_0 alone. No
// restricted SpMM reads a graph, and the sets come from the graph with self
// loops that the step reads anyway, not from the input graph: that would
// keep the input graph on the device for the whole step. Zero hops:
// 2 * 4 + 0 + 1 = 9 integers.
// CHECK-LABEL: func.func @no_restricted_spmm
// CHECK: %[[L:.*]] = gnn.add_self_loops
// CHECK-NEXT: %[[R:.*]] = gnn.receptive_rows %[[L]], %{{.*}} {hops = 0 : i64} : (!gnn.graph<4x10>, tensor<4xi1>) -> tensor<6xi32>
// CHECK: gnn.spmm max %[[L]], %{{[^ ]*}} :
// CHECK: gnn.matmul %{{[^ ]*}}, %{{[^ ]*}} rows %[[R]] {level = 0 : i64}
func.func @no_restricted_spmm(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                              %x: tensor<4x3xf32>, %labels: tensor<4xi32>,
                              %mask: tensor<4xi1>, %w: tensor<3x2xf32>)
    -> (tensor<f32>, tensor<4x2xf32>) {
  %one = arith.constant dense<1.0> : tensor<f32>
  %l = gnn.add_self_loops %g : !gnn.graph<4x6> -> !gnn.graph<4x10>
  %h = gnn.spmm max %l, %x : (!gnn.graph<4x10>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %z = gnn.matmul %h, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %loss = train.cross_entropy %z, %labels, %mask : (tensor<4x2xf32>, tensor<4xi32>, tensor<4xi1>) -> tensor<f32>
  %dz = train.cross_entropy_grad %z, %labels, %mask, %one : (tensor<4x2xf32>, tensor<4xi32>, tensor<4xi1>, tensor<f32>) -> tensor<4x2xf32>
  return %loss, %dz : tensor<f32>, tensor<4x2xf32>
}

// -----

// Dense features read only by restricted ops, at R_1 at most (the dropout
// and the product compute R_1 for the aggregation into R_0): the argument
// gets `gnn.rows_read = 1`, so a host home of it need only bring those
// rows to the device (gnn-plan-memory). One hop: 2 * 4 + 1 + 1 = 10.
// CHECK-LABEL: func.func @features_rows
// CHECK-SAME: %{{[^:]*}}: tensor<4x3xf32> {gnn.input = "features", gnn.rows_read = 1 : i64}
// CHECK: gnn.dropout %{{[^ ]*}}, %{{[^ ]*}} rows %{{[^ ]*}} : tensor<7xi32> {gnn.rest_unread, level = 1 : i64
func.func @features_rows(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                         %x: tensor<4x3xf32> {gnn.input = "features"},
                         %labels: tensor<4xi32>, %mask: tensor<4xi1>,
                         %seed: i64, %step: i64, %w: tensor<3x2xf32>)
    -> (tensor<f32>, tensor<4x2xf32>) {
  %one = arith.constant dense<1.0> : tensor<f32>
  %key = gnn.rng_key %seed, %step
  %xd = gnn.dropout %x, %key {p = 5.000000e-01 : f64, stream = 0 : i64} : tensor<4x3xf32>
  %h = gnn.matmul %xd, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %z = gnn.spmm sum %g, %h : (!gnn.graph<4x6>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %loss = train.cross_entropy %z, %labels, %mask : (tensor<4x2xf32>, tensor<4xi32>, tensor<4xi1>) -> tensor<f32>
  %dz = train.cross_entropy_grad %z, %labels, %mask, %one : (tensor<4x2xf32>, tensor<4xi32>, tensor<4xi1>, tensor<f32>) -> tensor<4x2xf32>
  return %loss, %dz : tensor<f32>, tensor<4x2xf32>
}

// -----

// GAT's attention, one layer of two heads: the edge kernels compute the
// edges into the rows their results are read at (edge levels count the
// destinations' sets). The aggregation into R_0 reads the soft-max at the
// edges into R_0, which reads the scores there, whose edge add reads the
// source scores at R_1 and the destination scores at R_0. Backwards, the
// SDDMM of the loss gradient (zero outside R_0) is zero outside the edges
// into R_0, and so are the soft-max gradient and the leaky ReLU's; the
// scatter to destinations sums them at R_0, the one to sources at R_1
// from the edges into R_0 (skip 0), as the transposed aggregation does.
// The leaky ReLU and its gradient are row ops over the 10 edge rows: they
// take the edge sets of gnn.receptive_edges and compute E_0, the edges
// into R_0. One hop: 4 + 1 + 1 + 1 = 7 integers; the edge sets, of the
// one level the element-wise ops read, 10 + 1 + 3 = 14, made just before
// the first edge op (not live during the dense products before it).
// CHECK-LABEL: func.func @attention
// CHECK: %[[L:.*]] = gnn.add_self_loops
// CHECK-NEXT: %[[R:.*]] = gnn.receptive_rows %[[L]], %{{.*}} {hops = 1 : i64} : (!gnn.graph<4x10>, tensor<4xi1>) -> tensor<7xi32>
// CHECK: %[[A:.*]] = gnn.matmul %{{.*}} rows %[[R]] {gnn.rest_unread, level = 1 : i64}
// CHECK: %[[B:.*]] = gnn.matmul %{{.*}} rows %[[R]] {gnn.rest_unread, level = 0 : i64}
// CHECK-NEXT: %[[RE:.*]] = gnn.receptive_edges %[[L]], %[[R]] {hops = 0 : i64} : (!gnn.graph<4x10>, tensor<7xi32>) -> tensor<14xi32>
// CHECK: %[[E:.*]] = gnn.edge_add %[[L]], %[[A]], %[[B]] rows %[[R]] {gnn.rest_unread, level = 0 : i64}
// CHECK: %[[LR:.*]] = gnn.activation leaky_relu %[[E]] rows %[[RE]] : tensor<14xi32> {gnn.rest_unread, level = 0 : i64, slope
// CHECK: %[[S:.*]] = gnn.edge_softmax %[[L]], %[[LR]] rows %[[R]] {gnn.rest_unread, level = 0 : i64}
// CHECK: gnn.spmm sum %[[L]], %{{.*}}, %[[S]] rows %[[R]] {level = 0 : i64}
// CHECK: gnn.spmm sum %{{.*}}, %{{.*}}, %[[S]] rows %[[R]] {level = 1 : i64, skip = 0 : i64}
// CHECK: %[[DS:.*]] = gnn.sddmm %[[L]], %{{.*}}, %{{.*}} rows %[[R]] {gnn.rest_unread, heads = 2 : i64, level = 0 : i64}
// CHECK: %[[DR:.*]] = gnn.edge_softmax_grad %[[L]], %[[S]], %[[DS]] rows %[[R]] {gnn.rest_unread, level = 0 : i64}
// CHECK: %[[DE:.*]] = gnn.activation_grad leaky_relu %[[E]], %[[DR]] rows %[[RE]] : tensor<14xi32> {gnn.rest_unread, level = 0 : i64, slope
// CHECK: gnn.scatter src %[[L]], %[[DE]] rows %[[R]] {level = 1 : i64, skip = 0 : i64}
// CHECK: gnn.scatter dst %[[L]], %[[DE]] rows %[[R]] {level = 0 : i64}
// Without edge-rows, no edge sets: the leaky ReLU and its gradient
// compute every edge, and what they compute outside E_0 is unread, so the
// edge add is still `gnn.rest_unread`.
// NOEDGE-LABEL: func.func @attention
// NOEDGE-NOT: gnn.receptive_edges
// NOEDGE: gnn.edge_add {{.*}} rows %{{.*}} {gnn.rest_unread, level = 0 : i64}
// NOEDGE: gnn.activation leaky_relu %{{[^ ]*}} {slope
// NOEDGE: gnn.activation_grad leaky_relu %{{[^ ]*}}, %{{[^ ]*}} {slope
func.func @attention(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                     %x: tensor<4x4xf32>, %labels: tensor<4xi32>,
                     %mask: tensor<4xi1>, %ws: tensor<4x2xf32>,
                     %wd: tensor<4x2xf32>)
    -> (tensor<f32>, tensor<4x4xf32>, tensor<4x2xf32>, tensor<4x2xf32>) {
  %one = arith.constant dense<1.0> : tensor<f32>
  %l = gnn.add_self_loops %g : !gnn.graph<4x6> -> !gnn.graph<4x10>
  %a = gnn.matmul %x, %ws : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %b = gnn.matmul %x, %wd : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %e = gnn.edge_add %l, %a, %b : (!gnn.graph<4x10>, tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<10x2xf32>
  %r = gnn.activation leaky_relu %e {slope = 2.000000e-01 : f64} : tensor<10x2xf32>
  %s = gnn.edge_softmax %l, %r : (!gnn.graph<4x10>, tensor<10x2xf32>) -> tensor<10x2xf32>
  %z = gnn.spmm sum %l, %x, %s : (!gnn.graph<4x10>, tensor<4x4xf32>, tensor<10x2xf32>) -> tensor<4x4xf32>
  %loss = train.cross_entropy %z, %labels, %mask : (tensor<4x4xf32>, tensor<4xi32>, tensor<4xi1>) -> tensor<f32>
  %dz = train.cross_entropy_grad %z, %labels, %mask, %one : (tensor<4x4xf32>, tensor<4xi32>, tensor<4xi1>, tensor<f32>) -> tensor<4x4xf32>
  %lt = gnn.transpose %l : !gnn.graph<4x10>
  %dx = gnn.spmm sum %lt, %dz, %s : (!gnn.graph<4x10>, tensor<4x4xf32>, tensor<10x2xf32>) -> tensor<4x4xf32>
  %ds = gnn.sddmm %l, %dz, %x {heads = 2 : i64} : (!gnn.graph<4x10>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<10x2xf32>
  %dr = gnn.edge_softmax_grad %l, %s, %ds : (!gnn.graph<4x10>, tensor<10x2xf32>, tensor<10x2xf32>) -> tensor<10x2xf32>
  %de = gnn.activation_grad leaky_relu %e, %dr {slope = 2.000000e-01 : f64} : tensor<10x2xf32>
  %da = gnn.scatter src %l, %de : (!gnn.graph<4x10>, tensor<10x2xf32>) -> tensor<4x2xf32>
  %db = gnn.scatter dst %l, %de : (!gnn.graph<4x10>, tensor<10x2xf32>) -> tensor<4x2xf32>
  return %loss, %dx, %da, %db : tensor<f32>, tensor<4x4xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// A layer by heads (GAT's split-heads form, without the attention): each
// head's columns of z are a gnn.slice read at R_1 by its aggregation into
// R_0, so the slices and the product compute R_1. The heads' outputs are
// joined at R_0, the rows the loss reads (zeros elsewhere: the loss's
// kernel reads every row, masked); their cotangents at R_1, zero outside
// it because each part is and read only there, so the weight gradient sums
// over R_1 only.
// CHECK-LABEL: func.func @heads
// CHECK: %[[R:.*]] = gnn.receptive_rows
// CHECK: %[[Z:.*]] = gnn.matmul %{{[^ ]*}}, %{{[^ ]*}} rows %[[R]] {gnn.rest_unread, level = 1 : i64}
// CHECK: gnn.slice %[[Z]] rows %[[R]] : tensor<7xi32> {gnn.rest_unread, level = 1 : i64, offset = 0 : i64}
// CHECK: gnn.slice %[[Z]] rows %[[R]] : tensor<7xi32> {gnn.rest_unread, level = 1 : i64, offset = 2 : i64}
// CHECK: gnn.concat %{{[^ ]*}}, %{{[^ ]*}} rows %[[R]] : tensor<7xi32> {level = 0 : i64}
// CHECK: %[[DZ:.*]] = gnn.concat %{{[^ ]*}}, %{{[^ ]*}} rows %[[R]] : tensor<7xi32> {gnn.rest_unread, level = 1 : i64}
// CHECK: gnn.matmul %{{[^ ]*}}, %[[DZ]] rows %[[R]] {level = 1 : i64, transpose_a}
func.func @heads(%g: !gnn.graph<4x6> {gnn.input = "graph"},
                 %x: tensor<4x4xf32>, %labels: tensor<4xi32>,
                 %mask: tensor<4xi1>, %w: tensor<4x4xf32>)
    -> (tensor<f32>, tensor<4x4xf32>) {
  %one = arith.constant dense<1.0> : tensor<f32>
  %l = gnn.add_self_loops %g : !gnn.graph<4x6> -> !gnn.graph<4x10>
  %z = gnn.matmul %x, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %z0 = gnn.slice %z {offset = 0 : i64} : tensor<4x4xf32> -> tensor<4x2xf32>
  %z1 = gnn.slice %z {offset = 2 : i64} : tensor<4x4xf32> -> tensor<4x2xf32>
  %y0 = gnn.spmm sum %l, %z0 : (!gnn.graph<4x10>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %y1 = gnn.spmm sum %l, %z1 : (!gnn.graph<4x10>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %y = gnn.concat %y0, %y1 : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x4xf32>
  %loss = train.cross_entropy %y, %labels, %mask : (tensor<4x4xf32>, tensor<4xi32>, tensor<4xi1>) -> tensor<f32>
  %dy = train.cross_entropy_grad %y, %labels, %mask, %one : (tensor<4x4xf32>, tensor<4xi32>, tensor<4xi1>, tensor<f32>) -> tensor<4x4xf32>
  %d0 = gnn.slice %dy {offset = 0 : i64} : tensor<4x4xf32> -> tensor<4x2xf32>
  %d1 = gnn.slice %dy {offset = 2 : i64} : tensor<4x4xf32> -> tensor<4x2xf32>
  %lt = gnn.transpose %l : !gnn.graph<4x10>
  %g0 = gnn.spmm sum %lt, %d0 : (!gnn.graph<4x10>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %g1 = gnn.spmm sum %lt, %d1 : (!gnn.graph<4x10>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %dz = gnn.concat %g0, %g1 : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x4xf32>
  %dw = gnn.matmul %x, %dz {transpose_a} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %loss, %dw : tensor<f32>, tensor<4x4xf32>
}

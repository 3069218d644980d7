// RUN: gnnc-opt -gnn-decompose -split-input-file %s | FileCheck %s
// RUN: gnnc-opt -gnn-decompose -split-input-file -mlir-print-debuginfo -mlir-print-local-scope %s | FileCheck %s --check-prefix=LOC

// Two default gcn_convs over one graph: the graph with self loops and its
// symmetric weights are built once, at the function's entry, and shared;
// each layer is matmul, weighted sum spmm, bias_add, the sum on the
// narrower side: the first layer widens 4 -> 8 and aggregates its input,
// the second narrows 8 -> 2 and aggregates its product.
// CHECK-LABEL: func.func @gcn_shared(
// CHECK-SAME: %[[G:.*]]: !gnn.graph<6x12>, %[[X:.*]]: tensor<6x4xf32>, %[[W0:.*]]: tensor<4x8xf32>, %[[B0:.*]]: tensor<8xf32>, %[[W1:.*]]: tensor<8x2xf32>, %[[B1:.*]]: tensor<2xf32>)
// CHECK-NEXT: %[[GS:.*]] = gnn.add_self_loops %[[G]] : <6x12> -> <6x18>
// CHECK-NEXT: %[[N:.*]] = gnn.edge_norm symmetric %[[GS]] : <6x18> -> tensor<18xf32>
// CHECK-NEXT: %[[R:.*]] = gnn.activation relu %[[X]]
// CHECK-NEXT: %[[A0:.*]] = gnn.spmm sum %[[GS]], %[[R]], %[[N]] : (!gnn.graph<6x18>, tensor<6x4xf32>, tensor<18xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: %[[Z0:.*]] = gnn.matmul %[[A0]], %[[W0]] : (tensor<6x4xf32>, tensor<4x8xf32>) -> tensor<6x8xf32>
// CHECK-NEXT: %[[Y0:.*]] = gnn.bias_add %[[Z0]], %[[B0]] : (tensor<6x8xf32>, tensor<8xf32>) -> tensor<6x8xf32>
// CHECK-NEXT: %[[Z1:.*]] = gnn.matmul %[[Y0]], %[[W1]] : (tensor<6x8xf32>, tensor<8x2xf32>) -> tensor<6x2xf32>
// CHECK-NEXT: %[[A1:.*]] = gnn.spmm sum %[[GS]], %[[Z1]], %[[N]] : (!gnn.graph<6x18>, tensor<6x2xf32>, tensor<18xf32>) -> tensor<6x2xf32>
// CHECK-NEXT: %[[Y1:.*]] = gnn.bias_add %[[A1]], %[[B1]] : (tensor<6x2xf32>, tensor<2xf32>) -> tensor<6x2xf32>
// CHECK-NEXT: return %[[Y1]]
// The new ops keep the location of the layer they come from; the shared
// graph-derived ones that of the first layer needing them.
// LOC-LABEL: func.func @gcn_shared(
// LOC: gnn.add_self_loops {{.*}} loc("m.gnn":3:7)
// LOC-NEXT: gnn.edge_norm {{.*}} loc("m.gnn":3:7)
// LOC-NEXT: gnn.activation {{.*}} loc("m.gnn":2:7)
// LOC-NEXT: gnn.spmm {{.*}} loc("m.gnn":3:7)
// LOC-NEXT: gnn.matmul {{.*}} loc("m.gnn":3:7)
// LOC-NEXT: gnn.bias_add {{.*}} loc("m.gnn":3:7)
// LOC-NEXT: gnn.matmul {{.*}} loc("m.gnn":4:10)
// LOC-NEXT: gnn.spmm {{.*}} loc("m.gnn":4:10)
// LOC-NEXT: gnn.bias_add {{.*}} loc("m.gnn":4:10)
func.func @gcn_shared(%g: !gnn.graph<6x12>, %x: tensor<6x4xf32>, %w0: tensor<4x8xf32>, %b0: tensor<8xf32>, %w1: tensor<8x2xf32>, %b1: tensor<2xf32>) -> tensor<6x2xf32> {
  %r = gnn.activation relu %x : tensor<6x4xf32> loc("m.gnn":2:7)
  %h = gnn.gcn_conv %g, %r, %w0, %b0 : (!gnn.graph<6x12>, tensor<6x4xf32>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<6x8xf32> loc("m.gnn":3:7)
  %y = gnn.gcn_conv %g, %h, %w1, %b1 : (!gnn.graph<6x12>, tensor<6x8xf32>, tensor<8x2xf32>, tensor<2xf32>) -> tensor<6x2xf32> loc("m.gnn":4:10)
  return %y : tensor<6x2xf32>
}

// -----

// gcn_conv flags: without self loops the layer aggregates over the graph
// itself; without normalisation the spmm has no weights; no bias, no
// bias_add. Dynamic counts stay dynamic. Graph-derived values come in the
// order the layers first need them.
// CHECK-LABEL: func.func @gcn_flags(
// CHECK-SAME: %[[G:.*]]: !gnn.graph<?x?>, %[[X:.*]]: tensor<?x4xf32>, %[[W:.*]]: tensor<4x3xf32>)
// CHECK-NEXT: %[[N:.*]] = gnn.edge_norm symmetric %[[G]] : <?x?> -> tensor<?xf32>
// CHECK-NEXT: %[[GS:.*]] = gnn.add_self_loops %[[G]] : <?x?> -> <?x?>
// CHECK-NEXT: %[[Z0:.*]] = gnn.matmul %[[X]], %[[W]] : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
// CHECK-NEXT: %[[Y0:.*]] = gnn.spmm sum %[[G]], %[[Z0]] : (!gnn.graph<?x?>, tensor<?x3xf32>) -> tensor<?x3xf32>
// CHECK-NEXT: %[[Z1:.*]] = gnn.matmul %[[X]], %[[W]]
// CHECK-NEXT: %[[Y1:.*]] = gnn.spmm sum %[[G]], %[[Z1]], %[[N]] : (!gnn.graph<?x?>, tensor<?x3xf32>, tensor<?xf32>) -> tensor<?x3xf32>
// CHECK-NEXT: %[[Z2:.*]] = gnn.matmul %[[X]], %[[W]]
// CHECK-NEXT: %[[Y2:.*]] = gnn.spmm sum %[[GS]], %[[Z2]] : (!gnn.graph<?x?>, tensor<?x3xf32>) -> tensor<?x3xf32>
// CHECK-NEXT: return %[[Y0]], %[[Y1]], %[[Y2]]
func.func @gcn_flags(%g: !gnn.graph<?x?>, %x: tensor<?x4xf32>, %w: tensor<4x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>) {
  %y0 = gnn.gcn_conv %g, %x, %w {self_loops = false, normalize = false} : (!gnn.graph<?x?>, tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  %y1 = gnn.gcn_conv %g, %x, %w {self_loops = false} : (!gnn.graph<?x?>, tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  %y2 = gnn.gcn_conv %g, %x, %w {normalize = false} : (!gnn.graph<?x?>, tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  return %y0, %y1, %y2 : tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>
}

// -----

// Graph-derived values are not shared across functions, and a graph made
// inside the function gets them right after its definition.
// CHECK-LABEL: func.func @first(
// CHECK-NEXT: gnn.add_self_loops
// CHECK-NEXT: gnn.edge_norm
// CHECK-LABEL: func.func @second(
// CHECK-SAME: %[[G:.*]]: !gnn.graph<6x12>,
// CHECK-NEXT: %[[R:.*]] = gnn.activation relu
// CHECK-NEXT: %[[T:.*]] = gnn.transpose %[[G]] : <6x12>
// CHECK-NEXT: %[[TS:.*]] = gnn.add_self_loops %[[T]] : <6x12> -> <6x18>
// CHECK-NEXT: %[[N:.*]] = gnn.edge_norm symmetric %[[TS]]
// CHECK-NEXT: gnn.matmul %[[R]]
// CHECK-NEXT: gnn.spmm sum %[[TS]], %{{.*}}, %[[N]]
func.func @first(%g: !gnn.graph<6x12>, %x: tensor<6x4xf32>, %w: tensor<4x2xf32>) -> tensor<6x2xf32> {
  %y = gnn.gcn_conv %g, %x, %w : (!gnn.graph<6x12>, tensor<6x4xf32>, tensor<4x2xf32>) -> tensor<6x2xf32>
  return %y : tensor<6x2xf32>
}
func.func @second(%g: !gnn.graph<6x12>, %x: tensor<6x4xf32>, %w: tensor<4x2xf32>) -> tensor<6x2xf32> {
  %r = gnn.activation relu %x : tensor<6x4xf32>
  %t = gnn.transpose %g : !gnn.graph<6x12>
  %y = gnn.gcn_conv %t, %r, %w : (!gnn.graph<6x12>, tensor<6x4xf32>, tensor<4x2xf32>) -> tensor<6x2xf32>
  return %y : tensor<6x2xf32>
}

// -----

// sage_conv: aggregate the inputs, then the neighbour weight; the root term
// is a second matmul added to it; then the bias. Max without a root.
// CHECK-LABEL: func.func @sage(
// CHECK-SAME: %[[G:.*]]: !gnn.graph<6x12>, %[[X:.*]]: tensor<6x4xf32>, %[[W:.*]]: tensor<4x3xf32>, %[[WR:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK-NEXT: %[[A:.*]] = gnn.spmm mean %[[G]], %[[X]] : (!gnn.graph<6x12>, tensor<6x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: %[[N:.*]] = gnn.matmul %[[A]], %[[W]] : (tensor<6x4xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
// CHECK-NEXT: %[[R:.*]] = gnn.matmul %[[X]], %[[WR]] : (tensor<6x4xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
// CHECK-NEXT: %[[S:.*]] = gnn.add %[[N]], %[[R]] : tensor<6x3xf32>
// CHECK-NEXT: %[[Y:.*]] = gnn.bias_add %[[S]], %[[B]]
// CHECK-NEXT: %[[AM:.*]] = gnn.spmm max %[[G]], %[[X]] : (!gnn.graph<6x12>, tensor<6x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: %[[NM:.*]] = gnn.matmul %[[AM]], %[[W]]
// CHECK-NEXT: %[[YM:.*]] = gnn.bias_add %[[NM]], %[[B]]
// CHECK-NEXT: %[[AS:.*]] = gnn.spmm sum %[[G]], %[[X]]
// CHECK-NEXT: %[[NS:.*]] = gnn.matmul %[[AS]], %[[W]]
// CHECK-NEXT: %[[RS:.*]] = gnn.matmul %[[X]], %[[WR]]
// CHECK-NEXT: %[[YS:.*]] = gnn.add %[[NS]], %[[RS]]
// CHECK-NEXT: return %[[Y]], %[[YM]], %[[YS]]
// CHECK-NOT: add_self_loops
func.func @sage(%g: !gnn.graph<6x12>, %x: tensor<6x4xf32>, %w: tensor<4x3xf32>, %wr: tensor<4x3xf32>, %b: tensor<3xf32>) -> (tensor<6x3xf32>, tensor<6x3xf32>, tensor<6x3xf32>) {
  %y = gnn.sage_conv %g, %x, %w root %wr bias %b {aggr = #gnn<aggr mean>} : (!gnn.graph<6x12>, tensor<6x4xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<6x3xf32>
  %ym = gnn.sage_conv %g, %x, %w bias %b {aggr = #gnn<aggr max>} : (!gnn.graph<6x12>, tensor<6x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<6x3xf32>
  %ys = gnn.sage_conv %g, %x, %w root %wr {aggr = #gnn<aggr sum>} : (!gnn.graph<6x12>, tensor<6x4xf32>, tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
  return %y, %ym, %ys : tensor<6x3xf32>, tensor<6x3xf32>, tensor<6x3xf32>
}

// -----

// graph_conv: as sage_conv, with the root term always there.
// CHECK-LABEL: func.func @graph_conv(
// CHECK-SAME: %[[G:.*]]: !gnn.graph<6x12>, %[[X:.*]]: tensor<6x4xf32>, %[[W:.*]]: tensor<4x3xf32>, %[[WR:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK-NEXT: %[[A:.*]] = gnn.spmm sum %[[G]], %[[X]] : (!gnn.graph<6x12>, tensor<6x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: %[[N:.*]] = gnn.matmul %[[A]], %[[W]] : (tensor<6x4xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
// CHECK-NEXT: %[[R:.*]] = gnn.matmul %[[X]], %[[WR]] : (tensor<6x4xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
// CHECK-NEXT: %[[S:.*]] = gnn.add %[[N]], %[[R]] : tensor<6x3xf32>
// CHECK-NEXT: %[[Y:.*]] = gnn.bias_add %[[S]], %[[B]] : (tensor<6x3xf32>, tensor<3xf32>) -> tensor<6x3xf32>
// CHECK-NEXT: %[[AM:.*]] = gnn.spmm mean %[[G]], %[[X]]
// CHECK-NEXT: gnn.matmul %[[AM]], %[[W]]
// CHECK-NEXT: gnn.matmul %[[X]], %[[WR]]
// CHECK-NEXT: gnn.add
// CHECK-NEXT: gnn.bias_add
// CHECK-NEXT: return
func.func @graph_conv(%g: !gnn.graph<6x12>, %x: tensor<6x4xf32>, %w: tensor<4x3xf32>, %wr: tensor<4x3xf32>, %b: tensor<3xf32>) -> (tensor<6x3xf32>, tensor<6x3xf32>) {
  %y = gnn.graph_conv %g, %x, %w, %wr, %b {aggr = #gnn<aggr sum>} : (!gnn.graph<6x12>, tensor<6x4xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<6x3xf32>
  %ym = gnn.graph_conv %g, %x, %w, %wr, %b {aggr = #gnn<aggr mean>} : (!gnn.graph<6x12>, tensor<6x4xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<6x3xf32>
  return %y, %ym : tensor<6x3xf32>, tensor<6x3xf32>
}

// -----

// gin_conv: z = (1 + eps) x + sum_j x_j (no scale when eps = 0), then the
// two-layer MLP relu(z W1 + b1) W2 + b2.
// CHECK-LABEL: func.func @gin(
// CHECK-SAME: %[[G:.*]]: !gnn.graph<6x12>, %[[X:.*]]: tensor<6x4xf32>, %[[W1:.*]]: tensor<4x8xf32>, %[[B1:.*]]: tensor<8xf32>, %[[W2:.*]]: tensor<8x3xf32>, %[[B2:.*]]: tensor<3xf32>)
// CHECK-NEXT: %[[A:.*]] = gnn.spmm sum %[[G]], %[[X]] : (!gnn.graph<6x12>, tensor<6x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT: %[[Z:.*]] = gnn.add %[[X]], %[[A]] : tensor<6x4xf32>
// CHECK-NEXT: %[[H:.*]] = gnn.matmul %[[Z]], %[[W1]] : (tensor<6x4xf32>, tensor<4x8xf32>) -> tensor<6x8xf32>
// CHECK-NEXT: %[[HB:.*]] = gnn.bias_add %[[H]], %[[B1]] : (tensor<6x8xf32>, tensor<8xf32>) -> tensor<6x8xf32>
// CHECK-NEXT: %[[HR:.*]] = gnn.activation relu %[[HB]] : tensor<6x8xf32>
// CHECK-NEXT: %[[O:.*]] = gnn.matmul %[[HR]], %[[W2]] : (tensor<6x8xf32>, tensor<8x3xf32>) -> tensor<6x3xf32>
// CHECK-NEXT: %[[Y:.*]] = gnn.bias_add %[[O]], %[[B2]] : (tensor<6x3xf32>, tensor<3xf32>) -> tensor<6x3xf32>
// CHECK-NEXT: %[[A2:.*]] = gnn.spmm sum %[[G]], %[[X]]
// CHECK-NEXT: %[[S2:.*]] = gnn.scale %[[X]] {factor = 1.500000e+00 : f64} : tensor<6x4xf32>
// CHECK-NEXT: %[[Z2:.*]] = gnn.add %[[S2]], %[[A2]] : tensor<6x4xf32>
// CHECK-NEXT: gnn.matmul %[[Z2]], %[[W1]]
// CHECK-NEXT: gnn.bias_add
// CHECK-NEXT: gnn.activation relu
// CHECK-NEXT: gnn.matmul
// CHECK-NEXT: gnn.bias_add
// CHECK-NEXT: return %[[Y]]
func.func @gin(%g: !gnn.graph<6x12>, %x: tensor<6x4xf32>, %w1: tensor<4x8xf32>, %b1: tensor<8xf32>, %w2: tensor<8x3xf32>, %b2: tensor<3xf32>) -> (tensor<6x3xf32>, tensor<6x3xf32>) {
  %y = gnn.gin_conv %g, %x, %w1, %b1, %w2, %b2 : (!gnn.graph<6x12>, tensor<6x4xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<8x3xf32>, tensor<3xf32>) -> tensor<6x3xf32>
  %y2 = gnn.gin_conv %g, %x, %w1, %b1, %w2, %b2 {eps = 0.5 : f64} : (!gnn.graph<6x12>, tensor<6x4xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<8x3xf32>, tensor<3xf32>) -> tensor<6x3xf32>
  return %y, %y2 : tensor<6x3xf32>, tensor<6x3xf32>
}

// -----

// gat_conv, two heads of width 3, concatenated, no attention dropout:
// per-head scores from one product of z with the attention vector laid over
// head_matrix(spread) (an [heads, hf] matrix), added per edge from both ends
// of the self-looped graph (one gnn.edge_add), leaky relu with the layer's slope, edge softmax, the
// weighted sum over heads; then the bias.
// CHECK-LABEL: func.func @gat_concat(
// CHECK-SAME: %[[G:.*]]: !gnn.graph<6x12>, %[[X:.*]]: tensor<6x4xf32>, %[[W:.*]]: tensor<4x6xf32>, %[[AS:.*]]: tensor<6xf32>, %[[AD:.*]]: tensor<6xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK-NEXT: %[[GS:.*]] = gnn.add_self_loops %[[G]] : <6x12> -> <6x18>
// CHECK-NEXT: %[[Z:.*]] = gnn.matmul %[[X]], %[[W]] : (tensor<6x4xf32>, tensor<4x6xf32>) -> tensor<6x6xf32>
// CHECK-NEXT: %[[M:.*]] = gnn.head_matrix spread {heads = 2 : i64, width = 3 : i64} : tensor<2x6xf32>
// CHECK-NEXT: %[[WS:.*]] = gnn.row_mul %[[M]], %[[AS]] : (tensor<2x6xf32>, tensor<6xf32>) -> tensor<2x6xf32>
// CHECK-NEXT: %[[SS:.*]] = gnn.matmul %[[Z]], %[[WS]] {transpose_b} : (tensor<6x6xf32>, tensor<2x6xf32>) -> tensor<6x2xf32>
// CHECK-NEXT: %[[WD:.*]] = gnn.row_mul %[[M]], %[[AD]] : (tensor<2x6xf32>, tensor<6xf32>) -> tensor<2x6xf32>
// CHECK-NEXT: %[[SD:.*]] = gnn.matmul %[[Z]], %[[WD]] {transpose_b} : (tensor<6x6xf32>, tensor<2x6xf32>) -> tensor<6x2xf32>
// CHECK-NEXT: %[[E:.*]] = gnn.edge_add %[[GS]], %[[SS]], %[[SD]] : (!gnn.graph<6x18>, tensor<6x2xf32>, tensor<6x2xf32>) -> tensor<18x2xf32>
// CHECK-NEXT: %[[L:.*]] = gnn.activation leaky_relu %[[E]] {slope = 2.000000e-01 : f64} : tensor<18x2xf32>
// CHECK-NEXT: %[[AL:.*]] = gnn.edge_softmax %[[GS]], %[[L]] : (!gnn.graph<6x18>, tensor<18x2xf32>) -> tensor<18x2xf32>
// CHECK-NEXT: %[[Y:.*]] = gnn.spmm sum %[[GS]], %[[Z]], %[[AL]] : (!gnn.graph<6x18>, tensor<6x6xf32>, tensor<18x2xf32>) -> tensor<6x6xf32>
// CHECK-NEXT: %[[YB:.*]] = gnn.bias_add %[[Y]], %[[B]] : (tensor<6x6xf32>, tensor<6xf32>) -> tensor<6x6xf32>
// CHECK-NEXT: return %[[YB]]
func.func @gat_concat(%g: !gnn.graph<6x12>, %x: tensor<6x4xf32>, %w: tensor<4x6xf32>, %as: tensor<6xf32>, %ad: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<6x6xf32> {
  %y = gnn.gat_conv %g, %x, %w, %as, %ad bias %b {heads = 2 : i64} : (!gnn.graph<6x12>, tensor<6x4xf32>, tensor<4x6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<6x6xf32>
  return %y : tensor<6x6xf32>
}

// -----

// gat_conv averaging three heads of width 2, with attention dropout on its
// own stream and no bias: the attention is dropped out with the layer's key,
// rate and stream, and heads are averaged by a matmul with head_matrix(mean).
// CHECK-LABEL: func.func @gat_mean_dropout(
// CHECK-SAME: %[[G:.*]]: !gnn.graph<6x12>, %[[X:.*]]: tensor<6x4xf32>, %[[W:.*]]: tensor<4x6xf32>, %[[AS:.*]]: tensor<6xf32>, %[[AD:.*]]: tensor<6xf32>, %[[K:.*]]: !gnn.rng_key)
// CHECK-NEXT: %[[GS:.*]] = gnn.add_self_loops %[[G]] : <6x12> -> <6x18>
// CHECK-NEXT: %[[Z:.*]] = gnn.matmul %[[X]], %[[W]] : (tensor<6x4xf32>, tensor<4x6xf32>) -> tensor<6x6xf32>
// CHECK-NEXT: %[[M:.*]] = gnn.head_matrix spread {heads = 3 : i64, width = 2 : i64} : tensor<3x6xf32>
// CHECK-NEXT: %[[WS:.*]] = gnn.row_mul %[[M]], %[[AS]]
// CHECK-NEXT: %[[SS:.*]] = gnn.matmul %[[Z]], %[[WS]] {transpose_b} : (tensor<6x6xf32>, tensor<3x6xf32>) -> tensor<6x3xf32>
// CHECK-NEXT: %[[WD:.*]] = gnn.row_mul %[[M]], %[[AD]]
// CHECK-NEXT: %[[SD:.*]] = gnn.matmul %[[Z]], %[[WD]] {transpose_b} : (tensor<6x6xf32>, tensor<3x6xf32>) -> tensor<6x3xf32>
// CHECK-NEXT: %[[E:.*]] = gnn.edge_add %[[GS]], %[[SS]], %[[SD]] : (!gnn.graph<6x18>, tensor<6x3xf32>, tensor<6x3xf32>) -> tensor<18x3xf32>
// CHECK-NEXT: %[[L:.*]] = gnn.activation leaky_relu %[[E]] {slope = 5.000000e-02 : f64} : tensor<18x3xf32>
// CHECK-NEXT: %[[AL:.*]] = gnn.edge_softmax %[[GS]], %[[L]] : (!gnn.graph<6x18>, tensor<18x3xf32>) -> tensor<18x3xf32>
// CHECK-NEXT: %[[DA:.*]] = gnn.dropout %[[AL]], %[[K]] {p = 4.000000e-01 : f64, stream = 7 : i64} : tensor<18x3xf32>
// CHECK-NEXT: %[[Y:.*]] = gnn.spmm sum %[[GS]], %[[Z]], %[[DA]] : (!gnn.graph<6x18>, tensor<6x6xf32>, tensor<18x3xf32>) -> tensor<6x6xf32>
// CHECK-NEXT: %[[MM:.*]] = gnn.head_matrix mean {heads = 3 : i64, width = 2 : i64} : tensor<6x2xf32>
// CHECK-NEXT: %[[YM:.*]] = gnn.matmul %[[Y]], %[[MM]] : (tensor<6x6xf32>, tensor<6x2xf32>) -> tensor<6x2xf32>
// CHECK-NEXT: return %[[YM]]
func.func @gat_mean_dropout(%g: !gnn.graph<6x12>, %x: tensor<6x4xf32>, %w: tensor<4x6xf32>, %as: tensor<6xf32>, %ad: tensor<6xf32>, %k: !gnn.rng_key) -> tensor<6x2xf32> {
  %y = gnn.gat_conv %g, %x, %w, %as, %ad key %k {heads = 3 : i64, concat = false, negative_slope = 0.05 : f64, attn_dropout = 0.4 : f64, stream = 7 : i64} : (!gnn.graph<6x12>, tensor<6x4xf32>, tensor<4x6xf32>, tensor<6xf32>, tensor<6xf32>, !gnn.rng_key) -> tensor<6x2xf32>
  return %y : tensor<6x2xf32>
}

// -----

// linear: matmul, and bias_add only with a bias.
// CHECK-LABEL: func.func @linear(
// CHECK-SAME: %[[X:.*]]: tensor<6x4xf32>, %[[W:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK-NEXT: %[[Y:.*]] = gnn.matmul %[[X]], %[[W]] : (tensor<6x4xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
// CHECK-NEXT: %[[YB:.*]] = gnn.bias_add %[[Y]], %[[B]] : (tensor<6x3xf32>, tensor<3xf32>) -> tensor<6x3xf32>
// CHECK-NEXT: %[[Y2:.*]] = gnn.matmul %[[X]], %[[W]] : (tensor<6x4xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
// CHECK-NEXT: return %[[YB]], %[[Y2]]
func.func @linear(%x: tensor<6x4xf32>, %w: tensor<4x3xf32>, %b: tensor<3xf32>) -> (tensor<6x3xf32>, tensor<6x3xf32>) {
  %y = gnn.linear %x, %w, %b : (tensor<6x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<6x3xf32>
  %y2 = gnn.linear %x, %w : (tensor<6x4xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
  return %y, %y2 : tensor<6x3xf32>, tensor<6x3xf32>
}

// -----

// batch_norm standardises over nodes (dim 0), layer_norm over features
// (dim 1), each with the layer's eps; then the learnt scale and shift.
// CHECK-LABEL: func.func @norms(
// CHECK-SAME: %[[X:.*]]: tensor<6x4xf64>, %[[S:.*]]: tensor<4xf64>, %[[B:.*]]: tensor<4xf64>)
// CHECK-NEXT: %[[N0:.*]] = gnn.normalize %[[X]] {dim = 0 : i64, eps = 1.000000e-05 : f64} : tensor<6x4xf64>
// CHECK-NEXT: %[[M0:.*]] = gnn.row_mul %[[N0]], %[[S]] : (tensor<6x4xf64>, tensor<4xf64>) -> tensor<6x4xf64>
// CHECK-NEXT: %[[Y0:.*]] = gnn.bias_add %[[M0]], %[[B]] : (tensor<6x4xf64>, tensor<4xf64>) -> tensor<6x4xf64>
// CHECK-NEXT: %[[N1:.*]] = gnn.normalize %[[Y0]] {dim = 1 : i64, eps = 1.000000e-03 : f64} : tensor<6x4xf64>
// CHECK-NEXT: %[[M1:.*]] = gnn.row_mul %[[N1]], %[[S]] : (tensor<6x4xf64>, tensor<4xf64>) -> tensor<6x4xf64>
// CHECK-NEXT: %[[Y1:.*]] = gnn.bias_add %[[M1]], %[[B]] : (tensor<6x4xf64>, tensor<4xf64>) -> tensor<6x4xf64>
// CHECK-NEXT: return %[[Y1]]
func.func @norms(%x: tensor<6x4xf64>, %s: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<6x4xf64> {
  %y = gnn.batch_norm %x, %s, %b : (tensor<6x4xf64>, tensor<4xf64>, tensor<4xf64>) -> tensor<6x4xf64>
  %z = gnn.layer_norm %y, %s, %b {eps = 1.0e-3 : f64} : (tensor<6x4xf64>, tensor<4xf64>, tensor<4xf64>) -> tensor<6x4xf64>
  return %z : tensor<6x4xf64>
}

// -----

// Without layers the pass changes nothing.
// CHECK-LABEL: func.func @no_layers(
// CHECK-NEXT: gnn.activation relu
// CHECK-NEXT: return
func.func @no_layers(%x: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %y = gnn.activation relu %x : tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

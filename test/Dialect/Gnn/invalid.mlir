// Op verifiers reject inconsistent shapes and attributes with a message
// that says what was expected.
// RUN: gnnc-opt %s -split-input-file -verify-diagnostics

func.func @self_loops_edges(%g: !gnn.graph<4x6>) {
  // expected-error @+1 {{result must have edges + nodes = 10 edges, got 6}}
  %0 = gnn.add_self_loops %g : !gnn.graph<4x6> -> !gnn.graph<4x6>
  return
}

// -----

func.func @self_loops_nodes(%g: !gnn.graph<4x6>) {
  // expected-error @+1 {{result must have the input's 4 nodes, got 5}}
  %0 = gnn.add_self_loops %g : !gnn.graph<4x6> -> !gnn.graph<5x11>
  return
}

// -----

func.func @edge_norm_length(%g: !gnn.graph<4x6>) {
  // expected-error @+1 {{result length (one per edge): expected 6, got 5}}
  %0 = gnn.edge_norm mean %g : !gnn.graph<4x6> -> tensor<5xf32>
  return
}

// -----

// expected-error @+1 {{expected `nodes x edges`, got 3 dimension(s)}}
func.func @graph_type(%g: !gnn.graph<4x6x2>) {
  return
}

// -----

func.func @gcn_rows(%g: !gnn.graph<4x6>, %x: tensor<5x8xf32>, %w: tensor<8x4xf32>) {
  // expected-error @+1 {{input rows (one per node): expected 4, got 5}}
  %0 = gnn.gcn_conv %g, %x, %w : (!gnn.graph<4x6>, tensor<5x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @gcn_weight(%g: !gnn.graph<?x?>, %x: tensor<?x8xf32>, %w: tensor<7x4xf32>) {
  // expected-error @+1 {{weight rows (input width): expected 8, got 7}}
  %0 = gnn.gcn_conv %g, %x, %w : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<7x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @gcn_bias(%g: !gnn.graph<?x?>, %x: tensor<?x8xf32>, %w: tensor<8x4xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{bias length: expected 4, got 3}}
  %0 = gnn.gcn_conv %g, %x, %w, %b : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<8x4xf32>, tensor<3xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @mixed_elements(%g: !gnn.graph<?x?>, %x: tensor<?x8xf64>, %w: tensor<8x4xf32>) {
  // expected-error @+1 {{expects one element type for all tensors, got 'f64' and 'f32'}}
  %0 = gnn.gcn_conv %g, %x, %w : (!gnn.graph<?x?>, tensor<?x8xf64>, tensor<8x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @sage_root(%g: !gnn.graph<?x?>, %x: tensor<?x8xf32>, %w: tensor<8x4xf32>, %wr: tensor<8x5xf32>) {
  // expected-error @+1 {{result width (root_weight columns): expected 5, got 4}}
  %0 = gnn.sage_conv %g, %x, %w root %wr {aggr = #gnn<aggr sum>} : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<8x4xf32>, tensor<8x5xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @sage_aggr(%g: !gnn.graph<?x?>, %x: tensor<?x8xf32>, %w: tensor<8x4xf32>) {
  // expected-error @+2 {{expected ::mlir::gnn::Aggregation to be one of: sum, mean, max}}
  // expected-error @+1 {{failed to parse Gnn_AggregationAttr parameter 'value'}}
  %0 = gnn.sage_conv %g, %x, %w {aggr = #gnn<aggr median>} : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @gin_mlp(%g: !gnn.graph<?x?>, %x: tensor<?x8xf32>, %w1: tensor<8x4xf32>, %b: tensor<4xf32>, %w2: tensor<5x4xf32>) {
  // expected-error @+1 {{weight2 rows (weight1 columns): expected 4, got 5}}
  %0 = gnn.gin_conv %g, %x, %w1, %b, %w2, %b : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<8x4xf32>, tensor<4xf32>, tensor<5x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @gat_heads(%g: !gnn.graph<?x?>, %x: tensor<?x8xf32>, %w: tensor<8x6xf32>, %a: tensor<6xf32>) {
  // expected-error @+1 {{weight columns (6) must be a multiple of heads (4)}}
  %0 = gnn.gat_conv %g, %x, %w, %a, %a {heads = 4 : i64} : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<8x6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<?x6xf32>
  return
}

// -----

func.func @gat_mean_width(%g: !gnn.graph<?x?>, %x: tensor<?x8xf32>, %w: tensor<8x6xf32>, %a: tensor<6xf32>) {
  // expected-error @+1 {{result width (out, heads averaged): expected 3, got 6}}
  %0 = gnn.gat_conv %g, %x, %w, %a, %a {heads = 2 : i64, concat = false} : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<8x6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<?x6xf32>
  return
}

// -----

func.func @gat_needs_key(%g: !gnn.graph<?x?>, %x: tensor<?x8xf32>, %w: tensor<8x6xf32>, %a: tensor<6xf32>) {
  // expected-error @+1 {{attn_dropout > 0 needs an rng key operand}}
  %0 = gnn.gat_conv %g, %x, %w, %a, %a {heads = 2 : i64, attn_dropout = 0.5 : f64} : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<8x6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<?x6xf32>
  return
}

// -----

func.func @gat_zero_heads(%g: !gnn.graph<?x?>, %x: tensor<?x8xf32>, %w: tensor<8x6xf32>, %a: tensor<6xf32>) {
  // expected-error @+1 {{attribute 'heads' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = gnn.gat_conv %g, %x, %w, %a, %a {heads = 0 : i64} : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<8x6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<?x6xf32>
  return
}

// -----

func.func @norm_weight(%x: tensor<?x8xf32>, %s: tensor<7xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{weight length: expected 8, got 7}}
  %0 = gnn.batch_norm %x, %s, %b : (tensor<?x8xf32>, tensor<7xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  return
}

// -----

func.func @spmm_width(%g: !gnn.graph<4x6>, %x: tensor<4x3xf32>) {
  // expected-error @+1 {{result width: expected 3, got 2}}
  %0 = gnn.spmm sum %g, %x : (!gnn.graph<4x6>, tensor<4x3xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @spmm_weights(%g: !gnn.graph<4x6>, %x: tensor<4x3xf32>, %w: tensor<5xf32>) {
  // expected-error @+1 {{weights rows (one per edge): expected 6, got 5}}
  %0 = gnn.spmm sum %g, %x, %w : (!gnn.graph<4x6>, tensor<4x3xf32>, tensor<5xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @spmm_heads(%g: !gnn.graph<4x6>, %x: tensor<4x3xf32>, %w: tensor<6x2xf32>) {
  // expected-error @+1 {{weight heads (2) must divide the width (3)}}
  %0 = gnn.spmm sum %g, %x, %w : (!gnn.graph<4x6>, tensor<4x3xf32>, tensor<6x2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @spmm_max_weights(%g: !gnn.graph<4x6>, %x: tensor<4x3xf32>, %w: tensor<6xf32>) {
  // expected-error @+1 {{max aggregation takes no edge weights}}
  %0 = gnn.spmm max %g, %x, %w : (!gnn.graph<4x6>, tensor<4x3xf32>, tensor<6xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @sddmm_result(%g: !gnn.graph<4x6>, %x: tensor<4x4xf32>) {
  // expected-error @+1 {{result columns: expected 2, got 1}}
  %0 = gnn.sddmm %g, %x, %x {heads = 2 : i64} : (!gnn.graph<4x6>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<6x1xf32>
  return
}

// -----

func.func @sddmm_heads(%g: !gnn.graph<4x6>, %x: tensor<4x3xf32>) {
  // expected-error @+1 {{heads (2) must divide the width (3)}}
  %0 = gnn.sddmm %g, %x, %x {heads = 2 : i64} : (!gnn.graph<4x6>, tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<6x2xf32>
  return
}

// -----

func.func @gather_rows(%g: !gnn.graph<4x6>, %x: tensor<4x3xf32>) {
  // expected-error @+1 {{result rows (one per edge): expected 6, got 4}}
  %0 = gnn.gather src %g, %x : (!gnn.graph<4x6>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @edge_add_rows(%g: !gnn.graph<4x6>, %x: tensor<4x3xf32>, %y: tensor<6x3xf32>) {
  // expected-error @+1 {{dst_input rows (one per node): expected 4, got 6}}
  %0 = gnn.edge_add %g, %x, %y : (!gnn.graph<4x6>, tensor<4x3xf32>, tensor<6x3xf32>) -> tensor<6x3xf32>
  return
}

// -----

func.func @edge_add_widths(%g: !gnn.graph<4x6>, %x: tensor<4x3xf32>, %y: tensor<4x2xf32>) {
  // expected-error @+1 {{dst_input width: expected 3, got 2}}
  %0 = gnn.edge_add %g, %x, %y : (!gnn.graph<4x6>, tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<6x3xf32>
  return
}

// -----

func.func @scatter_rows(%g: !gnn.graph<4x6>, %e: tensor<6x3xf32>) {
  // expected-error @+1 {{result rows (one per node): expected 4, got 6}}
  %0 = gnn.scatter dst %g, %e : (!gnn.graph<4x6>, tensor<6x3xf32>) -> tensor<6x3xf32>
  return
}

// -----

func.func @softmax_rows(%g: !gnn.graph<4x6>, %e: tensor<4x1xf32>) {
  // expected-error @+1 {{input rows (one per edge): expected 6, got 4}}
  %0 = gnn.edge_softmax %g, %e : (!gnn.graph<4x6>, tensor<4x1xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<5x3xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+1 {{contraction dimension of rhs: expected 3, got 4}}
  %0 = gnn.matmul %a, %b : (tensor<5x3xf32>, tensor<4x2xf32>) -> tensor<5x2xf32>
  return
}

// -----

func.func @matmul_transposed(%a: tensor<5x3xf32>, %b: tensor<5x2xf32>) {
  // expected-error @+1 {{result rows: expected 3, got 5}}
  %0 = gnn.matmul %a, %b {transpose_a} : (tensor<5x3xf32>, tensor<5x2xf32>) -> tensor<5x2xf32>
  return
}

// -----

func.func @bias_length(%x: tensor<5x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{bias length: expected 3, got 2}}
  %0 = gnn.bias_add %x, %b : (tensor<5x3xf32>, tensor<2xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @reduce_length(%x: tensor<5x3xf32>) {
  // expected-error @+1 {{result length: expected 5, got 3}}
  %0 = gnn.reduce sum %x {dim = 1 : i64} : tensor<5x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @reduce_dim(%x: tensor<5x3xf32>) {
  // expected-error @+1 {{attribute 'dim' failed to satisfy constraint}}
  %0 = gnn.reduce sum %x {dim = 2 : i64} : tensor<5x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @head_matrix_shape() {
  // expected-error @+1 {{result must be 'tensor<6x2xf32>'}}
  %0 = gnn.head_matrix sum {heads = 2 : i64, width = 3 : i64} : tensor<6x3xf32>
  return
}

// -----

func.func @head_matrix_spread_shape() {
  // expected-error @+1 {{result must be 'tensor<2x6xf32>'}}
  %0 = gnn.head_matrix spread {heads = 2 : i64, width = 3 : i64} : tensor<6x2xf32>
  return
}

// -----

func.func @binary_types(%x: tensor<5x3xf32>, %y: tensor<5x2xf32>) {
  // expected-error @+1 {{failed to verify that all of {lhs, rhs, result} have same type}}
  %0 = "gnn.add"(%x, %y) : (tensor<5x3xf32>, tensor<5x2xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @integer_tensor(%x: tensor<5x3xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = gnn.activation relu %x : tensor<5x3xi32>
  return
}

// -----

func.func @dropout_p(%x: tensor<5x3xf32>, %k: !gnn.rng_key) {
  // expected-error @+1 {{p must be in [0, 1), got 1}}
  %0 = gnn.dropout %x, %k {p = 1.0 : f64, stream = 0 : i64} : tensor<5x3xf32>
  return
}

// -----

func.func @dropout_negative(%x: tensor<5x3xf32>, %k: !gnn.rng_key) {
  // expected-error @+1 {{attribute 'p' failed to satisfy constraint: 64-bit float attribute whose value is non-negative}}
  %0 = gnn.dropout %x, %k {p = -0.5 : f64, stream = 0 : i64} : tensor<5x3xf32>
  return
}

// -----

func.func @concat_width(%x: tensor<5x3xf32>, %y: tensor<5x2xf32>) {
  // expected-error @+1 {{result width (sum of the inputs'): expected 5, got 6}}
  %0 = gnn.concat %x, %y : (tensor<5x3xf32>, tensor<5x2xf32>) -> tensor<5x6xf32>
  return
}

// -----

func.func @slice_bounds(%x: tensor<5x3xf32>) {
  // expected-error @+1 {{columns [2, 4) are out of the input's 3}}
  %0 = gnn.slice %x {offset = 2 : i64} : tensor<5x3xf32> -> tensor<5x2xf32>
  return
}

// -----

func.func @insert_columns_bounds(%x: tensor<5x3xf32>, %b: tensor<5x2xf32>) {
  // expected-error @+1 {{columns [2, 4) are out of the input's 3}}
  %0 = gnn.insert_columns %b into %x {offset = 2 : i64} : tensor<5x2xf32> into tensor<5x3xf32>
  return
}

// -----

func.func @insert_columns_rows(%x: tensor<5x3xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+1 {{block rows: expected 5, got 4}}
  %0 = gnn.insert_columns %b into %x {offset = 0 : i64} : tensor<4x2xf32> into tensor<5x3xf32>
  return
}

// -----

func.func @insert_columns_type(%x: tensor<5x3xf32>, %b: tensor<5x2xf16>) {
  // expected-error @+1 {{expects one element type for all tensors, got 'f16' and 'f32'}}
  %0 = gnn.insert_columns %b into %x {offset = 0 : i64} : tensor<5x2xf16> into tensor<5x3xf32>
  return
}

// -----

func.func @softmax_type(%g: !gnn.graph<4x6>, %e: tensor<6x2xf32>) {
  // expected-error @+1 {{all of {input, result} have same type}}
  %0 = gnn.edge_softmax %g, %e : (!gnn.graph<4x6>, tensor<6x2xf32>) -> tensor<6x1xf32>
  return
}

// -----

func.func @softmax_grad_type(%g: !gnn.graph<4x6>, %y: tensor<6x2xf32>, %dy: tensor<6x2xf64>) {
  // expected-error @+1 {{all of {output, result_grad, result} have same type}}
  %0 = gnn.edge_softmax_grad %g, %y, %dy : (!gnn.graph<4x6>, tensor<6x2xf32>, tensor<6x2xf64>) -> tensor<6x2xf32>
  return
}

// -----

func.func @max_grad_type(%g: !gnn.graph<4x6>, %x: tensor<4x3xf32>, %dy: tensor<4x2xf32>) {
  // expected-error @+1 {{all of {input, result_grad, result} have same type}}
  %0 = gnn.spmm_max_grad %g, %x, %dy : (!gnn.graph<4x6>, tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @row_mul_type(%x: tensor<5x3xf32>, %v: tensor<3xf32>) {
  // expected-error @+1 {{all of {input, result} have same type}}
  %0 = gnn.row_mul %x, %v : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @layer_norm_type(%x: tensor<?x8xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{all of {input, result} have same type}}
  %0 = gnn.layer_norm %x, %s, %s : (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x4xf32>
  return
}

// -----

// #gnn.csr: a static matrix with at most rows * cols slots, and only as
// the left operand of a product.
// expected-error @+1 {{#gnn.csr<nnz = 13> does not fit a 3x4 matrix}}
func.func @csr_too_many(%x: tensor<3x4xf32, #gnn.csr<nnz = 13>>) {
  return
}

// -----

// expected-error @+1 {{#gnn.csr needs a static rank-2 shape}}
func.func @csr_rank(%x: tensor<12xf32, #gnn.csr<nnz = 3>>) {
  return
}

// -----

func.func @csr_rhs(%a: tensor<2x3xf32>, %x: tensor<3x4xf32, #gnn.csr<nnz = 2>>) {
  // expected-error @+1 {{only the left operand may be #gnn.csr}}
  %0 = gnn.matmul %a, %x : (tensor<2x3xf32>, tensor<3x4xf32, #gnn.csr<nnz = 2>>) -> tensor<2x4xf32>
  return
}

// -----

func.func @receptive_rows_size(%g: !gnn.graph<4x6>, %m: tensor<4xi1>) {
  // expected-error @+1 {{result length (hops + 1 + nodes + ceil(nodes / 4)): expected 8}}
  %0 = gnn.receptive_rows %g, %m {hops = 2 : i64} : (!gnn.graph<4x6>, tensor<4xi1>) -> tensor<11xi32>
  return
}

// -----

func.func @receptive_rows_too_deep(%g: !gnn.graph<4x6>, %m: tensor<4xi1>) {
  // expected-error @+1 {{hops 127 exceed the 126 a one-byte level allows}}
  %0 = gnn.receptive_rows %g, %m {hops = 127 : i64} : (!gnn.graph<4x6>, tensor<4xi1>) -> tensor<133xi32>
  return
}

// -----

func.func @receptive_edges_size(%g: !gnn.graph<4x6>, %r: tensor<8xi32>) {
  // expected-error @+1 {{result length (hops + 1 + edges + ceil(edges / 4)): expected 10}}
  %0 = gnn.receptive_edges %g, %r {hops = 1 : i64} : (!gnn.graph<4x6>, tensor<8xi32>) -> tensor<9xi32>
  return
}

// -----

func.func @receptive_edges_too_deep(%g: !gnn.graph<4x6>, %r: tensor<8xi32>) {
  // expected-error @+1 {{hops 3 exceed the node sets' 2}}
  %0 = gnn.receptive_edges %g, %r {hops = 3 : i64} : (!gnn.graph<4x6>, tensor<8xi32>) -> tensor<12xi32>
  return
}

// -----

func.func @receptive_edges_sets(%g: !gnn.graph<4x6>, %r: tensor<3xi32>) {
  // expected-error @+1 {{row sets of 3 integers cannot describe 4 nodes}}
  %0 = gnn.receptive_edges %g, %r {hops = 0 : i64} : (!gnn.graph<4x6>, tensor<3xi32>) -> tensor<9xi32>
  return
}

// -----

func.func @rows_without_level(%g: !gnn.graph<4x6>, %x: tensor<4x3xf32>, %r: tensor<8xi32>) {
  // expected-error @+1 {{row sets ('rows') need a 'level'}}
  %0 = gnn.spmm sum %g, %x rows %r : (!gnn.graph<4x6>, tensor<4x3xf32>, tensor<8xi32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @rows_level_too_deep(%g: !gnn.graph<4x6>, %x: tensor<4x3xf32>, %r: tensor<8xi32>) {
  // expected-error @+1 {{level 3 is beyond the row sets' 2 hops}}
  %0 = gnn.spmm sum %g, %x rows %r {level = 3 : i64} : (!gnn.graph<4x6>, tensor<4x3xf32>, tensor<8xi32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @rows_max(%g: !gnn.graph<4x6>, %x: tensor<4x3xf32>, %r: tensor<8xi32>) {
  // expected-error @+1 {{row sets need sum or mean aggregation}}
  %0 = gnn.spmm max %g, %x rows %r {level = 1 : i64} : (!gnn.graph<4x6>, tensor<4x3xf32>, tensor<8xi32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @rows_wrong_size(%x: tensor<4x8xf32, #gnn.csr<nnz = 5>>, %w: tensor<8x3xf32>, %r: tensor<5xi32>) {
  // expected-error @+1 {{row sets of 5 integers cannot describe 4 nodes}}
  %0 = gnn.matmul %x, %w rows %r {level = 0 : i64} : (tensor<4x8xf32, #gnn.csr<nnz = 5>>, tensor<8x3xf32>, tensor<5xi32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @level_without_rows(%x: tensor<4x3xf32>, %k: !gnn.rng_key) {
  // expected-error @+1 {{'level' and 'skip' need row sets ('rows')}}
  %0 = gnn.dropout %x, %k {p = 0.5 : f64, stream = 0 : i64, level = 1 : i64} : tensor<4x3xf32>
  return
}

// -----

func.func @rows_edge_vector(%x: tensor<4xf32>, %r: tensor<8xi32>) {
  // expected-error @+1 {{row sets need a node tensor}}
  %0 = gnn.scale %x rows %r : tensor<8xi32> {factor = 2.0 : f64, level = 0 : i64} : tensor<4xf32>
  return
}

// -----

func.func @rows_elementwise_too_deep(%x: tensor<4x3xf32>, %r: tensor<8xi32>) {
  // expected-error @+1 {{level 5 is beyond the row sets' 2 hops}}
  %0 = gnn.activation relu %x rows %r : tensor<8xi32> {level = 5 : i64} : tensor<4x3xf32>
  return
}

// -----

func.func @rows_slice_too_deep(%x: tensor<4x3xf32>, %r: tensor<8xi32>) {
  // expected-error @+1 {{level 3 is beyond the row sets' 2 hops}}
  %0 = gnn.slice %x rows %r : tensor<8xi32> {level = 3 : i64, offset = 0 : i64} : tensor<4x3xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @rows_insert_without_level(%x: tensor<4x3xf32>, %b: tensor<4x2xf32>, %r: tensor<8xi32>) {
  // expected-error @+1 {{row sets ('rows') need a 'level'}}
  %0 = gnn.insert_columns %b into %x rows %r : tensor<8xi32> {offset = 0 : i64} : tensor<4x2xf32> into tensor<4x3xf32>
  return
}

// -----

func.func @rows_bias_wrong_size(%x: tensor<4x3xf32>, %b: tensor<3xf32>, %r: tensor<5xi32>) {
  // expected-error @+1 {{row sets of 5 integers cannot describe 4 nodes}}
  %0 = gnn.bias_add %x, %b rows %r {level = 0 : i64} : (tensor<4x3xf32>, tensor<3xf32>, tensor<5xi32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @rows_reduce_columns(%x: tensor<4x3xf32>, %r: tensor<8xi32>) {
  // expected-error @+1 {{row sets need a sum or mean over rows (dim = 0)}}
  %0 = gnn.reduce sum %x rows %r : tensor<8xi32> {dim = 1 : i64, level = 0 : i64} : tensor<4x3xf32> -> tensor<4xf32>
  return
}

// -----

func.func @rows_reduce_max(%x: tensor<4x3xf32>, %r: tensor<8xi32>) {
  // expected-error @+1 {{row sets need a sum or mean over rows (dim = 0)}}
  %0 = gnn.reduce max %x rows %r : tensor<8xi32> {dim = 0 : i64, level = 0 : i64} : tensor<4x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @rows_add_without_level(%x: tensor<4x3xf32>, %r: tensor<8xi32>) {
  // expected-error @+1 {{row sets ('rows') need a 'level'}}
  %0 = gnn.add %x, %x rows %r : tensor<8xi32> : tensor<4x3xf32>
  return
}

// -----

func.func @dropout_mask_columns_outside(%x: tensor<5x2xf32>, %k: !gnn.rng_key) -> tensor<5x2xf32> {
  // expected-error@+1 {{'gnn.dropout' op mask_columns: columns [3, 5) are not within 4}}
  %y = gnn.dropout %x, %k {mask_columns = array<i64: 4, 3>, p = 0.5 : f64, stream = 0 : i64} : tensor<5x2xf32>
  return %y : tensor<5x2xf32>
}

// -----

func.func @dropout_mask_columns_shape(%x: tensor<5x2xf32>, %k: !gnn.rng_key) -> tensor<5x2xf32> {
  // expected-error@+1 {{'gnn.dropout' op mask_columns needs [columns, offset] and a dense matrix}}
  %y = gnn.dropout %x, %k {mask_columns = array<i64: 4>, p = 0.5 : f64, stream = 0 : i64} : tensor<5x2xf32>
  return %y : tensor<5x2xf32>
}

// -----

// An edge kernel's level names its graph's destinations: the sets must
// describe its graph's nodes.
func.func @edge_rows_too_deep(%g: !gnn.graph<4x6>, %x: tensor<4x3xf32>, %r: tensor<8xi32>) {
  // expected-error @+1 {{level 3 is beyond the row sets' 2 hops}}
  %s = gnn.sddmm %g, %x, %x rows %r {heads = 1 : i64, level = 3 : i64} : (!gnn.graph<4x6>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<8xi32>) -> tensor<6x1xf32>
  return
}

// -----

func.func @edge_rows_other_graph(%g: !gnn.graph<7x6>, %e: tensor<6x2xf32>, %r: tensor<8xi32>) {
  // expected-error @+1 {{row sets of 8 integers cannot describe 7 nodes}}
  %y = gnn.edge_softmax %g, %e rows %r {level = 0 : i64} : (!gnn.graph<7x6>, tensor<6x2xf32>, tensor<8xi32>) -> tensor<6x2xf32>
  return
}

// -----

func.func @scatter_skip_too_deep(%g: !gnn.graph<4x6>, %e: tensor<6x2xf32>, %r: tensor<8xi32>) {
  // expected-error @+1 {{skip 4 is beyond the row sets' 2 hops}}
  %y = gnn.scatter src %g, %e rows %r {level = 1 : i64, skip = 4 : i64} : (!gnn.graph<4x6>, tensor<6x2xf32>, tensor<8xi32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @edge_level_without_rows(%g: !gnn.graph<4x6>, %a: tensor<4x2xf32>) {
  // expected-error @+1 {{'level' and 'skip' need row sets ('rows')}}
  %y = gnn.edge_add %g, %a, %a {level = 0 : i64} : (!gnn.graph<4x6>, tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<6x2xf32>
  return
}

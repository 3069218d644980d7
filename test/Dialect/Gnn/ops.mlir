// Every gnn op parses, verifies, prints and parses again, in the custom and
// in the generic form.
// RUN: gnnc-opt %s | gnnc-opt | FileCheck %s
// RUN: gnnc-opt %s --mlir-print-op-generic | gnnc-opt | FileCheck %s

// CHECK-LABEL: func.func @graph_ops
// CHECK-SAME: (%[[G:.*]]: !gnn.graph<4x6>, %[[U:.*]]: !gnn.graph<?x?>)
func.func @graph_ops(%g: !gnn.graph<4x6>, %u: !gnn.graph<?x?>) -> (tensor<10xf32>, tensor<?xf32>) {
  // CHECK: %[[L:.*]] = gnn.add_self_loops %[[G]] : <4x6> -> <4x10>
  %l = gnn.add_self_loops %g : !gnn.graph<4x6> -> !gnn.graph<4x10>
  // CHECK: gnn.transpose %[[L]] : <4x10>
  %t = gnn.transpose %l : !gnn.graph<4x10>
  // CHECK: gnn.edge_norm symmetric %[[L]] : <4x10> -> tensor<10xf32>
  %w = gnn.edge_norm symmetric %l : !gnn.graph<4x10> -> tensor<10xf32>
  // CHECK: gnn.edge_norm mean %[[U]] : <?x?> -> tensor<?xf32>
  %m = gnn.edge_norm mean %u : !gnn.graph<?x?> -> tensor<?xf32>
  return %w, %m : tensor<10xf32>, tensor<?xf32>
}

// CHECK-LABEL: func.func @layers
func.func @layers(%g: !gnn.graph<?x?>, %x: tensor<?x8xf32>, %w: tensor<8x4xf32>,
                  %b: tensor<4xf32>, %w2: tensor<4x4xf32>, %wa: tensor<8x6xf32>,
                  %a: tensor<6xf32>, %b3: tensor<3xf32>, %s: tensor<8xf32>,
                  %k: !gnn.rng_key) {
  // CHECK: gnn.gcn_conv %{{.*}} {normalize = false} : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %0 = gnn.gcn_conv %g, %x, %w, %b {normalize = false} : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  // CHECK: gnn.gcn_conv %{{.*}} : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
  %1 = gnn.gcn_conv %g, %x, %w : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
  // CHECK: gnn.sage_conv %{{.*}}, %{{.*}}, %{{.*}} root %{{.*}} bias %{{.*}} {aggr = #gnn<aggr max>}
  %2 = gnn.sage_conv %g, %x, %w root %w bias %b {aggr = #gnn<aggr max>} : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  // CHECK: gnn.sage_conv %{{.*}}, %{{.*}}, %{{.*}} bias %{{.*}} {aggr = #gnn<aggr mean>}
  %3 = gnn.sage_conv %g, %x, %w bias %b {aggr = #gnn<aggr mean>} : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  // CHECK: gnn.graph_conv {{.*}} {aggr = #gnn<aggr sum>}
  %4 = gnn.graph_conv %g, %x, %w, %w, %b {aggr = #gnn<aggr sum>} : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  // CHECK: gnn.gin_conv {{.*}} {eps = 5.000000e-01 : f64}
  %5 = gnn.gin_conv %g, %x, %w, %b, %w2, %b {eps = 0.5 : f64} : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<8x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  // CHECK: gnn.gat_conv %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} bias %{{.*}} key %{{.*}} {attn_dropout = 6.000000e-01 : f64, concat = false, heads = 2 : i64, stream = 3 : i64}
  %6 = gnn.gat_conv %g, %x, %wa, %a, %a bias %b3 key %k {heads = 2 : i64, concat = false, attn_dropout = 0.6 : f64, stream = 3 : i64} : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<8x6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<3xf32>, !gnn.rng_key) -> tensor<?x3xf32>
  // CHECK: gnn.gat_conv %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {heads = 2 : i64}
  %7 = gnn.gat_conv %g, %x, %wa, %a, %a {heads = 2 : i64} : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<8x6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<?x6xf32>
  // CHECK: gnn.linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %8 = gnn.linear %x, %w, %b : (tensor<?x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  // CHECK: gnn.batch_norm {{.*}} : (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %9 = gnn.batch_norm %x, %s, %s : (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  // CHECK: gnn.layer_norm {{.*}} {eps = 1.000000e-03 : f64}
  %10 = gnn.layer_norm %x, %s, %s {eps = 1.0e-3 : f64} : (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  return
}

// CHECK-LABEL: func.func @aggregation
func.func @aggregation(%g: !gnn.graph<4x6>, %x: tensor<4x6xf32>, %w: tensor<6xf32>,
                       %wh: tensor<6x3xf32>, %e: tensor<6x3xf32>) {
  // CHECK: gnn.spmm sum %{{.*}}, %{{.*}}, %{{.*}} : (!gnn.graph<4x6>, tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  %0 = gnn.spmm sum %g, %x, %w : (!gnn.graph<4x6>, tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  // CHECK: gnn.spmm sum %{{.*}}, %{{.*}}, %{{.*}} : (!gnn.graph<4x6>, tensor<4x6xf32>, tensor<6x3xf32>) -> tensor<4x6xf32>
  %1 = gnn.spmm sum %g, %x, %wh : (!gnn.graph<4x6>, tensor<4x6xf32>, tensor<6x3xf32>) -> tensor<4x6xf32>
  // CHECK: gnn.spmm mean %{{.*}}, %{{.*}} : (!gnn.graph<4x6>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %2 = gnn.spmm mean %g, %x : (!gnn.graph<4x6>, tensor<4x6xf32>) -> tensor<4x6xf32>
  // CHECK: gnn.spmm max
  %3 = gnn.spmm max %g, %x : (!gnn.graph<4x6>, tensor<4x6xf32>) -> tensor<4x6xf32>
  // CHECK: gnn.spmm_max_grad
  %4 = gnn.spmm_max_grad %g, %x, %3 : (!gnn.graph<4x6>, tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  // CHECK: gnn.sddmm {{.*}} {heads = 3 : i64} : (!gnn.graph<4x6>, tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<6x3xf32>
  %5 = gnn.sddmm %g, %x, %x {heads = 3 : i64} : (!gnn.graph<4x6>, tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<6x3xf32>
  // CHECK: gnn.gather src
  %6 = gnn.gather src %g, %x : (!gnn.graph<4x6>, tensor<4x6xf32>) -> tensor<6x6xf32>
  // CHECK: gnn.edge_add {{.*}} : (!gnn.graph<4x6>, tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<6x6xf32>
  %e6 = gnn.edge_add %g, %x, %x : (!gnn.graph<4x6>, tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<6x6xf32>
  // CHECK: gnn.scatter dst
  %7 = gnn.scatter dst %g, %6 : (!gnn.graph<4x6>, tensor<6x6xf32>) -> tensor<4x6xf32>
  // CHECK: gnn.edge_softmax
  %8 = gnn.edge_softmax %g, %e : (!gnn.graph<4x6>, tensor<6x3xf32>) -> tensor<6x3xf32>
  // CHECK: gnn.edge_softmax_grad
  %9 = gnn.edge_softmax_grad %g, %8, %e : (!gnn.graph<4x6>, tensor<6x3xf32>, tensor<6x3xf32>) -> tensor<6x3xf32>
  return
}

// CHECK-LABEL: func.func @dense
func.func @dense(%a: tensor<5x3xf64>, %b: tensor<3x2xf64>, %v: tensor<2xf64>, %c: tensor<5x2xf64>) {
  // CHECK: gnn.matmul %{{.*}}, %{{.*}} : (tensor<5x3xf64>, tensor<3x2xf64>) -> tensor<5x2xf64>
  %0 = gnn.matmul %a, %b : (tensor<5x3xf64>, tensor<3x2xf64>) -> tensor<5x2xf64>
  // CHECK: gnn.matmul %{{.*}}, %{{.*}} {transpose_a} : (tensor<5x3xf64>, tensor<5x2xf64>) -> tensor<3x2xf64>
  %1 = gnn.matmul %a, %c {transpose_a} : (tensor<5x3xf64>, tensor<5x2xf64>) -> tensor<3x2xf64>
  // CHECK: gnn.matmul %{{.*}}, %{{.*}} {transpose_b} : (tensor<5x2xf64>, tensor<3x2xf64>) -> tensor<5x3xf64>
  %2 = gnn.matmul %c, %b {transpose_b} : (tensor<5x2xf64>, tensor<3x2xf64>) -> tensor<5x3xf64>
  // CHECK: gnn.bias_add
  %3 = gnn.bias_add %c, %v : (tensor<5x2xf64>, tensor<2xf64>) -> tensor<5x2xf64>
  // CHECK: gnn.row_mul
  %4 = gnn.row_mul %c, %v : (tensor<5x2xf64>, tensor<2xf64>) -> tensor<5x2xf64>
  // CHECK: gnn.reduce sum %{{.*}} {dim = 0 : i64} : tensor<5x2xf64> -> tensor<2xf64>
  %5 = gnn.reduce sum %c {dim = 0 : i64} : tensor<5x2xf64> -> tensor<2xf64>
  // CHECK: gnn.reduce mean %{{.*}} {dim = 1 : i64} : tensor<5x2xf64> -> tensor<5xf64>
  %6 = gnn.reduce mean %c {dim = 1 : i64} : tensor<5x2xf64> -> tensor<5xf64>
  // CHECK: gnn.head_matrix sum {heads = 2 : i64, width = 3 : i64} : tensor<6x2xf64>
  %7 = gnn.head_matrix sum {heads = 2 : i64, width = 3 : i64} : tensor<6x2xf64>
  // CHECK: gnn.head_matrix mean {heads = 2 : i64, width = 3 : i64} : tensor<6x3xf64>
  %8 = gnn.head_matrix mean {heads = 2 : i64, width = 3 : i64} : tensor<6x3xf64>
  // CHECK: gnn.head_matrix spread {heads = 2 : i64, width = 3 : i64} : tensor<2x6xf64>
  %10 = gnn.head_matrix spread {heads = 2 : i64, width = 3 : i64} : tensor<2x6xf64>
  // CHECK: gnn.zeros : tensor<5x2xf64>
  %9 = gnn.zeros : tensor<5x2xf64>
  return
}

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>, %z: tensor<?x2xf32>, %seed: i64, %step: i64) {
  // CHECK: gnn.add %{{.*}}, %{{.*}} : tensor<?x4xf32>
  %0 = gnn.add %x, %y : tensor<?x4xf32>
  // CHECK: gnn.sub
  %1 = gnn.sub %x, %y : tensor<?x4xf32>
  // CHECK: gnn.mul
  %2 = gnn.mul %x, %y : tensor<?x4xf32>
  // CHECK: gnn.scale %{{.*}} {factor = 2.500000e+00 : f64} : tensor<?x4xf32>
  %3 = gnn.scale %x {factor = 2.5 : f64} : tensor<?x4xf32>
  // CHECK: gnn.activation relu %{{.*}} : tensor<?x4xf32>
  %4 = gnn.activation relu %x : tensor<?x4xf32>
  // CHECK: gnn.activation leaky_relu %{{.*}} {slope = 2.000000e-01 : f64}
  %5 = gnn.activation leaky_relu %x {slope = 0.2 : f64} : tensor<?x4xf32>
  // CHECK: gnn.activation elu
  %6 = gnn.activation elu %x : tensor<?x4xf32>
  // CHECK: gnn.activation gelu
  %7 = gnn.activation gelu %x : tensor<?x4xf32>
  // CHECK: gnn.activation sigmoid
  %8 = gnn.activation sigmoid %x : tensor<?x4xf32>
  // CHECK: gnn.activation tanh
  %9 = gnn.activation tanh %x : tensor<?x4xf32>
  // CHECK: gnn.activation_grad relu %{{.*}}, %{{.*}} : tensor<?x4xf32>
  %10 = gnn.activation_grad relu %x, %y : tensor<?x4xf32>
  // CHECK: %[[K:.*]] = gnn.rng_key %{{.*}}, %{{.*}}
  %k = gnn.rng_key %seed, %step
  // CHECK: gnn.dropout %{{.*}}, %[[K]] {p = 5.000000e-01 : f64, stream = 7 : i64} : tensor<?x4xf32>
  %11 = gnn.dropout %x, %k {p = 0.5 : f64, stream = 7 : i64} : tensor<?x4xf32>
  // CHECK: gnn.concat %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<?x2xf32>) -> tensor<?x6xf32>
  %12 = gnn.concat %x, %z : (tensor<?x4xf32>, tensor<?x2xf32>) -> tensor<?x6xf32>
  // CHECK: gnn.slice %{{.*}} {offset = 4 : i64} : tensor<?x6xf32> -> tensor<?x2xf32>
  %13 = gnn.slice %12 {offset = 4 : i64} : tensor<?x6xf32> -> tensor<?x2xf32>
  // CHECK: gnn.insert_columns %{{.*}} into %{{.*}} {offset = 2 : i64} : tensor<?x2xf32> into tensor<?x6xf32>
  %ins = gnn.insert_columns %13 into %12 {offset = 2 : i64} : tensor<?x2xf32> into tensor<?x6xf32>
  // CHECK: gnn.normalize %{{.*}} {dim = 1 : i64, eps = 1.000000e-05 : f64} : tensor<?x4xf32>
  %14 = gnn.normalize %x {dim = 1 : i64, eps = 1.0e-5 : f64} : tensor<?x4xf32>
  // CHECK: gnn.normalize_grad %{{.*}}, %{{.*}} {dim = 0 : i64, eps = 1.000000e-05 : f64} : tensor<?x4xf32>
  %15 = gnn.normalize_grad %x, %y {dim = 0 : i64, eps = 1.0e-5 : f64} : tensor<?x4xf32>
  return
}

// The row sets of gnn-restrict-rows and the ops that take them.
// CHECK-LABEL: func.func @rows
func.func @rows(%g: !gnn.graph<4x6>, %m: tensor<4xi1>, %x: tensor<4x3xf32>,
                %w: tensor<6xf32>, %f: tensor<4x8xf32, #gnn.csr<nnz = 5>>,
                %v: tensor<8x3xf32>, %k: !gnn.rng_key, %s: tensor<6x1xf32>) {
  // CHECK: %[[R:.*]] = gnn.receptive_rows %{{.*}}, %{{.*}} {hops = 2 : i64} : (!gnn.graph<4x6>, tensor<4xi1>) -> tensor<8xi32>
  %r = gnn.receptive_rows %g, %m {hops = 2 : i64} : (!gnn.graph<4x6>, tensor<4xi1>) -> tensor<8xi32>
  // The edges into R_0 and R_1, as row sets over the 6 edges, which an
  // element-wise op over an edge tensor takes as rows.
  // CHECK: %[[E:.*]] = gnn.receptive_edges %{{.*}}, %[[R]] {hops = 1 : i64} : (!gnn.graph<4x6>, tensor<8xi32>) -> tensor<10xi32>
  %e = gnn.receptive_edges %g, %r {hops = 1 : i64} : (!gnn.graph<4x6>, tensor<8xi32>) -> tensor<10xi32>
  // CHECK: gnn.dropout %{{.*}}, %{{.*}} rows %[[E]] : tensor<10xi32> {level = 1 : i64, mask_columns = array<i64: 4, 2>, p = 5.000000e-01 : f64, stream = 1 : i64} : tensor<6x1xf32>
  %a = gnn.dropout %s, %k rows %e : tensor<10xi32> {level = 1 : i64, mask_columns = array<i64: 4, 2>, p = 0.5 : f64, stream = 1 : i64} : tensor<6x1xf32>
  // CHECK: gnn.concat %{{.*}}, %{{.*}} rows %[[R]] : tensor<8xi32> {level = 1 : i64} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x6xf32>
  %c = gnn.concat %x, %x rows %r : tensor<8xi32> {level = 1 : i64} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x6xf32>
  // CHECK: gnn.spmm sum %{{.*}}, %{{.*}}, %{{.*}} rows %[[R]] {level = 1 : i64, skip = 0 : i64}
  %0 = gnn.spmm sum %g, %x, %w rows %r {level = 1 : i64, skip = 0 : i64} : (!gnn.graph<4x6>, tensor<4x3xf32>, tensor<6xf32>, tensor<8xi32>) -> tensor<4x3xf32>
  // CHECK: gnn.spmm mean %{{.*}}, %{{.*}} rows %[[R]] {level = 2 : i64}
  %1 = gnn.spmm mean %g, %x rows %r {level = 2 : i64} : (!gnn.graph<4x6>, tensor<4x3xf32>, tensor<8xi32>) -> tensor<4x3xf32>
  // CHECK: gnn.dropout %{{.*}}, %{{.*}} rows %[[R]] : tensor<8xi32> {level = 2 : i64, p = 5.000000e-01 : f64, stream = 0 : i64}
  %2 = gnn.dropout %f, %k rows %r : tensor<8xi32> {level = 2 : i64, p = 0.5 : f64, stream = 0 : i64} : tensor<4x8xf32, #gnn.csr<nnz = 5>>
  // CHECK: gnn.matmul %{{.*}}, %{{.*}} rows %[[R]] {level = 2 : i64}
  %3 = gnn.matmul %2, %v rows %r {level = 2 : i64} : (tensor<4x8xf32, #gnn.csr<nnz = 5>>, tensor<8x3xf32>, tensor<8xi32>) -> tensor<4x3xf32>
  // CHECK: gnn.matmul %{{.*}}, %{{.*}} rows %[[R]] {level = 1 : i64, transpose_a}
  %4 = gnn.matmul %2, %3 rows %r {level = 1 : i64, transpose_a} : (tensor<4x8xf32, #gnn.csr<nnz = 5>>, tensor<4x3xf32>, tensor<8xi32>) -> tensor<8x3xf32>
  return
}

// The row-wise ops with row sets: dense products, element-wise ops and
// sums over rows.
// CHECK-LABEL: func.func @dense_rows
func.func @dense_rows(%x: tensor<4x3xf32>, %y: tensor<4x3xf32>, %b: tensor<3xf32>,
                      %v: tensor<3x2xf32>, %k: !gnn.rng_key, %r: tensor<8xi32>) {
  // CHECK: gnn.matmul %{{.*}}, %{{.*}} rows %{{.*}} {level = 1 : i64} : (tensor<4x3xf32>, tensor<3x2xf32>, tensor<8xi32>) -> tensor<4x2xf32>
  %0 = gnn.matmul %x, %v rows %r {level = 1 : i64} : (tensor<4x3xf32>, tensor<3x2xf32>, tensor<8xi32>) -> tensor<4x2xf32>
  // CHECK: gnn.bias_add %{{.*}}, %{{.*}} rows %{{.*}} {level = 1 : i64} : (tensor<4x3xf32>, tensor<3xf32>, tensor<8xi32>) -> tensor<4x3xf32>
  %1 = gnn.bias_add %x, %b rows %r {level = 1 : i64} : (tensor<4x3xf32>, tensor<3xf32>, tensor<8xi32>) -> tensor<4x3xf32>
  // CHECK: %[[S:.*]] = gnn.slice %{{.*}} rows %{{.*}} : tensor<8xi32> {gnn.rest_unread, level = 2 : i64, offset = 1 : i64} : tensor<4x3xf32> -> tensor<4x2xf32>
  %s = gnn.slice %x rows %r : tensor<8xi32> {gnn.rest_unread, level = 2 : i64, offset = 1 : i64} : tensor<4x3xf32> -> tensor<4x2xf32>
  // CHECK: gnn.insert_columns %[[S]] into %{{.*}} rows %{{.*}} : tensor<8xi32> {level = 0 : i64, offset = 0 : i64} : tensor<4x2xf32> into tensor<4x3xf32>
  %i = gnn.insert_columns %s into %y rows %r : tensor<8xi32> {level = 0 : i64, offset = 0 : i64} : tensor<4x2xf32> into tensor<4x3xf32>
  // CHECK: gnn.row_mul %{{.*}}, %{{.*}} rows %{{.*}} {level = 0 : i64}
  %2 = gnn.row_mul %1, %b rows %r {level = 0 : i64} : (tensor<4x3xf32>, tensor<3xf32>, tensor<8xi32>) -> tensor<4x3xf32>
  // CHECK: gnn.activation relu %{{.*}} rows %{{.*}} : tensor<8xi32> {level = 1 : i64} : tensor<4x3xf32>
  %3 = gnn.activation relu %1 rows %r : tensor<8xi32> {level = 1 : i64} : tensor<4x3xf32>
  // CHECK: gnn.activation_grad relu %{{.*}}, %{{.*}} rows %{{.*}} : tensor<8xi32> {level = 1 : i64} : tensor<4x3xf32>
  %4 = gnn.activation_grad relu %1, %y rows %r : tensor<8xi32> {level = 1 : i64} : tensor<4x3xf32>
  // CHECK: gnn.add %{{.*}}, %{{.*}} rows %{{.*}} : tensor<8xi32> {level = 2 : i64} : tensor<4x3xf32>
  %5 = gnn.add %3, %4 rows %r : tensor<8xi32> {level = 2 : i64} : tensor<4x3xf32>
  // CHECK: gnn.sub %{{.*}}, %{{.*}} rows
  %6 = gnn.sub %5, %x rows %r : tensor<8xi32> {level = 2 : i64} : tensor<4x3xf32>
  // CHECK: gnn.mul %{{.*}}, %{{.*}} rows
  %7 = gnn.mul %6, %x rows %r : tensor<8xi32> {level = 2 : i64} : tensor<4x3xf32>
  // CHECK: gnn.scale %{{.*}} rows %{{.*}} : tensor<8xi32> {factor = 2.000000e+00 : f64, level = 2 : i64} : tensor<4x3xf32>
  %8 = gnn.scale %7 rows %r : tensor<8xi32> {factor = 2.0 : f64, level = 2 : i64} : tensor<4x3xf32>
  // CHECK: gnn.dropout %{{.*}}, %{{.*}} rows %{{.*}} : tensor<8xi32> {level = 1 : i64, p = 5.000000e-01 : f64, stream = 1 : i64} : tensor<4x3xf32>
  %9 = gnn.dropout %8, %k rows %r : tensor<8xi32> {level = 1 : i64, p = 0.5 : f64, stream = 1 : i64} : tensor<4x3xf32>
  // CHECK: gnn.reduce sum %{{.*}} rows %{{.*}} : tensor<8xi32> {dim = 0 : i64, level = 1 : i64} : tensor<4x3xf32> -> tensor<3xf32>
  %10 = gnn.reduce sum %9 rows %r : tensor<8xi32> {dim = 0 : i64, level = 1 : i64} : tensor<4x3xf32> -> tensor<3xf32>
  return
}

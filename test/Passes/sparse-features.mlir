// RUN: gnnc-opt -gnn-sparse-features -split-input-file %s | FileCheck %s
// RUN: gnnc-opt -gnn-sparse-features=max-density=0.3 -split-input-file %s | FileCheck %s --check-prefix=LOOSE
// RUN: gnnc-opt -gnn-sparse-features=max-density=0 -split-input-file %s | FileCheck %s --check-prefix=OFF

// 5 of 80 elements stored (6.25% <= 10%), used by a dropout whose result
// feeds the forward product and the weight gradient (transpose_a): the
// argument, the function type and the dropout become #gnn.csr; the products
// stay dense.
// CHECK-LABEL: func.func @step
// CHECK-SAME: %arg0: tensor<8x10xf32, #gnn.csr<nnz = 5>> {gnn.input = "features", gnn.nnz = 5 : i64}
// CHECK: gnn.dropout %arg0, %{{.*}} : tensor<8x10xf32, #gnn.csr<nnz = 5>>
// CHECK: gnn.matmul %{{.*}}, %arg1 : (tensor<8x10xf32, #gnn.csr<nnz = 5>>, tensor<10x4xf32>) -> tensor<8x4xf32>
// CHECK: gnn.matmul %{{.*}}, %arg2 {transpose_a} : (tensor<8x10xf32, #gnn.csr<nnz = 5>>, tensor<8x4xf32>) -> tensor<10x4xf32>
// OFF-LABEL: func.func @step
// OFF-NOT: #gnn.csr
func.func @step(%x: tensor<8x10xf32> {gnn.input = "features", gnn.nnz = 5 : i64},
                %w: tensor<10x4xf32>, %g: tensor<8x4xf32>, %s: i64)
    -> (tensor<8x4xf32>, tensor<10x4xf32>) {
  %k = gnn.rng_key %s, %s
  %d = gnn.dropout %x, %k {p = 5.000000e-01 : f64, stream = 0 : i64} : tensor<8x10xf32>
  %y = gnn.matmul %d, %w : (tensor<8x10xf32>, tensor<10x4xf32>) -> tensor<8x4xf32>
  %dw = gnn.matmul %d, %g {transpose_a} : (tensor<8x10xf32>, tensor<8x4xf32>) -> tensor<10x4xf32>
  return %y, %dw : tensor<8x4xf32>, tensor<10x4xf32>
}

// -----

// 20 of 80 (25%): above the default threshold, below 0.3.
// CHECK-LABEL: func.func @dense
// CHECK-NOT: #gnn.csr
// LOOSE-LABEL: func.func @dense
// LOOSE-SAME: tensor<8x10xf32, #gnn.csr<nnz = 20>>
func.func @dense(%x: tensor<8x10xf32> {gnn.input = "features", gnn.nnz = 20 : i64},
                 %w: tensor<10x4xf32>) -> tensor<8x4xf32> {
  %y = gnn.matmul %x, %w : (tensor<8x10xf32>, tensor<10x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// A use no back end takes as CSR (an activation: relu(0) is 0, but the
// result would have to be CSR too) keeps the whole function dense, even
// though the other use could take it.
// CHECK-LABEL: func.func @other_use
// CHECK-NOT: #gnn.csr
// CHECK: return
func.func @other_use(%x: tensor<8x10xf32> {gnn.input = "features", gnn.nnz = 5 : i64},
                     %w: tensor<10x4xf32>) -> (tensor<8x4xf32>, tensor<8x10xf32>) {
  %y = gnn.matmul %x, %w : (tensor<8x10xf32>, tensor<10x4xf32>) -> tensor<8x4xf32>
  %r = gnn.activation relu %x : tensor<8x10xf32>
  return %y, %r : tensor<8x4xf32>, tensor<8x10xf32>
}

// -----

// The right operand of a product, a returned dropout, and features whose
// stored count is unknown (no gnn.nnz) all stay dense.
// CHECK-LABEL: func.func @rhs
// CHECK-NOT: #gnn.csr
// CHECK-LABEL: func.func @returned
// CHECK-NOT: #gnn.csr
// CHECK-LABEL: func.func @unknown
// CHECK-NOT: #gnn.csr
// CHECK: return
func.func @rhs(%x: tensor<10x8xf32> {gnn.input = "features", gnn.nnz = 5 : i64},
               %a: tensor<4x10xf32>) -> tensor<4x8xf32> {
  %y = gnn.matmul %a, %x : (tensor<4x10xf32>, tensor<10x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
func.func @returned(%x: tensor<8x10xf32> {gnn.input = "features", gnn.nnz = 5 : i64},
                    %s: i64) -> tensor<8x10xf32> {
  %k = gnn.rng_key %s, %s
  %d = gnn.dropout %x, %k {p = 5.000000e-01 : f64, stream = 0 : i64} : tensor<8x10xf32>
  return %d : tensor<8x10xf32>
}
func.func @unknown(%x: tensor<8x10xf32> {gnn.input = "features"},
                   %w: tensor<10x4xf32>) -> tensor<8x4xf32> {
  %y = gnn.matmul %x, %w : (tensor<8x10xf32>, tensor<10x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

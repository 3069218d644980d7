// RUN: gnnc-opt -gnn-decompose="split-heads=always" -split-input-file %s | FileCheck %s
// RUN: gnnc-opt -gnn-decompose -split-input-file %s | FileCheck %s --check-prefix=AUTO
// RUN: gnnc-opt -gnn-decompose="split-heads=never" -split-input-file %s | FileCheck %s --check-prefix=NEVER
// RUN: not gnnc-opt -gnn-decompose="split-heads=sometimes" %s 2>&1 | FileCheck %s --check-prefix=BAD

// A gat_conv of two concatenated heads of width 3 with attention dropout,
// head by head: z and the scores are computed whole, as without the split,
// then every head's features are sliced first (z dies before the first
// attention), each head gets its column of the scores, its own edge add,
// leaky relu and soft-max, and its column of the whole [E, 2] dropout mask
// (mask_columns = [2, k]); the heads' aggregations are joined by concat.
// CHECK-LABEL: func.func @gat_split(
// CHECK-SAME: %[[G:.*]]: !gnn.graph<6x12>, %[[X:.*]]: tensor<6x4xf32>, %[[W:.*]]: tensor<4x6xf32>, %[[AS:.*]]: tensor<6xf32>, %[[AD:.*]]: tensor<6xf32>, %[[B:.*]]: tensor<6xf32>, %[[K:.*]]: !gnn.rng_key)
// CHECK-NEXT: %[[GS:.*]] = gnn.add_self_loops %[[G]] : <6x12> -> <6x18>
// CHECK-NEXT: %[[Z:.*]] = gnn.matmul %[[X]], %[[W]] : (tensor<6x4xf32>, tensor<4x6xf32>) -> tensor<6x6xf32>
// CHECK-NEXT: %[[M:.*]] = gnn.head_matrix spread {heads = 2 : i64, width = 3 : i64} : tensor<2x6xf32>
// CHECK-NEXT: %[[WS:.*]] = gnn.row_mul %[[M]], %[[AS]]
// CHECK-NEXT: %[[SS:.*]] = gnn.matmul %[[Z]], %[[WS]] {transpose_b} : (tensor<6x6xf32>, tensor<2x6xf32>) -> tensor<6x2xf32>
// CHECK-NEXT: %[[WD:.*]] = gnn.row_mul %[[M]], %[[AD]]
// CHECK-NEXT: %[[SD:.*]] = gnn.matmul %[[Z]], %[[WD]] {transpose_b} : (tensor<6x6xf32>, tensor<2x6xf32>) -> tensor<6x2xf32>
// CHECK-NEXT: %[[Z0:.*]] = gnn.slice %[[Z]] {offset = 0 : i64} : tensor<6x6xf32> -> tensor<6x3xf32>
// CHECK-NEXT: %[[Z1:.*]] = gnn.slice %[[Z]] {offset = 3 : i64} : tensor<6x6xf32> -> tensor<6x3xf32>
// CHECK-NEXT: %[[S0:.*]] = gnn.slice %[[SS]] {offset = 0 : i64} : tensor<6x2xf32> -> tensor<6x1xf32>
// CHECK-NEXT: %[[D0:.*]] = gnn.slice %[[SD]] {offset = 0 : i64} : tensor<6x2xf32> -> tensor<6x1xf32>
// CHECK-NEXT: %[[E0:.*]] = gnn.edge_add %[[GS]], %[[S0]], %[[D0]] : (!gnn.graph<6x18>, tensor<6x1xf32>, tensor<6x1xf32>) -> tensor<18x1xf32>
// CHECK-NEXT: %[[L0:.*]] = gnn.activation leaky_relu %[[E0]] {slope = 2.000000e-01 : f64} : tensor<18x1xf32>
// CHECK-NEXT: %[[A0:.*]] = gnn.edge_softmax %[[GS]], %[[L0]] : (!gnn.graph<6x18>, tensor<18x1xf32>) -> tensor<18x1xf32>
// CHECK-NEXT: %[[P0:.*]] = gnn.dropout %[[A0]], %[[K]] {mask_columns = array<i64: 2, 0>, p = 6.000000e-01 : f64, stream = 4 : i64} : tensor<18x1xf32>
// CHECK-NEXT: %[[Y0:.*]] = gnn.spmm sum %[[GS]], %[[Z0]], %[[P0]] : (!gnn.graph<6x18>, tensor<6x3xf32>, tensor<18x1xf32>) -> tensor<6x3xf32>
// CHECK-NEXT: %[[S1:.*]] = gnn.slice %[[SS]] {offset = 1 : i64}
// CHECK-NEXT: %[[D1:.*]] = gnn.slice %[[SD]] {offset = 1 : i64}
// CHECK-NEXT: %[[E1:.*]] = gnn.edge_add %[[GS]], %[[S1]], %[[D1]]
// CHECK-NEXT: %[[L1:.*]] = gnn.activation leaky_relu %[[E1]]
// CHECK-NEXT: %[[A1:.*]] = gnn.edge_softmax %[[GS]], %[[L1]]
// CHECK-NEXT: %[[P1:.*]] = gnn.dropout %[[A1]], %[[K]] {mask_columns = array<i64: 2, 1>, p = 6.000000e-01 : f64, stream = 4 : i64} : tensor<18x1xf32>
// CHECK-NEXT: %[[Y1:.*]] = gnn.spmm sum %[[GS]], %[[Z1]], %[[P1]] : (!gnn.graph<6x18>, tensor<6x3xf32>, tensor<18x1xf32>) -> tensor<6x3xf32>
// CHECK-NEXT: %[[Y:.*]] = gnn.concat %[[Y0]], %[[Y1]] : (tensor<6x3xf32>, tensor<6x3xf32>) -> tensor<6x6xf32>
// CHECK-NEXT: %[[YB:.*]] = gnn.bias_add %[[Y]], %[[B]]
// CHECK-NEXT: return %[[YB]]
// AUTO-LABEL: func.func @gat_split(
// AUTO-NOT: gnn.slice
// AUTO: gnn.spmm sum {{.*}} -> tensor<6x6xf32>
// NEVER-LABEL: func.func @gat_split(
// NEVER-NOT: gnn.slice
// BAD: error: gnn-decompose: split-heads = 'sometimes' is not one of auto, always, never
func.func @gat_split(%g: !gnn.graph<6x12>, %x: tensor<6x4xf32>, %w: tensor<4x6xf32>, %as: tensor<6xf32>, %ad: tensor<6xf32>, %b: tensor<6xf32>, %k: !gnn.rng_key) -> tensor<6x6xf32> {
  %y = gnn.gat_conv %g, %x, %w, %as, %ad bias %b key %k {heads = 2 : i64, attn_dropout = 0.6 : f64, stream = 4 : i64} : (!gnn.graph<6x12>, tensor<6x4xf32>, tensor<4x6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, !gnn.rng_key) -> tensor<6x6xf32>
  return %y : tensor<6x6xf32>
}

// -----

// auto splits by the function's budget: the aggregation needs the
// [18, 2] attention and two [6, 6] matrices at once, (36 + 72) * 4 = 432
// bytes. A budget of 431 bytes splits; 432 does not.
// CHECK-LABEL: func.func @below
// AUTO-LABEL: func.func @below
// AUTO: gnn.slice
// AUTO: gnn.concat
// NEVER-LABEL: func.func @below
// NEVER-NOT: gnn.slice
func.func @below(%g: !gnn.graph<6x12>, %x: tensor<6x4xf32>, %w: tensor<4x6xf32>, %as: tensor<6xf32>, %ad: tensor<6xf32>) -> tensor<6x6xf32> attributes {train.config = {memory = 431 : i64}} {
  %y = gnn.gat_conv %g, %x, %w, %as, %ad {heads = 2 : i64} : (!gnn.graph<6x12>, tensor<6x4xf32>, tensor<4x6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<6x6xf32>
  return %y : tensor<6x6xf32>
}
// AUTO-LABEL: func.func @at
// AUTO-NOT: gnn.slice
// AUTO: return
func.func @at(%g: !gnn.graph<6x12>, %x: tensor<6x4xf32>, %w: tensor<4x6xf32>, %as: tensor<6xf32>, %ad: tensor<6xf32>) -> tensor<6x6xf32> attributes {train.config = {memory = 432 : i64}} {
  %y = gnn.gat_conv %g, %x, %w, %as, %ad {heads = 2 : i64} : (!gnn.graph<6x12>, tensor<6x4xf32>, tensor<4x6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<6x6xf32>
  return %y : tensor<6x6xf32>
}
// AUTO-LABEL: func.func @averaged
// AUTO-NOT: gnn.slice
// AUTO: return
func.func @averaged(%g: !gnn.graph<6x12>, %x: tensor<6x4xf32>, %w: tensor<4x6xf32>, %as: tensor<6xf32>, %ad: tensor<6xf32>) -> tensor<6x3xf32> attributes {train.config = {memory = 1 : i64}} {
  %y = gnn.gat_conv %g, %x, %w, %as, %ad {heads = 2 : i64, concat = false} : (!gnn.graph<6x12>, tensor<6x4xf32>, tensor<4x6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<6x3xf32>
  return %y : tensor<6x3xf32>
}

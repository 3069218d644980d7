// RUN: gnnc-opt -gnn-split-aggregations -split-input-file %s | FileCheck %s
// RUN: gnnc-opt -gnn-split-aggregations=blocks=3 -split-input-file %s | FileCheck %s --check-prefix=THREE
// RUN: gnnc-opt -gnn-split-aggregations -gnn-assign-buffers -split-input-file %s | FileCheck %s --check-prefix=PLACED
// RUN: not gnnc-opt -gnn-split-aggregations=blocks=0 %s 2>&1 | FileCheck %s --check-prefix=BAD

// An aggregation whose input nothing else reads: eight blocks of two
// columns, each sliced from what the previous insert left, aggregated with
// the same graph, weights, row sets and attributes, and written back over
// the same columns.
// CHECK-LABEL: func.func @split
// CHECK: %[[S0:.*]] = gnn.slice %arg1 {offset = 0 : i64} : tensor<5x16xf32> -> tensor<5x2xf32>
// CHECK: %[[Y0:.*]] = gnn.spmm sum %arg0, %[[S0]], %arg2 rows %arg3 {gnn.rest_unread, level = 1 : i64} : ({{.*}}, tensor<5x2xf32>, tensor<9xf32>, {{.*}}) -> tensor<5x2xf32>
// CHECK: %[[X1:.*]] = gnn.insert_columns %[[Y0]] into %arg1 {offset = 0 : i64} : tensor<5x2xf32> into tensor<5x16xf32>
// CHECK: %[[S1:.*]] = gnn.slice %[[X1]] {offset = 2 : i64}
// CHECK: %[[Y1:.*]] = gnn.spmm sum %arg0, %[[S1]], %arg2 rows %arg3
// CHECK: %[[X2:.*]] = gnn.insert_columns %[[Y1]] into %[[X1]] {offset = 2 : i64}
// CHECK-COUNT-6: gnn.insert_columns
// CHECK-NOT: gnn.spmm
// CHECK: %[[R:.*]] = gnn.activation relu %{{.*}}
// THREE-LABEL: func.func @split
// THREE: gnn.slice %arg1 {offset = 0 : i64} : tensor<5x16xf32> -> tensor<5x6xf32>
// THREE: gnn.slice %{{.*}} {offset = 6 : i64} : tensor<5x16xf32> -> tensor<5x6xf32>
// THREE: gnn.slice %{{.*}} {offset = 12 : i64} : tensor<5x16xf32> -> tensor<5x4xf32>
// THREE-COUNT-1: gnn.insert_columns %{{.*}} {offset = 12 : i64}
// The input, the slice and the block's result at once: 320 + 2 * 64 bytes
// where the unsplit aggregation needed 640.
// PLACED-LABEL: func.func @split
// PLACED-SAME: gnn.arena_bytes = 448 : i64
func.func @split(%g: !gnn.graph<5x9>, %x: tensor<5x16xf32>, %w: tensor<9xf32>,
                 %sets: tensor<13xi32>) -> tensor<5x16xf32> {
  %y = gnn.spmm sum %g, %x, %w rows %sets {gnn.rest_unread, level = 1 : i64} : (!gnn.graph<5x9>, tensor<5x16xf32>, tensor<9xf32>, tensor<13xi32>) -> tensor<5x16xf32>
  %r = gnn.activation relu %y : tensor<5x16xf32>
  return %r : tensor<5x16xf32>
}

// -----

// Not split: an input read again later (the result could not take its
// place), weights per head (each block would need its own heads' weights),
// a single column.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: gnn.slice
// CHECK-NOT: gnn.insert_columns
// CHECK: return
func.func @kept(%g: !gnn.graph<5x9>, %x: tensor<5x16xf32>, %h: tensor<9x2xf32>,
                %v: tensor<5x1xf32>) -> (tensor<5x16xf32>, tensor<5x16xf32>, tensor<5x1xf32>) {
  %a = gnn.activation relu %x : tensor<5x16xf32>
  %y = gnn.spmm sum %g, %a : (!gnn.graph<5x9>, tensor<5x16xf32>) -> tensor<5x16xf32>
  %s = gnn.add %a, %y : tensor<5x16xf32>
  %b = gnn.activation relu %x : tensor<5x16xf32>
  %z = gnn.spmm sum %g, %b, %h : (!gnn.graph<5x9>, tensor<5x16xf32>, tensor<9x2xf32>) -> tensor<5x16xf32>
  %c = gnn.activation relu %v : tensor<5x1xf32>
  %u = gnn.spmm mean %g, %c : (!gnn.graph<5x9>, tensor<5x1xf32>) -> tensor<5x1xf32>
  return %s, %z, %u : tensor<5x16xf32>, tensor<5x16xf32>, tensor<5x1xf32>
}

// BAD: error: gnn-split-aggregations: blocks = 0 must be at least 1

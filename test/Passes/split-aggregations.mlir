// RUN: gnnc-opt -gnn-split-aggregations -split-input-file %s | FileCheck %s
// RUN: gnnc-opt -gnn-split-aggregations=blocks=3 -split-input-file %s | FileCheck %s --check-prefix=THREE
// RUN: gnnc-opt -gnn-split-aggregations -gnn-assign-buffers -split-input-file %s | FileCheck %s --check-prefix=PLACED
// RUN: gnnc-opt -gnn-split-aggregations=every-size=true -split-input-file %s | FileCheck %s --check-prefix=EVERY
// RUN: not gnnc-opt -gnn-split-aggregations=blocks=0 %s 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: gnnc-opt -gnn-split-aggregations=multiply-first=true -split-input-file %s | FileCheck %s --check-prefix=MULT

// An aggregation whose input nothing else reads: eight blocks of two
// columns, each sliced from what the previous insert left, aggregated with
// the same graph, weights, row sets and attributes, and written back over
// the same columns. Its rest is unread, so the inserts write the rows of
// its set only, and the last one says its rest is unread too; the input
// is an argument, so the slices copy every row.
// CHECK-LABEL: func.func @split
// CHECK: %[[S0:.*]] = gnn.slice %arg1 {offset = 0 : i64} : tensor<5x16xf32> -> tensor<5x2xf32>
// CHECK: %[[Y0:.*]] = gnn.spmm sum %arg0, %[[S0]], %arg2 rows %arg3 {gnn.rest_unread, level = 1 : i64} : ({{.*}}, tensor<5x2xf32>, tensor<9xf32>, {{.*}}) -> tensor<5x2xf32>
// CHECK: %[[X1:.*]] = gnn.insert_columns %[[Y0]] into %arg1 rows %arg3 : tensor<13xi32> {level = 1 : i64, offset = 0 : i64} : tensor<5x2xf32> into tensor<5x16xf32>
// CHECK: %[[S1:.*]] = gnn.slice %[[X1]] {offset = 2 : i64}
// CHECK: %[[Y1:.*]] = gnn.spmm sum %arg0, %[[S1]], %arg2 rows %arg3
// CHECK: %[[X2:.*]] = gnn.insert_columns %[[Y1]] into %[[X1]] rows %arg3 : tensor<13xi32> {level = 1 : i64, offset = 2 : i64}
// CHECK-COUNT-5: gnn.insert_columns {{.*}} {level = 1 : i64, offset
// CHECK: gnn.insert_columns {{.*}} rows %arg3 : tensor<13xi32> {gnn.rest_unread, level = 1 : i64, offset = 14 : i64}
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

// -----

// The rows the blocks read: past its skip an aggregation reads no source,
// so its slices copy the rows of R_skip only; without one, those of its
// input's restricted producer, when nothing reads that outside its set.
// Its rest read (no gnn.rest_unread), the inserts write every row.
// CHECK-LABEL: func.func @rows
// CHECK: %[[A:.*]] = gnn.scale %arg1 {factor = 1.500000e+00 : f64}
// CHECK: gnn.slice %[[A]] rows %arg3 : tensor<13xi32> {gnn.rest_unread, level = 0 : i64, offset = 0 : i64}
// CHECK: gnn.spmm sum {{.*}} {level = 1 : i64, skip = 0 : i64}
// CHECK: gnn.insert_columns {{.*}} {offset = 0 : i64}
// CHECK: %[[P:.*]] = gnn.scale %arg1 rows %arg3 : tensor<13xi32> {factor = 2.000000e+00 : f64, gnn.rest_unread, level = 2 : i64}
// CHECK: gnn.slice %[[P]] rows %arg3 : tensor<13xi32> {gnn.rest_unread, level = 2 : i64, offset = 0 : i64}
// CHECK: %[[Q:.*]] = gnn.scale %arg1 rows %arg3 : tensor<13xi32> {factor = 3.000000e+00 : f64, level = 2 : i64}
// CHECK: gnn.slice %[[Q]] {offset = 0 : i64}
func.func @rows(%g: !gnn.graph<5x9>, %x: tensor<5x16xf32>, %w: tensor<9xf32>,
                %sets: tensor<13xi32>) -> (tensor<5x16xf32>, tensor<5x16xf32>, tensor<5x16xf32>) {
  %a = gnn.scale %x {factor = 1.5 : f64} : tensor<5x16xf32>
  %y = gnn.spmm sum %g, %a, %w rows %sets {level = 1 : i64, skip = 0 : i64} : (!gnn.graph<5x9>, tensor<5x16xf32>, tensor<9xf32>, tensor<13xi32>) -> tensor<5x16xf32>
  %p = gnn.scale %x rows %sets : tensor<13xi32> {factor = 2.0 : f64, gnn.rest_unread, level = 2 : i64} : tensor<5x16xf32>
  %z = gnn.spmm sum %g, %p, %w rows %sets {gnn.rest_unread, level = 1 : i64} : (!gnn.graph<5x9>, tensor<5x16xf32>, tensor<9xf32>, tensor<13xi32>) -> tensor<5x16xf32>
  %q = gnn.scale %x rows %sets : tensor<13xi32> {factor = 3.0 : f64, level = 2 : i64} : tensor<5x16xf32>
  %u = gnn.spmm sum %g, %q, %w rows %sets {gnn.rest_unread, level = 1 : i64} : (!gnn.graph<5x9>, tensor<5x16xf32>, tensor<9xf32>, tensor<13xi32>) -> tensor<5x16xf32>
  return %y, %z, %u : tensor<5x16xf32>, tensor<5x16xf32>, tensor<5x16xf32>
}

// -----

// Sizes: a 2-column aggregation beside a 16-column one needs less whole
// (2 x 2 columns) than the large one split (16 + 2 x 2) and is left whole,
// unless every size is asked for.
// CHECK-LABEL: func.func @sizes
// CHECK-COUNT-8: gnn.insert_columns {{.*}} into tensor<5x16xf32>
// CHECK-NOT: gnn.insert_columns
// CHECK: gnn.spmm sum %arg0, %{{.*}} : (!gnn.graph<5x9>, tensor<5x2xf32>) -> tensor<5x2xf32>
// EVERY-LABEL: func.func @sizes
// EVERY-COUNT-8: gnn.insert_columns {{.*}} into tensor<5x16xf32>
// EVERY-COUNT-2: gnn.insert_columns {{.*}} into tensor<5x2xf32>
func.func @sizes(%g: !gnn.graph<5x9>, %x: tensor<5x16xf32>, %v: tensor<5x2xf32>) -> (tensor<5x16xf32>, tensor<5x2xf32>) {
  %y = gnn.spmm sum %g, %x : (!gnn.graph<5x9>, tensor<5x16xf32>) -> tensor<5x16xf32>
  %z = gnn.spmm sum %g, %v : (!gnn.graph<5x9>, tensor<5x2xf32>) -> tensor<5x2xf32>
  return %y, %z : tensor<5x16xf32>, tensor<5x2xf32>
}

// BAD: error: gnn-split-aggregations: blocks = 0 must be at least 1

// -----

// multiply-first: (A x) W with W widening 8 -> 16 becomes A (x W), whose
// aggregation is then split (its input, x W, nothing else reads): split it
// needs 16 * (1 + 2 / 8) = 20 columns, where the whole (A x) W needed
// 8 + 16. Kept: a maximum (it does not commute with W), a widening 2 -> 16
// (A x and its product, 18 columns, need less than the split 20), an
// aggregation read twice, and one with a weight per head (each weighs its
// own columns). Without the option nothing is reordered.
// MULT-LABEL: func.func @multiply_first
// MULT-SAME: (%[[G:.*]]: !gnn.graph<5x9>, %[[X:.*]]: tensor<5x8xf32>, %[[W:.*]]: tensor<9xf32>, %[[P:.*]]: tensor<8x16xf32>,
// MULT: %[[Z:.*]] = gnn.matmul %[[X]], %[[P]] : (tensor<5x8xf32>, tensor<8x16xf32>) -> tensor<5x16xf32>
// MULT: %[[S:.*]] = gnn.slice %[[Z]] {offset = 0 : i64} : tensor<5x16xf32> -> tensor<5x2xf32>
// MULT: gnn.spmm sum %[[G]], %[[S]], %[[W]] : ({{.*}}, tensor<5x2xf32>, tensor<9xf32>) -> tensor<5x2xf32>
// MULT: gnn.spmm max %[[G]], %[[X]]
// MULT-NEXT: gnn.matmul
// MULT: gnn.spmm sum %[[G]], %arg4
// MULT-NEXT: gnn.matmul
// MULT: gnn.spmm mean %[[G]], %[[X]]
// MULT-NEXT: gnn.matmul
// MULT-NEXT: gnn.matmul
// MULT-NEXT: gnn.add
// MULT: gnn.spmm sum %[[G]], %[[X]], %arg6
// MULT-NEXT: gnn.matmul
// MULT: return
// CHECK-LABEL: func.func @multiply_first
// CHECK: %[[A:.*]] = gnn.spmm sum %arg0, %arg1, %arg2 : ({{.*}}) -> tensor<5x8xf32>
// CHECK-NEXT: gnn.matmul %[[A]], %arg3
func.func @multiply_first(%g: !gnn.graph<5x9>, %x: tensor<5x8xf32>, %w: tensor<9xf32>,
                          %p: tensor<8x16xf32>, %v: tensor<5x2xf32>, %q: tensor<2x16xf32>,
                          %hw: tensor<9x2xf32>)
    -> (tensor<5x16xf32>, tensor<5x16xf32>, tensor<5x16xf32>, tensor<5x16xf32>, tensor<5x16xf32>) {
  %a = gnn.spmm sum %g, %x, %w : (!gnn.graph<5x9>, tensor<5x8xf32>, tensor<9xf32>) -> tensor<5x8xf32>
  %y = gnn.matmul %a, %p : (tensor<5x8xf32>, tensor<8x16xf32>) -> tensor<5x16xf32>
  %m = gnn.spmm max %g, %x : (!gnn.graph<5x9>, tensor<5x8xf32>) -> tensor<5x8xf32>
  %ym = gnn.matmul %m, %p : (tensor<5x8xf32>, tensor<8x16xf32>) -> tensor<5x16xf32>
  %b = gnn.spmm sum %g, %v : (!gnn.graph<5x9>, tensor<5x2xf32>) -> tensor<5x2xf32>
  %yb = gnn.matmul %b, %q : (tensor<5x2xf32>, tensor<2x16xf32>) -> tensor<5x16xf32>
  %c = gnn.spmm mean %g, %x : (!gnn.graph<5x9>, tensor<5x8xf32>) -> tensor<5x8xf32>
  %yc = gnn.matmul %c, %p : (tensor<5x8xf32>, tensor<8x16xf32>) -> tensor<5x16xf32>
  %cc = gnn.matmul %c, %p : (tensor<5x8xf32>, tensor<8x16xf32>) -> tensor<5x16xf32>
  %sc = gnn.add %yc, %cc : tensor<5x16xf32>
  %h = gnn.spmm sum %g, %x, %hw : (!gnn.graph<5x9>, tensor<5x8xf32>, tensor<9x2xf32>) -> tensor<5x8xf32>
  %yh = gnn.matmul %h, %p : (tensor<5x8xf32>, tensor<8x16xf32>) -> tensor<5x16xf32>
  return %y, %ym, %yb, %sc, %yh : tensor<5x16xf32>, tensor<5x16xf32>, tensor<5x16xf32>, tensor<5x16xf32>, tensor<5x16xf32>
}

// -----

// A narrowing product of an aggregation (a SAGE layer's mean, 8 -> 2) is
// multiplied first as well: A (x W), split or not, needs less than
// (A x) W, and its aggregation is narrower. Split, its two columns run as
// two blocks.
// MULT-LABEL: func.func @multiply_first_narrowing
// MULT: %[[Z:.*]] = gnn.matmul %arg1, %arg2 : (tensor<5x8xf32>, tensor<8x2xf32>) -> tensor<5x2xf32>
// MULT: gnn.slice %[[Z]] {offset = 0 : i64} : tensor<5x2xf32> -> tensor<5x1xf32>
// MULT: gnn.spmm mean %arg0, %{{.*}} : (!gnn.graph<5x9>, tensor<5x1xf32>) -> tensor<5x1xf32>
// Without the option the aggregation of x is split as it is.
// CHECK-LABEL: func.func @multiply_first_narrowing
// CHECK: gnn.slice %arg1 {offset = 0 : i64} : tensor<5x8xf32> -> tensor<5x1xf32>
// CHECK: gnn.matmul %{{.*}}, %arg2 : (tensor<5x8xf32>, tensor<8x2xf32>) -> tensor<5x2xf32>
func.func @multiply_first_narrowing(%g: !gnn.graph<5x9>, %x: tensor<5x8xf32>, %p: tensor<8x2xf32>) -> tensor<5x2xf32> {
  %a = gnn.spmm mean %g, %x : (!gnn.graph<5x9>, tensor<5x8xf32>) -> tensor<5x8xf32>
  %y = gnn.matmul %a, %p : (tensor<5x8xf32>, tensor<8x2xf32>) -> tensor<5x2xf32>
  return %y : tensor<5x2xf32>
}

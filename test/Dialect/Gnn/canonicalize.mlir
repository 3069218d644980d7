// Folders and canonicalization patterns of the gnn dialect.
// RUN: gnnc-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @transpose_twice
// CHECK-SAME: (%[[G:.*]]: !gnn.graph<4x6>)
// CHECK-NEXT: return %[[G]]
func.func @transpose_twice(%g: !gnn.graph<4x6>) -> !gnn.graph<4x6> {
  %0 = gnn.transpose %g : !gnn.graph<4x6>
  %1 = gnn.transpose %0 : !gnn.graph<4x6>
  return %1 : !gnn.graph<4x6>
}

// -----

// CHECK-LABEL: func.func @scale_by_one
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @scale_by_one(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = gnn.scale %x {factor = 1.0 : f64} : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @scales_compose
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
// CHECK-NEXT: %[[S:.*]] = gnn.scale %[[X]] {factor = 1.500000e+00 : f64}
// CHECK-NEXT: return %[[S]]
func.func @scales_compose(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = gnn.scale %x {factor = 3.0 : f64} : tensor<?x4xf32>
  %1 = gnn.scale %0 {factor = 0.5 : f64} : tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// -----

// Scaling by the product of reciprocals that round-trips to 1 disappears.
// CHECK-LABEL: func.func @scales_cancel
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @scales_cancel(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = gnn.scale %x {factor = 4.0 : f64} : tensor<?x4xf32>
  %1 = gnn.scale %0 {factor = 0.25 : f64} : tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @dropout_zero
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>, %{{.*}}: !gnn.rng_key)
// CHECK-NEXT: return %[[X]]
func.func @dropout_zero(%x: tensor<?x4xf32>, %k: !gnn.rng_key) -> tensor<?x4xf32> {
  %0 = gnn.dropout %x, %k {p = 0.0 : f64, stream = 0 : i64} : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// A real dropout stays.
// CHECK-LABEL: func.func @dropout_kept
// CHECK: gnn.dropout
func.func @dropout_kept(%x: tensor<?x4xf32>, %k: !gnn.rng_key) -> tensor<?x4xf32> {
  %0 = gnn.dropout %x, %k {p = 0.5 : f64, stream = 0 : i64} : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @concat_one
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @concat_one(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = gnn.concat %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @slice_whole
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @slice_whole(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = gnn.slice %x {offset = 0 : i64} : tensor<?x4xf32> -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @slice_part
// CHECK: gnn.slice
func.func @slice_part(%x: tensor<?x4xf32>) -> tensor<?x2xf32> {
  %0 = gnn.slice %x {offset = 2 : i64} : tensor<?x4xf32> -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

// Cotangent sums start from zeros; adding zeros is the identity.
// CHECK-LABEL: func.func @add_zeros
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf32>, %[[Y:.*]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[S:.*]] = gnn.add %[[X]], %[[Y]]
// CHECK-NEXT: return %[[S]]
func.func @add_zeros(%x: tensor<3x4xf32>, %y: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %z = gnn.zeros : tensor<3x4xf32>
  %0 = gnn.add %z, %x : tensor<3x4xf32>
  %1 = gnn.add %0, %z : tensor<3x4xf32>
  %2 = gnn.add %1, %y : tensor<3x4xf32>
  return %2 : tensor<3x4xf32>
}

// -----

// Ops are pure: unused results vanish, graph ops included.
// CHECK-LABEL: func.func @dead_code
// CHECK-NEXT: return
func.func @dead_code(%g: !gnn.graph<4x6>, %x: tensor<4x3xf32>) {
  %0 = gnn.add_self_loops %g : !gnn.graph<4x6> -> !gnn.graph<4x10>
  %1 = gnn.edge_norm symmetric %0 : !gnn.graph<4x10> -> tensor<10xf32>
  %2 = gnn.spmm sum %0, %x, %1 : (!gnn.graph<4x10>, tensor<4x3xf32>, tensor<10xf32>) -> tensor<4x3xf32>
  return
}

// -----

// The cotangents of column slices (a GAT layer split by heads), each framed
// by zeros as wide as the whole, are joined instead of summed: the frames
// of %a (columns 0-1), %b (3-4) and %c (5) leave column 2 zero.
// CHECK-LABEL: func.func @add_zero_framed_blocks
// CHECK-SAME: (%[[A:.*]]: tensor<3x2xf32>, %[[B:.*]]: tensor<3x2xf32>, %[[C:.*]]: tensor<3x1xf32>)
// CHECK-NEXT: %[[Z:.*]] = gnn.zeros : tensor<3x1xf32>
// CHECK-NEXT: %[[Y:.*]] = gnn.concat %[[A]], %[[Z]], %[[B]], %[[C]] : (tensor<3x2xf32>, tensor<3x1xf32>, tensor<3x2xf32>, tensor<3x1xf32>) -> tensor<3x6xf32>
// CHECK-NEXT: return %[[Y]]
func.func @add_zero_framed_blocks(%a: tensor<3x2xf32>, %b: tensor<3x2xf32>, %c: tensor<3x1xf32>) -> tensor<3x6xf32> {
  %z4 = gnn.zeros : tensor<3x4xf32>
  %z3 = gnn.zeros : tensor<3x3xf32>
  %z5 = gnn.zeros : tensor<3x5xf32>
  %pa = gnn.concat %a, %z4 : (tensor<3x2xf32>, tensor<3x4xf32>) -> tensor<3x6xf32>
  %pb = gnn.concat %z3, %b, %c : (tensor<3x3xf32>, tensor<3x2xf32>, tensor<3x1xf32>) -> tensor<3x6xf32>
  %y = gnn.add %pa, %pb : tensor<3x6xf32>
  return %y : tensor<3x6xf32>
}

// -----

// Where both frames hold values in a column, the sum stays a sum.
// CHECK-LABEL: func.func @add_overlapping_blocks
// CHECK: gnn.add
func.func @add_overlapping_blocks(%a: tensor<3x2xf32>, %b: tensor<3x2xf32>) -> tensor<3x4xf32> {
  %z1 = gnn.zeros : tensor<3x1xf32>
  %z2 = gnn.zeros : tensor<3x2xf32>
  %pa = gnn.concat %a, %z2 : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x4xf32>
  %pb = gnn.concat %z1, %b, %z1 : (tensor<3x1xf32>, tensor<3x2xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  %y = gnn.add %pa, %pb : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

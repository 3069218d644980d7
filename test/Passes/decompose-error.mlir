// RUN: gnnc-opt -gnn-decompose -split-input-file -verify-diagnostics %s

// gat_conv builds its head matrices from heads * out, so that width must be
// static (MLIRGen always makes it so); a dynamic one is an error at the
// layer and the pass fails rather than leave a layer behind.
func.func @gat_dynamic_width(%g: !gnn.graph<6x12>, %x: tensor<6x4xf32>, %w: tensor<4x?xf32>, %a: tensor<?xf32>) -> tensor<6x?xf32> {
  // expected-error@+1 {{'gnn.gat_conv' op cannot be decomposed: its weight needs a static number of columns (heads * out) to build the head matrices}}
  %y = gnn.gat_conv %g, %x, %w, %a, %a {heads = 2 : i64} : (!gnn.graph<6x12>, tensor<6x4xf32>, tensor<4x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<6x?xf32>
  return %y : tensor<6x?xf32>
}

// -----

// Only the layer that cannot be rewritten is reported, and only once.
func.func @one_bad_of_two(%g: !gnn.graph<6x12>, %x: tensor<6x4xf32>, %w: tensor<4x?xf32>, %a: tensor<?xf32>, %wl: tensor<4x2xf32>) -> (tensor<6x?xf32>, tensor<6x2xf32>) {
  %l = gnn.linear %x, %wl : (tensor<6x4xf32>, tensor<4x2xf32>) -> tensor<6x2xf32>
  // expected-error@+1 {{cannot be decomposed}}
  %y = gnn.gat_conv %g, %x, %w, %a, %a {heads = 1 : i64, concat = false} : (!gnn.graph<6x12>, tensor<6x4xf32>, tensor<4x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<6x?xf32>
  return %y, %l : tensor<6x?xf32>, tensor<6x2xf32>
}

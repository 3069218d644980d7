// RUN: gnnc-opt -mem-expand-recompute %s | FileCheck %s

// The region's ops are cloned where the recompute stands, reading its
// inputs; its results become the yielded values. The original matmul stays:
// the clone is a second computation, not a reuse.
// CHECK-LABEL: func.func @step
func.func @step(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>, %dy: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // CHECK: %[[H:.*]] = gnn.matmul %arg0, %arg1
  %h = gnn.matmul %x, %w : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  // CHECK-NEXT: %[[Y:.*]] = gnn.activation relu %[[H]]
  %y = gnn.activation relu %h : tensor<8x4xf32>
  // CHECK-NEXT: %[[H2:.*]] = gnn.matmul %arg0, %arg1
  // CHECK-NEXT: %[[A2:.*]] = gnn.activation relu %[[H2]]
  // CHECK-NOT: mem.
  %r:2 = mem.recompute (%x, %w) : (tensor<8x4xf32>, tensor<4x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  ^bb0(%x0: tensor<8x4xf32>, %w0: tensor<4x4xf32>):
    %m = gnn.matmul %x0, %w0 : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
    %s = gnn.activation relu %m : tensor<8x4xf32>
    mem.yield %m, %s : tensor<8x4xf32>, tensor<8x4xf32>
  }
  // CHECK-NEXT: %[[G:.*]] = gnn.activation_grad relu %[[H2]], %arg2
  %g = gnn.activation_grad relu %r#0, %dy : tensor<8x4xf32>
  // CHECK-NEXT: %[[S:.*]] = gnn.add %[[G]], %[[A2]]
  %s = gnn.add %g, %r#1 : tensor<8x4xf32>
  // CHECK-NEXT: %[[T:.*]] = gnn.add %[[S]], %[[Y]]
  %t = gnn.add %s, %y : tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}

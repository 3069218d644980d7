// mem ops are the planner's decisions: canonicalize and CSE must neither
// erase an unused one, merge two identical ones nor reorder them, or the
// predicted peak no longer describes the program. (Pure ops inside a
// recompute region may still be simplified.)
// RUN: gnnc-opt %s -canonicalize -cse | FileCheck %s

// CHECK-LABEL: func.func @identical_recomputes_stay
// CHECK: %[[R1:.*]] = mem.recompute
// CHECK: gnn.matmul
// CHECK: mem.yield
// CHECK: %[[R2:.*]] = mem.recompute
// CHECK: gnn.matmul
// CHECK: mem.yield
// CHECK: return %[[R1]], %[[R2]]
func.func @identical_recomputes_stay(%a: tensor<8x4xf32>, %w: tensor<4x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %r1 = mem.recompute (%a, %w) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%a0: tensor<8x4xf32>, %w0: tensor<4x4xf32>):
    %m = gnn.matmul %a0, %w0 : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
    mem.yield %m : tensor<8x4xf32>
  }
  %r2 = mem.recompute (%a, %w) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%a0: tensor<8x4xf32>, %w0: tensor<4x4xf32>):
    %m = gnn.matmul %a0, %w0 : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
    mem.yield %m : tensor<8x4xf32>
  }
  return %r1, %r2 : tensor<8x4xf32>, tensor<8x4xf32>
}

// An unused recompute (unused inputs in its block too) stays as written.
// CHECK-LABEL: func.func @unused_recompute_stays
// CHECK: mem.recompute(%{{.*}}, %{{.*}}) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32> {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<8x4xf32>, %{{.*}}: tensor<4x4xf32>):
// CHECK: return
func.func @unused_recompute_stays(%a: tensor<8x4xf32>, %w: tensor<4x4xf32>) {
  %r = mem.recompute (%a, %w) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%a0: tensor<8x4xf32>, %w0: tensor<4x4xf32>):
    mem.yield %a0 : tensor<8x4xf32>
  }
  return
}

// Unused results, in the order written.
// CHECK-LABEL: func.func @unused_results_stay
// CHECK: %[[H:.*]] = mem.offload %{{.*}} to host
// CHECK-NEXT: mem.prefetch %[[H]]
// CHECK-NEXT: mem.prefetch %[[H]]
// CHECK-NEXT: %[[S:.*]] = mem.store_as
// CHECK-NEXT: mem.load_as %[[S]]
// CHECK-NEXT: mem.free %[[H]]
// CHECK-NEXT: return
func.func @unused_results_stay(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  %h = mem.offload %x to host : tensor<4xf32> -> !mem.offloaded<host, tensor<4xf32>>
  %p1 = mem.prefetch %h : !mem.offloaded<host, tensor<4xf32>> -> tensor<4xf32>
  %p2 = mem.prefetch %h : !mem.offloaded<host, tensor<4xf32>> -> tensor<4xf32>
  %s = mem.store_as %y : tensor<4xf32> -> tensor<4xbf16>
  %l = mem.load_as %s : tensor<4xbf16> -> tensor<4xf32>
  mem.free %h : !mem.offloaded<host, tensor<4xf32>>
  return
}

// Pure work inside a recompute region is still simplified; the recompute
// itself is not.
// CHECK-LABEL: func.func @region_body_cse
// CHECK: mem.recompute
// CHECK: gnn.matmul
// CHECK-NOT: gnn.matmul
// CHECK: mem.yield
func.func @region_body_cse(%a: tensor<8x4xf32>, %w: tensor<4x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %r:2 = mem.recompute (%a, %w) : (tensor<8x4xf32>, tensor<4x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  ^bb0(%a0: tensor<8x4xf32>, %w0: tensor<4x4xf32>):
    %m1 = gnn.matmul %a0, %w0 : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
    %m2 = gnn.matmul %a0, %w0 : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
    mem.yield %m1, %m2 : tensor<8x4xf32>, tensor<8x4xf32>
  }
  return %r#0, %r#1 : tensor<8x4xf32>, tensor<8x4xf32>
}

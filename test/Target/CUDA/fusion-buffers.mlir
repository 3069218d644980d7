// RUN: gnnc-opt -test-emit-cuda -split-input-file %s | FileCheck %s

// The offsets are written by hand here (no gnn-assign-buffers), as that
// pass may place them: %2 lies at 32 over %0 at [0, 64), dead once the
// scale has read it. One kernel over scale and relu would read %0 at i
// while other threads store %2 at i, that is over %0 at i + 8, so the run
// is split there: two kernels, %1 stored between them.
// CHECK: // scale
// CHECK-NEXT: extern "C" __global__ void gnnc_k0(
// CHECK: // relu
// CHECK-NOT: // scale, relu
// CHECK-LABEL: // @shifted
// CHECK: "gnnc_k0"
// CHECK: "gnnc_k1"
func.func @shifted(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> attributes {gnn.arena_bytes = 192 : i64} {
  %0 = gnn.matmul %x, %w {gnn.offsets = array<i64: 0>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = gnn.scale %0 {factor = 2.0 : f64, gnn.offsets = array<i64: 128>} : tensor<4x4xf32>
  %2 = gnn.activation relu %1 {gnn.offsets = array<i64: 32>} : tensor<4x4xf32>
  %3 = gnn.matmul %2, %w {gnn.offsets = array<i64: -2>, gnn.result_slots = array<i64: 0>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %3 : tensor<4x4xf32>
}

// -----

// The same run with %2 exactly over %0 (what gnn-assign-buffers chose for
// it): each thread loads %0 at i before it stores %2 at i, so it stays one
// kernel.
// CHECK: // scale, relu
// CHECK-NEXT: extern "C" __global__ void gnnc_k0(
// CHECK-LABEL: // @same_bytes
// CHECK: "gnnc_k0"
// CHECK-NOT: "gnnc_k1"
func.func @same_bytes(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> attributes {gnn.arena_bytes = 192 : i64} {
  %0 = gnn.matmul %x, %w {gnn.offsets = array<i64: 0>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = gnn.scale %0 {factor = 2.0 : f64, gnn.offsets = array<i64: 128>} : tensor<4x4xf32>
  %2 = gnn.activation relu %1 {gnn.offsets = array<i64: 0>} : tensor<4x4xf32>
  %3 = gnn.matmul %2, %w {gnn.offsets = array<i64: -2>, gnn.result_slots = array<i64: 0>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %3 : tensor<4x4xf32>
}

// -----

// The same rule for a run fused into a generated op kernel: the edge
// softmax %2 would be stored at 16, over the leaky_relu's input %0 at
// [0, 48), while other threads still compute the leaky_relu from %0, so
// the leaky_relu stays a kernel of its own and %1 is stored.
// CHECK: // leaky_relu
// CHECK-NEXT: extern "C" __global__ void gnnc_k0(
// CHECK: // edge softmax, 2 heads over 4 nodes
// CHECK-NOT: after 1 fused
// CHECK-LABEL: // @shifted_softmax
// CHECK: "gnnc_k0"
// CHECK: "gnnc_k1"
func.func @shifted_softmax(%g: !gnn.graph<4x6>, %x: tensor<6x2xf32>, %w: tensor<2x2xf32>) -> tensor<6x2xf32> attributes {gnn.arena_bytes = 192 : i64} {
  %0 = gnn.matmul %x, %w {gnn.offsets = array<i64: 0>} : (tensor<6x2xf32>, tensor<2x2xf32>) -> tensor<6x2xf32>
  %1 = gnn.activation leaky_relu %0 {slope = 2.000000e-01 : f64, gnn.offsets = array<i64: 64>} : tensor<6x2xf32>
  %2 = gnn.edge_softmax %g, %1 {gnn.offsets = array<i64: 16>} : (!gnn.graph<4x6>, tensor<6x2xf32>) -> tensor<6x2xf32>
  %3 = gnn.matmul %2, %w {gnn.offsets = array<i64: -2>, gnn.result_slots = array<i64: 0>} : (tensor<6x2xf32>, tensor<2x2xf32>) -> tensor<6x2xf32>
  return %3 : tensor<6x2xf32>
}

// -----

// With %2 exactly over %0, each thread computes the leaky_relu of an
// element from %0 before it stores %2 there: one kernel.
// CHECK: // leaky_relu
// CHECK-NEXT: __device__ __forceinline__ float gnnc_f0(
// CHECK: // edge softmax, 2 heads over 4 nodes (after 1 fused element-wise op)
// CHECK-NEXT: extern "C" __global__ void gnnc_k0(
// CHECK-LABEL: // @same_bytes_softmax
// CHECK: "gnnc_k0"
// CHECK-NOT: "gnnc_k1"
func.func @same_bytes_softmax(%g: !gnn.graph<4x6>, %x: tensor<6x2xf32>, %w: tensor<2x2xf32>) -> tensor<6x2xf32> attributes {gnn.arena_bytes = 192 : i64} {
  %0 = gnn.matmul %x, %w {gnn.offsets = array<i64: 0>} : (tensor<6x2xf32>, tensor<2x2xf32>) -> tensor<6x2xf32>
  %1 = gnn.activation leaky_relu %0 {slope = 2.000000e-01 : f64, gnn.offsets = array<i64: 64>} : tensor<6x2xf32>
  %2 = gnn.edge_softmax %g, %1 {gnn.offsets = array<i64: 0>} : (!gnn.graph<4x6>, tensor<6x2xf32>) -> tensor<6x2xf32>
  %3 = gnn.matmul %2, %w {gnn.offsets = array<i64: -2>, gnn.result_slots = array<i64: 0>} : (tensor<6x2xf32>, tensor<2x2xf32>) -> tensor<6x2xf32>
  return %3 : tensor<6x2xf32>
}

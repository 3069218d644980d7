// RUN: gnnc-opt -test-emit-cpp -split-input-file %s | FileCheck %s

// The CPU target computes a run of two or more adjacent element-wise ops
// (dropout of a plain tensor included) with one gnnrt_cpu_fused call. The
// offsets are written by hand here, as gnn-assign-buffers may place them.

// A GCN layer's epilogue: bias_add, relu, dropout. The inputs are numbered
// first (%0 = 0, %b = 1), then the results (2, 3, 4); only the values read
// after the run are stored: %1 (read by the subtraction) and %3. The
// subtraction after the matmul starts a run of its own, of one op: a plain
// call.
// CHECK-LABEL: // @epilogue
// CHECK: float *v1 = (float *)(arena + 64);
// CHECK-NEXT: float *v2 = (float *)(arena + 128);
// CHECK-NEXT: {{^ *[{]$}}
// CHECK-NEXT: const gnnrt_fused_op gnnc_ops[] = {{[{]$}}
// CHECK-NEXT: {GNNRT_FUSED_BIAS_ADD, 0, 0, 1, 0, 0, 0, 0}, // bias_add
// CHECK-NEXT: {GNNRT_FUSED_ACTIVATION, 0, 2, -1, 0.01, 0, 0, 0}, // activation
// CHECK-NEXT: {GNNRT_FUSED_DROPOUT, 0, 3, -1, 0.5, (uint64_t)a3, (uint64_t)a3, UINT64_C(1)}, // dropout
// CHECK-NEXT: };
// CHECK-NEXT: const float *const gnnc_in[] = {v0, a2};
// CHECK-NEXT: float *const gnnc_out[] = {v1, v2};
// CHECK-NEXT: const int32_t gnnc_out_values[] = {2, 4};
// CHECK-NEXT: GNNC_CALL(gnnrt_cpu_fused(gnnc_ops, 3, 16, 4, gnnc_in, 2, gnnc_out, gnnc_out_values, 2));
// CHECK-NEXT: }
// CHECK: GNNC_CALL(gnnrt_cpu_matmul(
// CHECK: GNNC_CALL(gnnrt_cpu_sub(
// CHECK-NOT: gnnrt_cpu_fused
func.func @epilogue(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>, %s: i64) -> tensor<4x4xf32> attributes {gnn.arena_bytes = 320 : i64} {
  %k = gnn.rng_key %s, %s
  %0 = gnn.matmul %x, %w {gnn.offsets = array<i64: 0>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = gnn.bias_add %0, %b {gnn.offsets = array<i64: 64>} : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  %2 = gnn.activation relu %1 {gnn.offsets = array<i64: 192>} : tensor<4x4xf32>
  %3 = gnn.dropout %2, %k {p = 0.5 : f64, stream = 1 : i64, gnn.offsets = array<i64: 128>} : tensor<4x4xf32>
  %4 = gnn.matmul %3, %w {gnn.offsets = array<i64: 0>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %5 = gnn.sub %4, %1 {gnn.offsets = array<i64: -2>, gnn.result_slots = array<i64: 0>} : tensor<4x4xf32>
  return %5 : tensor<4x4xf32>
}

// -----

// %2 lies at 32 over %0 at [0, 64), dead once the scale has read it: a
// tile's store of %2 would land on elements of %0 that the next tile has
// yet to read. The run is cut there, into two runs of one op: plain calls.
// CHECK-LABEL: // @shifted
// CHECK-NOT: gnnrt_cpu_fused
// CHECK: GNNC_CALL(gnnrt_cpu_scale(
// CHECK-NEXT: float *v2 = (float *)(arena + 32);
// CHECK-NEXT: GNNC_CALL(gnnrt_cpu_activation(
// CHECK-NOT: gnnrt_cpu_fused
func.func @shifted(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> attributes {gnn.arena_bytes = 192 : i64} {
  %0 = gnn.matmul %x, %w {gnn.offsets = array<i64: 0>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = gnn.scale %0 {factor = 2.0 : f64, gnn.offsets = array<i64: 128>} : tensor<4x4xf32>
  %2 = gnn.activation relu %1 {gnn.offsets = array<i64: 32>} : tensor<4x4xf32>
  %3 = gnn.matmul %2, %w {gnn.offsets = array<i64: -2>, gnn.result_slots = array<i64: 0>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %3 : tensor<4x4xf32>
}

// -----

// The same run with %2 exactly over %0 (what gnn-assign-buffers chose for
// it): every tile reads its elements of %0 before it stores them, so it
// stays one call, its output its input's buffer.
// CHECK-LABEL: // @same_bytes
// CHECK: float *v0 = (float *)(arena + 0);
// CHECK: float *v1 = (float *)(arena + 0);
// CHECK: const float *const gnnc_in[] = {v0};
// CHECK-NEXT: float *const gnnc_out[] = {v1};
// CHECK-NEXT: const int32_t gnnc_out_values[] = {2};
// CHECK-NEXT: GNNC_CALL(gnnrt_cpu_fused(gnnc_ops, 2, 16, 4, gnnc_in, 1, gnnc_out, gnnc_out_values, 1));
func.func @same_bytes(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> attributes {gnn.arena_bytes = 192 : i64} {
  %0 = gnn.matmul %x, %w {gnn.offsets = array<i64: 0>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = gnn.scale %0 {factor = 2.0 : f64, gnn.offsets = array<i64: 128>} : tensor<4x4xf32>
  %2 = gnn.activation relu %1 {gnn.offsets = array<i64: 0>} : tensor<4x4xf32>
  %3 = gnn.matmul %2, %w {gnn.offsets = array<i64: -2>, gnn.result_slots = array<i64: 0>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %3 : tensor<4x4xf32>
}

// -----

// A run of 33 ops: gnnrt_cpu_fused takes 32 at most, so the first 32 are
// one call and the last is a plain call.
// CHECK-LABEL: // @long
// CHECK: GNNC_CALL(gnnrt_cpu_fused(gnnc_ops, 32, 16, 4, gnnc_in, 1, gnnc_out, gnnc_out_values, 1));
// CHECK-NEXT: }
// CHECK-NEXT: float *v2 = (float *)(arena + 128);
// CHECK-NEXT: GNNC_CALL(gnnrt_cpu_scale(v1, 16, 2, v2));
func.func @long(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> attributes {gnn.arena_bytes = 192 : i64} {
  %0 = gnn.matmul %x, %w {gnn.offsets = array<i64: 0>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %s0 = gnn.scale %0 {factor = 2.0 : f64, gnn.offsets = array<i64: 128>} : tensor<4x4xf32>
  %s1 = gnn.scale %s0 {factor = 2.0 : f64, gnn.offsets = array<i64: 0>} : tensor<4x4xf32>
  %s2 = gnn.scale %s1 {factor = 2.0 : f64, gnn.offsets = array<i64: 128>} : tensor<4x4xf32>
  %s3 = gnn.scale %s2 {factor = 2.0 : f64, gnn.offsets = array<i64: 0>} : tensor<4x4xf32>
  %s4 = gnn.scale %s3 {factor = 2.0 : f64, gnn.offsets = array<i64: 128>} : tensor<4x4xf32>
  %s5 = gnn.scale %s4 {factor = 2.0 : f64, gnn.offsets = array<i64: 0>} : tensor<4x4xf32>
  %s6 = gnn.scale %s5 {factor = 2.0 : f64, gnn.offsets = array<i64: 128>} : tensor<4x4xf32>
  %s7 = gnn.scale %s6 {factor = 2.0 : f64, gnn.offsets = array<i64: 0>} : tensor<4x4xf32>
  %s8 = gnn.scale %s7 {factor = 2.0 : f64, gnn.offsets = array<i64: 128>} : tensor<4x4xf32>
  %s9 = gnn.scale %s8 {factor = 2.0 : f64, gnn.offsets = array<i64: 0>} : tensor<4x4xf32>
  %s10 = gnn.scale %s9 {factor = 2.0 : f64, gnn.offsets = array<i64: 128>} : tensor<4x4xf32>
  %s11 = gnn.scale %s10 {factor = 2.0 : f64, gnn.offsets = array<i64: 0>} : tensor<4x4xf32>
  %s12 = gnn.scale %s11 {factor = 2.0 : f64, gnn.offsets = array<i64: 128>} : tensor<4x4xf32>
  %s13 = gnn.scale %s12 {factor = 2.0 : f64, gnn.offsets = array<i64: 0>} : tensor<4x4xf32>
  %s14 = gnn.scale %s13 {factor = 2.0 : f64, gnn.offsets = array<i64: 128>} : tensor<4x4xf32>
  %s15 = gnn.scale %s14 {factor = 2.0 : f64, gnn.offsets = array<i64: 0>} : tensor<4x4xf32>
  %s16 = gnn.scale %s15 {factor = 2.0 : f64, gnn.offsets = array<i64: 128>} : tensor<4x4xf32>
  %s17 = gnn.scale %s16 {factor = 2.0 : f64, gnn.offsets = array<i64: 0>} : tensor<4x4xf32>
  %s18 = gnn.scale %s17 {factor = 2.0 : f64, gnn.offsets = array<i64: 128>} : tensor<4x4xf32>
  %s19 = gnn.scale %s18 {factor = 2.0 : f64, gnn.offsets = array<i64: 0>} : tensor<4x4xf32>
  %s20 = gnn.scale %s19 {factor = 2.0 : f64, gnn.offsets = array<i64: 128>} : tensor<4x4xf32>
  %s21 = gnn.scale %s20 {factor = 2.0 : f64, gnn.offsets = array<i64: 0>} : tensor<4x4xf32>
  %s22 = gnn.scale %s21 {factor = 2.0 : f64, gnn.offsets = array<i64: 128>} : tensor<4x4xf32>
  %s23 = gnn.scale %s22 {factor = 2.0 : f64, gnn.offsets = array<i64: 0>} : tensor<4x4xf32>
  %s24 = gnn.scale %s23 {factor = 2.0 : f64, gnn.offsets = array<i64: 128>} : tensor<4x4xf32>
  %s25 = gnn.scale %s24 {factor = 2.0 : f64, gnn.offsets = array<i64: 0>} : tensor<4x4xf32>
  %s26 = gnn.scale %s25 {factor = 2.0 : f64, gnn.offsets = array<i64: 128>} : tensor<4x4xf32>
  %s27 = gnn.scale %s26 {factor = 2.0 : f64, gnn.offsets = array<i64: 0>} : tensor<4x4xf32>
  %s28 = gnn.scale %s27 {factor = 2.0 : f64, gnn.offsets = array<i64: 128>} : tensor<4x4xf32>
  %s29 = gnn.scale %s28 {factor = 2.0 : f64, gnn.offsets = array<i64: 0>} : tensor<4x4xf32>
  %s30 = gnn.scale %s29 {factor = 2.0 : f64, gnn.offsets = array<i64: 128>} : tensor<4x4xf32>
  %s31 = gnn.scale %s30 {factor = 2.0 : f64, gnn.offsets = array<i64: 0>} : tensor<4x4xf32>
  %s32 = gnn.scale %s31 {factor = 2.0 : f64, gnn.offsets = array<i64: 128>} : tensor<4x4xf32>
  %r = gnn.matmul %s32, %w {gnn.offsets = array<i64: -2>, gnn.result_slots = array<i64: 0>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

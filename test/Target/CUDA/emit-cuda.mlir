// RUN: gnnc-opt -gnn-assign-buffers -test-emit-cuda -split-input-file -verify-diagnostics %s | FileCheck %s

// A run of adjacent element-wise ops of one shape is one kernel: the bias
// is read at the column, %b stays in a register (only the activation reads
// it), %a is stored because the matmul after the run reads it. The library
// operations are the CPU kernels' calls under gnnrt_cuda_, on the same
// buffers; results are copied with gnnrt_cuda_copy.
// CHECK: #if defined(__CUDACC_RTC__) || defined(GNNC_CUDA_DEVICE_PASS)
// CHECK: // bias_add, relu, scale
// CHECK-NEXT: extern "C" __global__ void gnnc_k0(long long n, long long cols, const float *in0, const float *in1, float *out0, float *out1) {
// CHECK: const long long c = i % cols;
// CHECK-NEXT: const float t0 = in0[i];
// CHECK-NEXT: const float t1 = in1[c];
// CHECK-NEXT: const float t2 = t0 + t1;
// CHECK-NEXT: const float t3 = t2 > 0 ? t2 : 0.0f;
// CHECK-NEXT: const float t4 = (float)((double)t3 * 0.5);
// CHECK-NEXT: out0[i] = t3;
// CHECK-NEXT: out1[i] = t4;
// CHECK: #else // host part
// CHECK: #include "gnnrt/Cuda.h"
// CHECK: static const char gnnc_kernel_source[] = R"gnnc_device(
// CHECK: extern "C" __global__ void gnnc_k0(
// CHECK: )gnnc_device";
// CHECK: static const gnnrt_cuda_kernels gnnc_kernels = {"gnnc", gnnc_kernel_source, gnnc_fatbin, sizeof gnnc_fatbin};
// CHECK: static const gnnrt_cuda_kernels gnnc_kernels = {"gnnc", gnnc_kernel_source, nullptr, 0};
// CHECK-LABEL: // @f
// CHECK: gnnrt_cuda *const ctx = gnnrt_cuda_current();
// CHECK-NEXT: if (!ctx)
// CHECK-NEXT: return GNNRT_ERR_NO_DEVICE;
// CHECK: GNNC_CALL(gnnrt_cuda_matmul(a0, a1, 3, 2, 4, 0, 0, v0));
// CHECK: long long gnnc_p0 = 6;
// CHECK-NEXT: long long gnnc_p1 = 2;
// CHECK-NEXT: const float *gnnc_p2 = v0;
// CHECK-NEXT: const float *gnnc_p3 = a2;
// CHECK-NEXT: float *gnnc_p4 = v1;
// CHECK-NEXT: float *gnnc_p5 = v2;
// CHECK-NEXT: void *gnnc_params[] = {&gnnc_p0, &gnnc_p1, &gnnc_p2, &gnnc_p3, &gnnc_p4, &gnnc_p5};
// CHECK-NEXT: GNNC_CALL(gnnrt_cuda_launch(ctx, &gnnc_kernels, "gnnc_k0", 6, gnnc_params));
// CHECK: GNNC_CALL(gnnrt_cuda_matmul(v1, v2, 3, 3, 2, 0, 1, v3));
// CHECK: GNNC_CALL(gnnrt_cuda_copy(ctx, results[1], a0, 48));
// CHECK-NEXT: return GNNRT_OK;
// CHECK: #endif // host part
func.func @f(%x: tensor<3x4xf32>, %w: tensor<4x2xf32>, %bias: tensor<2xf32>)
    -> (tensor<3x3xf32>, tensor<3x4xf32>) {
  %h = gnn.matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %b = gnn.bias_add %h, %bias : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %a = gnn.activation relu %b : tensor<3x2xf32>
  %s = gnn.scale %a {factor = 0.5 : f64} : tensor<3x2xf32>
  %y = gnn.matmul %a, %s {transpose_b} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x3xf32>
  return %y, %x : tensor<3x3xf32>, tensor<3x4xf32>
}

// -----

// Runs of other ops get other kernels; sizes are launch arguments. A splat
// constant is filled on the device, another constant copied from the host.
// CHECK: // fill with one float value
// CHECK-NEXT: extern "C" __global__ void gnnc_k0(long long n, float value, float *out) {
// CHECK: // add, tanh
// CHECK-NEXT: extern "C" __global__ void gnnc_k1(
// CHECK: // tanh
// CHECK-NEXT: extern "C" __global__ void gnnc_k2(
// CHECK-NOT: gnnc_k3
// CHECK-LABEL: // @shared
// CHECK: long long gnnc_p0 = 4;
// CHECK-NEXT: float gnnc_p1 = 0x1p-1f;
// CHECK-NEXT: float *gnnc_p2 = v0;
// CHECK: GNNC_CALL(gnnrt_cuda_launch(ctx, &gnnc_kernels, "gnnc_k0", 4, gnnc_params));
// CHECK: static const float v1_host[] = {0x1p+0f, 0x1p+1f};
// CHECK-NEXT: GNNC_CALL(gnnrt_cuda_copy(ctx, v1, v1_host, sizeof v1_host));
// CHECK: long long gnnc_p0 = 4;
// CHECK-NEXT: long long gnnc_p1 = 4;
// CHECK: "gnnc_k1", 4,
// CHECK: long long gnnc_p0 = 2;
// CHECK-NEXT: long long gnnc_p1 = 2;
// CHECK: "gnnc_k2", 2,
func.func @shared(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
  %c = arith.constant dense<0.5> : tensor<4xf32>
  %d = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %m = gnn.add %c, %x : tensor<4xf32>
  %y = gnn.activation tanh %m : tensor<4xf32>
  %z = gnn.activation tanh %d : tensor<2xf32>
  return %y, %z : tensor<4xf32>, tensor<2xf32>
}

// -----

// Host offload on the copy stream: it starts once the compute stream has
// computed %y and the compute stream waits for it only before an op
// overwrites %y's bytes (tanh, in the same slot); the prefetch into %z's
// slot starts once the ops before it are done, and only the add that reads
// %z waits for it. The copies go through the tiers' pinned host block.
// CHECK-LABEL: int gnnc_offload(
// CHECK: GNNC_CALL(gnnrt_cuda_launch(ctx, &gnnc_kernels, "gnnc_k{{[0-9]+}}"
// CHECK: GNNC_CALL(gnnrt_offload_host_reserve(tiers, 0, 16, &[[BLOCK:v[0-9]+]]));
// CHECK-NEXT: GNNC_CALL(gnnrt_cuda_record(ctx, GNNRT_CUDA_COMPUTE, 0));
// CHECK-NEXT: GNNC_CALL(gnnrt_cuda_wait(ctx, GNNRT_CUDA_COPY, 0));
// CHECK-NEXT: GNNC_CALL(gnnrt_cuda_copy_async(ctx, GNNRT_CUDA_COPY, [[BLOCK]], [[Y:v[0-9]+]], 16));
// CHECK-NEXT: GNNC_CALL(gnnrt_cuda_record(ctx, GNNRT_CUDA_COPY, 1));
// CHECK-NEXT: GNNC_CALL(gnnrt_cuda_wait(ctx, GNNRT_CUDA_COMPUTE, 1));
// CHECK-NEXT: float *[[W:v[0-9]+]] = (float *)(arena + 0);
// CHECK: float *[[Z:v[0-9]+]] = (float *)(arena + 64);
// CHECK-NEXT: const void *[[HOST:v[0-9]+]] = nullptr;
// CHECK-NEXT: GNNC_CALL(gnnrt_offload_host_block(tiers, 0, 16, &[[HOST]]));
// CHECK-NEXT: GNNC_CALL(gnnrt_home_note_loaded(tiers, 16));
// CHECK-NEXT: GNNC_CALL(gnnrt_cuda_record(ctx, GNNRT_CUDA_COMPUTE, 2));
// CHECK-NEXT: GNNC_CALL(gnnrt_cuda_wait(ctx, GNNRT_CUDA_COPY, 2));
// CHECK-NEXT: GNNC_CALL(gnnrt_cuda_copy_async(ctx, GNNRT_CUDA_COPY, [[Z]], (void *)[[HOST]], 16));
// CHECK-NEXT: GNNC_CALL(gnnrt_cuda_record(ctx, GNNRT_CUDA_COPY, 3));
// CHECK-NEXT: GNNC_CALL(gnnrt_offload_free(tiers, 0));
// CHECK-NEXT: GNNC_CALL(gnnrt_cuda_wait(ctx, GNNRT_CUDA_COMPUTE, 3));
// CHECK-NEXT: float *{{v[0-9]+}} = (float *)results[0];
// CHECK: const float *gnnc_p2 = [[Z]];
// CHECK-NEXT: const float *gnnc_p3 = [[W]];
// CHECK: return GNNRT_OK;
func.func @offload(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = gnn.activation relu %x : tensor<4xf32>
  %h = mem.offload %y to host {mem.handle = 0 : i64} : tensor<4xf32> -> !mem.offloaded<host, tensor<4xf32>>
  %w = gnn.activation tanh %x : tensor<4xf32>
  %z = mem.prefetch %h : !mem.offloaded<host, tensor<4xf32>> -> tensor<4xf32>
  mem.free %h : !mem.offloaded<host, tensor<4xf32>>
  %s = gnn.add %z, %w : tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// The disk tier: through the context's pinned staging buffer, copied
// synchronously; the tiers write the spill file behind the step.
// CHECK-LABEL: int gnnc_spill(
// CHECK: GNNC_CALL(gnnrt_cuda_staging(ctx, 16, &[[OUT:v[0-9]+]]));
// CHECK-NEXT: GNNC_CALL(gnnrt_cuda_copy(ctx, [[OUT]], [[Y:v[0-9]+]], 16));
// CHECK-NEXT: GNNC_CALL(gnnrt_offload_to_disk(tiers, 0, [[OUT]], 16));
// CHECK: GNNC_CALL(gnnrt_cuda_staging(ctx, 16, &[[IN:v[0-9]+]]));
// CHECK-NEXT: GNNC_CALL(gnnrt_prefetch(tiers, 0, [[IN]], 16));
// CHECK-NEXT: GNNC_CALL(gnnrt_cuda_copy(ctx, {{v[0-9]+}}, [[IN]], 16));
// CHECK-NEXT: GNNC_CALL(gnnrt_offload_free(tiers, 0));
// CHECK-NEXT: GNNC_CALL(gnnrt_offload_sync(tiers));
func.func @spill(%x: tensor<4xf32>) -> tensor<4xf32> attributes {mem.num_handles = 1 : i64} {
  %y = gnn.activation relu %x : tensor<4xf32>
  %h = mem.offload %y to disk {mem.handle = 0 : i64} : tensor<4xf32> -> !mem.offloaded<disk, tensor<4xf32>>
  %z = mem.prefetch %h : !mem.offloaded<disk, tensor<4xf32>> -> tensor<4xf32>
  mem.free %h : !mem.offloaded<disk, tensor<4xf32>>
  return %z : tensor<4xf32>
}

// -----

// A dropout joins the run: a thread draws one Philox block (gnnrt/Philox.h's
// words, printed once before the kernels) and computes its four elements;
// the key's seed and step are launch arguments, the stream and the
// threshold literals, the launch is over the blocks. p = 0 keeps every
// element without drawing. A head's columns (mask_columns) index another
// matrix's mask: the library's call, as before.
// CHECK: __device__ __forceinline__ void gnnc_philox(unsigned long long b,
// CHECK: // relu, dropout, dropout
// CHECK-NEXT: extern "C" __global__ void gnnc_k0(long long n, long long cols, unsigned long long seed0, unsigned long long step0, const float *in0, float *out0) {
// CHECK-NEXT: for (long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x; b < (n + 3) / 4;
// CHECK: unsigned int r0[4];
// CHECK-NEXT: gnnc_philox(b, 2u, (unsigned int)step0, seed0, r0);
// CHECK-NEXT: for (int j = 0; j < 4 && 4 * b + j < n; ++j) {
// CHECK-NEXT: const long long i = 4 * b + j;
// CHECK: const float t1 = t0 > 0 ? t0 : 0.0f;
// CHECK-NEXT: const float t2 = r0[j] >= 1717986919u ? (float)((double)t1 / 0.59999999999999998) : 0.0f;
// CHECK-NEXT: const float t3 = (float)((double)t2 / 1.0);
// CHECK-NEXT: out0[i] = t3;
// CHECK-LABEL: // @drop
// CHECK: unsigned long long gnnc_p2 = (uint64_t)a1;
// CHECK-NEXT: unsigned long long gnnc_p3 = (uint64_t)a2;
// CHECK-NEXT: const float *gnnc_p4 = a0;
// CHECK-NEXT: float *gnnc_p5 = v0;
// CHECK-NEXT: void *gnnc_params[] = {&gnnc_p0, &gnnc_p1, &gnnc_p2, &gnnc_p3, &gnnc_p4, &gnnc_p5};
// CHECK-NEXT: GNNC_CALL(gnnrt_cuda_launch(ctx, &gnnc_kernels, "gnnc_k0", 3, gnnc_params));
// CHECK: GNNC_CALL(gnnrt_cuda_dropout_columns(a3, 2, 1, 4, 2, (uint64_t)a1, (uint64_t)a2, UINT64_C(1), 0.40000000000000002, v1));
func.func @drop(%x: tensor<2x5xf32>, %seed: i64, %step: i64, %c: tensor<2x1xf32>)
    -> (tensor<2x5xf32>, tensor<2x1xf32>) {
  %k = gnn.rng_key %seed, %step
  %a = gnn.activation relu %x : tensor<2x5xf32>
  %d = gnn.dropout %a, %k {p = 0.4 : f64, stream = 2 : i64} : tensor<2x5xf32>
  %e = gnn.dropout %d, %k {p = 0.0 : f64, stream = 3 : i64} : tensor<2x5xf32>
  %h = gnn.dropout %c, %k {mask_columns = array<i64: 4, 2>, p = 0.4 : f64, stream = 1 : i64} : tensor<2x1xf32>
  return %e, %h : tensor<2x5xf32>, tensor<2x1xf32>
}

// -----

// Copies of some rows are the CPU target's (gnn-restrict-rows is off for
// CUDA): refused at the op.
func.func @rows(%x: tensor<4x8xf32>, %r: tensor<8xi32>) -> tensor<4x8xf32> {
  %y = gnn.activation relu %x : tensor<4x8xf32>
  // expected-error @+1 {{'mem.offload' of some rows or read a tile at a time is not supported yet by the CUDA target}}
  %h = mem.offload %y rows %r to host {level = 1 : i64, mem.handle = 0 : i64} : tensor<4x8xf32>, tensor<8xi32> -> !mem.offloaded<host, tensor<4x8xf32>>
  %z = mem.prefetch %h rows %r {level = 1 : i64} : !mem.offloaded<host, tensor<4x8xf32>>, tensor<8xi32> -> tensor<4x8xf32>
  mem.free %h : !mem.offloaded<host, tensor<4x8xf32>>
  return %z : tensor<4x8xf32>
}

// -----

func.func @wide(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'gnn.zeros' on 'tensor<2xf64>' is not supported yet by the CUDA target}}
  %z = gnn.zeros : tensor<2xf64>
  return %x : tensor<2xf32>
}

// -----

// Reductions, edge softmax and its gradient, and the loss with its gradient
// are generated kernels specialized to their sizes (literals in the body),
// whose sums follow the CPU kernels' order: along dim 0, a thread per
// (block of the CPU's 64, column) writes a double partial into the scratch
// and a thread per column adds the 64 in order; the edge softmax is a
// thread per (destination, head) over its CSR slots; the loss sums chunks
// of 32 rows of each block, then the blocks' chunks, then the blocks, and
// leaves the weight sum at the scratch's start for the gradient right after
// it, a thread per row. Every sum is sequential within one thread: no shared
// memory, atomics or warp intrinsics.
// CHECK: // reduce mean, dim 0, of 5 x 3: block partials
// CHECK-NEXT: extern "C" __global__ void [[RP:gnnc_k[0-9]+]](const float *x, double *partial) {
// CHECK: t < 192;
// CHECK: const long long b = t / 3, c = t % 3;
// CHECK-NEXT: const long long q = 5LL / 64, r = 5LL % 64;
// CHECK: for (long long i = begin; i < end; ++i)
// CHECK-NEXT: sum += x[i * 3LL + c];
// CHECK-NEXT: partial[t] = sum;
// CHECK: // reduce mean, dim 0, of 5 x 3: block totals
// CHECK-NEXT: extern "C" __global__ void [[RT:gnnc_k[0-9]+]](const double *p0, float *p1) {
// CHECK: for (int b = 0; b < 64; ++b)
// CHECK-NEXT: sum += p0[b * 3LL + c];
// CHECK-NEXT: p1[c] = (float)(sum / 5.0);
// CHECK: // reduce max, dim 1, of 5 x 3
// CHECK-NEXT: extern "C" __global__ void [[RM:gnnc_k[0-9]+]](const float *x, float *y) {
// CHECK: float m = (-__int_as_float(0x7f800000));
// CHECK-NEXT: for (long long c = 0; c < 3; ++c) {
// CHECK-NEXT: const float v = x[i * 3LL + c];
// CHECK-NEXT: m = m < v ? v : m;
// The edge softmax is a warp per (destination, head) on a GPU: lane `lane`
// takes every 32nd slot and the lanes' maxima and sums meet by
// __shfl_xor_sync at offsets 16, 8, 4, 2, 1. Elsewhere (the emulator runs
// threads one at a time) lane 0 computes the 32 lanes in turn and adds
// them in the butterfly's order, which is also the CPU kernel's.
// CHECK: // edge softmax, 2 heads over 4 nodes
// CHECK-NEXT: extern "C" __global__ void [[ES:gnnc_k[0-9]+]](const int *indptr, const int *ids, const float *x, float *y) {
// CHECK-NEXT: for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < 256;
// CHECK: const long long w = t / 32;
// CHECK-NEXT: const int lane = (int)(t % 32);
// CHECK-NEXT: const long long i = w / 2, k = w % 2;
// CHECK-NEXT: const long long begin = indptr[i], end = indptr[i + 1];
// CHECK-NEXT: #ifdef __CUDA_ARCH__
// CHECK: for (long long s = begin + lane; s < end; s += 32) {
// CHECK: const float u = __shfl_xor_sync(0xffffffffu, m, o);
// CHECK: const float ev = expf(x[e] - m);
// CHECK-NEXT: y[e] = ev;
// CHECK-NEXT: sum += ev;
// CHECK: sum += __shfl_xor_sync(0xffffffffu, sum, o);
// CHECK-NEXT: const long long first = begin + lane, step = 32;
// CHECK-NEXT: #else
// CHECK-NEXT: if (lane != 0)
// CHECK-NEXT: continue;
// CHECK: lanes[(s - begin) % 32] += ev;
// CHECK: for (int o = 16; o > 0; o /= 2)
// CHECK-NEXT: for (int j = 0; j < o; ++j)
// CHECK-NEXT: lanes[j] = lanes[j] + lanes[j + o];
// CHECK-NEXT: const float sum = lanes[0];
// CHECK-NEXT: const long long first = begin, step = 1;
// CHECK-NEXT: #endif
// CHECK-NEXT: for (long long s = first; s < end; s += step) {
// CHECK: y[e] = y[e] / sum;
// CHECK: // edge softmax gradient, 2 heads over 4 nodes
// CHECK-NEXT: extern "C" __global__ void [[EG:gnnc_k[0-9]+]](const int *indptr, const int *ids, const float *y, const float *dy, float *dx) {
// CHECK: dot += y[e] * dy[e];
// CHECK: dot += __shfl_xor_sync(0xffffffffu, dot, o);
// CHECK: dx[e] = y[e] * (dy[e] - dot);
// CHECK: // cross entropy of 5 x 3: chunk sums
// CHECK-NEXT: extern "C" __global__ void [[LC:gnnc_k[0-9]+]](const float *p0, const int *p1, const unsigned char *p2, double *p3, long long *p4) {
// CHECK: const long long from = begin + j * 32;
// CHECK: if (!p2[i] || p1[i] < 0)
// CHECK: acc += 1.0 * -(0.90000000000000002 * py + 0.033333333333333333 * all);
// CHECK: p4[t] = bad ? -1 : count;
// CHECK: // cross entropy of 5 x 3: block sums
// CHECK-NEXT: extern "C" __global__ void [[LB:gnnc_k[0-9]+]](
// CHECK: // cross entropy of 5 x 3: total
// CHECK-NEXT: extern "C" __global__ void [[LT:gnnc_k[0-9]+]](
// CHECK: p3[0] = count < 0 ? (float)nan
// CHECK: // cross entropy gradient of 5 x 3
// CHECK-NEXT: extern "C" __global__ void [[LG:gnnc_k[0-9]+]](const float *p0, const int *p1, const unsigned char *p2, const float *p3, const double *p4, float *p5) {
// CHECK: const double scale = (double)p3[0] * 1.0 / p4[0];
// CHECK: d[c] = (float)(scale * (exp(row[c] - lse) - q));
// CHECK-LABEL: // @ops
// CHECK: GNNC_CALL(gnnrt_cuda_scratch(ctx, 1536, (void **)&gnnc_scratch));
// CHECK-NEXT: {
// CHECK-NEXT: const float *gnnc_p0 = a1;
// CHECK-NEXT: double *gnnc_p1 = (double *)(gnnc_scratch + 0);
// CHECK-NEXT: void *gnnc_params[] = {&gnnc_p0, &gnnc_p1};
// CHECK-NEXT: GNNC_CALL(gnnrt_cuda_launch(ctx, &gnnc_kernels, "[[RP]]", 192, gnnc_params));
// CHECK: GNNC_CALL(gnnrt_cuda_launch(ctx, &gnnc_kernels, "[[RT]]", 3, gnnc_params));
// CHECK: GNNC_CALL(gnnrt_cuda_launch(ctx, &gnnc_kernels, "[[RM]]", 5, gnnc_params));
// CHECK: const int *gnnc_p0 = a0->in.indptr;
// CHECK-NEXT: const int *gnnc_p1 = a0->in.edge_id;
// CHECK: GNNC_CALL(gnnrt_cuda_launch(ctx, &gnnc_kernels, "[[ES]]", 256, gnnc_params));
// CHECK: GNNC_CALL(gnnrt_cuda_launch(ctx, &gnnc_kernels, "[[EG]]", 256, gnnc_params));
// CHECK: GNNC_CALL(gnnrt_cuda_scratch(ctx, 3616, (void **)&gnnc_scratch));
// CHECK: GNNC_CALL(gnnrt_cuda_launch(ctx, &gnnc_kernels, "[[LC]]", 64, gnnc_params));
// CHECK: GNNC_CALL(gnnrt_cuda_launch(ctx, &gnnc_kernels, "[[LB]]", 64, gnnc_params));
// CHECK: double *gnnc_p2 = (double *)(gnnc_scratch + 0);
// CHECK: GNNC_CALL(gnnrt_cuda_launch(ctx, &gnnc_kernels, "[[LT]]", 1, gnnc_params));
// CHECK: GNNC_CALL(gnnrt_cuda_scratch(ctx, 1056, (void **)&gnnc_scratch));
// CHECK: const double *gnnc_p4 = (const double *)(gnnc_scratch + 0);
// CHECK: GNNC_CALL(gnnrt_cuda_launch(ctx, &gnnc_kernels, "[[LG]]", 5, gnnc_params));
// CHECK-NOT: gnnrt_cuda_reduce
// CHECK-NOT: gnnrt_cuda_edge_softmax
// CHECK-NOT: gnnrt_cuda_cross_entropy
// CHECK: return GNNRT_OK;
func.func @ops(%g: !gnn.graph<4x6>, %x: tensor<5x3xf32>, %s: tensor<6x2xf32>, %dy: tensor<6x2xf32>, %y: tensor<5xi32>, %m: tensor<5xi1>, %one: tensor<f32>) -> (tensor<3xf32>, tensor<5xf32>, tensor<6x2xf32>, tensor<f32>, tensor<5x3xf32>) {
  %0 = gnn.reduce mean %x {dim = 0 : i64} : tensor<5x3xf32> -> tensor<3xf32>
  %1 = gnn.reduce max %x {dim = 1 : i64} : tensor<5x3xf32> -> tensor<5xf32>
  %2 = gnn.edge_softmax %g, %s : (!gnn.graph<4x6>, tensor<6x2xf32>) -> tensor<6x2xf32>
  %3 = gnn.edge_softmax_grad %g, %2, %dy : (!gnn.graph<4x6>, tensor<6x2xf32>, tensor<6x2xf32>) -> tensor<6x2xf32>
  %4 = train.cross_entropy %x, %y, %m {label_smoothing = 0.1 : f64} : (tensor<5x3xf32>, tensor<5xi32>, tensor<5xi1>) -> tensor<f32>
  %5 = train.cross_entropy_grad %x, %y, %m, %one {label_smoothing = 0.1 : f64} : (tensor<5x3xf32>, tensor<5xi32>, tensor<5xi1>, tensor<f32>) -> tensor<5x3xf32>
  return %0, %1, %3, %4, %5 : tensor<3xf32>, tensor<5xf32>, tensor<6x2xf32>, tensor<f32>, tensor<5x3xf32>
}

// -----

// What stays a library call: a loss gradient with no loss of the same
// inputs just before it (its weight sum is not in the scratch). A loss with
// balanced class weights is generated: first the classes' counts, a thread
// per (block, class), then their weights and the weight sum in one thread,
// which the loss and its gradient read.
// CHECK-LABEL: // cross entropy of 5 x 3, balanced class weights: class counts
// CHECK-NEXT: extern "C" __global__ void [[COUNTS:gnnc_k[0-9]+]](
// CHECK: count += p1[i] == k;
// CHECK: // cross entropy of 5 x 3, balanced class weights: class weights
// CHECK-NEXT: extern "C" __global__ void [[WEIGHTS:gnnc_k[0-9]+]](
// CHECK: const double w = n != 0 ? (double)total / (3.0 * n) : 0.0;
// CHECK: weightSum += w * n;
// CHECK: // cross entropy of 5 x 3, balanced class weights: chunk sums
// CHECK: acc += weight[y] * -(
// CHECK: // cross entropy gradient of 5 x 3, balanced class weights
// CHECK: const double scale = (double)p3[0] * p6[y] / p4[0];
// CHECK-LABEL: // @library
// CHECK: GNNC_CALL(gnnrt_cuda_cross_entropy_grad(a0, a1, a2, a3, 5, 3, 0, 0, v0));
// CHECK: "[[COUNTS]]", 192, gnnc_params
// CHECK: "[[WEIGHTS]]", 1, gnnc_params
// CHECK-NOT: gnnrt_cuda_cross_entropy
func.func @library(%x: tensor<5x3xf32>, %y: tensor<5xi32>, %m: tensor<5xi1>, %one: tensor<f32>) -> (tensor<5x3xf32>, tensor<f32>, tensor<5x3xf32>) {
  %0 = train.cross_entropy_grad %x, %y, %m, %one : (tensor<5x3xf32>, tensor<5xi32>, tensor<5xi1>, tensor<f32>) -> tensor<5x3xf32>
  %1 = train.cross_entropy %x, %y, %m {class_weights = #train<class_weights balanced>} : (tensor<5x3xf32>, tensor<5xi32>, tensor<5xi1>) -> tensor<f32>
  %2 = train.cross_entropy_grad %x, %y, %m, %one {class_weights = #train<class_weights balanced>} : (tensor<5x3xf32>, tensor<5xi32>, tensor<5xi1>, tensor<f32>) -> tensor<5x3xf32>
  return %0, %1, %2 : tensor<5x3xf32>, tensor<f32>, tensor<5x3xf32>
}

// -----

// An element-wise run right before a generated op kernel, whose results
// only that op reads, is computed where the op reads its operand, as a
// __device__ function of the element and its column, and never stored
// (GAT's leaky_relu before its edge softmax; a bias_add before a column
// sum). A run right after an edge softmax (gradient) that reads its result
// element-wise is computed as each element is final, storing only what is
// read later (leaky_relu's gradient after the softmax gradient: dx itself
// is not stored). A run with a dropout is never fused into an op (its
// Philox blocks are four elements wide), nor one whose result another op
// reads (the scale, which is returned).
// CHECK-LABEL: // leaky_relu
// CHECK-NEXT: __device__ __forceinline__ float [[PRO:gnnc_f[0-9]+]](long long i, long long c, const float *in0) {
// CHECK-NEXT: (void)c;
// CHECK-NEXT: const float t0 = in0[i];
// CHECK-NEXT: const float t1 = t0 > 0 ? t0 : 0x1.99999ap-3f * t0;
// CHECK-NEXT: return t1;
// CHECK: // leaky_relu_grad
// CHECK-NEXT: __device__ __forceinline__ float [[EPI:gnnc_f[0-9]+]](long long i, long long c, float x, const float *in0, float *out0) {
// CHECK: const float t1 = x * (t0 > 0 ? 1.0f : 0x1.99999ap-3f);
// CHECK-NEXT: out0[i] = t1;
// CHECK-NEXT: return t1;
// CHECK: // bias_add
// CHECK-NEXT: __device__ __forceinline__ float [[BIAS:gnnc_f[0-9]+]](long long i, long long c, const float *in0, const float *in1) {
// CHECK-NEXT: const float t0 = in0[i];
// CHECK-NEXT: const float t1 = in1[c];
// CHECK: // edge softmax, 2 heads over 4 nodes (after 1 fused element-wise op)
// CHECK-NEXT: extern "C" __global__ void [[FS:gnnc_k[0-9]+]](const int *indptr, const int *ids, const float *x_in0, float *y) {
// CHECK: const float v = [[PRO]](e, k, x_in0);
// CHECK: const float ev = expf([[PRO]](e, k, x_in0) - m);
// CHECK: // edge softmax gradient, 2 heads over 4 nodes (then 1 fused element-wise op)
// CHECK-NEXT: extern "C" __global__ void [[FG:gnnc_k[0-9]+]](const int *indptr, const int *ids, const float *y, const float *dy, float *dx, const float *dx_in0, float *dx_out0) {
// CHECK: const float v = y[e] * (dy[e] - dot);
// CHECK-NEXT: (void)[[EPI]](e, k, v, dx_in0, dx_out0);
// CHECK: // reduce sum, dim 0, of 6 x 2 (after 1 fused element-wise op): block partials
// CHECK-NEXT: extern "C" __global__ void [[FR:gnnc_k[0-9]+]](const float *x_in0, const float *x_in1, double *partial) {
// CHECK: sum += [[BIAS]](i * 2LL + c, c, x_in0, x_in1);
// CHECK: // reduce sum, dim 0, of 6 x 2: block totals
// CHECK: // dropout
// CHECK-NEXT: extern "C" __global__ void
// CHECK: // reduce sum, dim 0, of 6 x 2: block partials
// CHECK-NEXT: extern "C" __global__ void [[UR:gnnc_k[0-9]+]](const float *x, double *partial) {
// CHECK: // scale
// CHECK-LABEL: // @fused
// CHECK: "[[FS]]", 256, gnnc_params
// CHECK: const float *gnnc_p3 = a3;
// CHECK-NEXT: float *gnnc_p4 = v{{[0-9]+}};
// CHECK-NEXT: const float *gnnc_p5 = a1;
// CHECK-NEXT: float *gnnc_p6 = [[LG:v[0-9]+]];
// CHECK: "[[FG]]", 256, gnnc_params
// CHECK: const float *gnnc_p0 = [[LG]];
// CHECK: const float *gnnc_p0 = a3;
// CHECK-NEXT: const float *gnnc_p1 = a2;
// CHECK: "[[FR]]", 128, gnnc_params
// CHECK: "[[UR]]", 128, gnnc_params
// CHECK: "[[UR]]", 128, gnnc_params
func.func @fused(%g: !gnn.graph<4x6>, %s: tensor<6x2xf32>, %b: tensor<2xf32>, %dy: tensor<6x2xf32>, %seed: i64, %step: i64) -> (tensor<6x2xf32>, tensor<6x2xf32>, tensor<6xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<6x2xf32>) {
  %0 = gnn.activation leaky_relu %s {slope = 2.000000e-01 : f64} : tensor<6x2xf32>
  %1 = gnn.edge_softmax %g, %0 : (!gnn.graph<4x6>, tensor<6x2xf32>) -> tensor<6x2xf32>
  %2 = gnn.edge_softmax_grad %g, %1, %dy : (!gnn.graph<4x6>, tensor<6x2xf32>, tensor<6x2xf32>) -> tensor<6x2xf32>
  %3 = gnn.activation_grad leaky_relu %s, %2 {slope = 2.000000e-01 : f64} : tensor<6x2xf32>
  %z = gnn.reduce max %3 {dim = 1 : i64} : tensor<6x2xf32> -> tensor<6xf32>
  %4 = gnn.bias_add %dy, %b : (tensor<6x2xf32>, tensor<2xf32>) -> tensor<6x2xf32>
  %5 = gnn.reduce sum %4 {dim = 0 : i64} : tensor<6x2xf32> -> tensor<2xf32>
  %k = gnn.rng_key %seed, %step
  %6 = gnn.dropout %3, %k {p = 5.000000e-01 : f64, stream = 1 : i64} : tensor<6x2xf32>
  %7 = gnn.reduce sum %6 {dim = 0 : i64} : tensor<6x2xf32> -> tensor<2xf32>
  %8 = gnn.scale %3 {factor = 2.000000e+00 : f64} : tensor<6x2xf32>
  %9 = gnn.reduce sum %8 {dim = 0 : i64} : tensor<6x2xf32> -> tensor<2xf32>
  return %1, %3, %z, %5, %7, %9, %8 : tensor<6x2xf32>, tensor<6x2xf32>, tensor<6xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<6x2xf32>
}

// -----

// Adjacent train.adam ops with the same options and step are one launch
// over all their parameters end to end; the step's bias corrections are
// computed by the host code with the C library's pow, as the CPU runtime
// does, and passed in. An Adam with other options (here lr) is not in the
// run: alone, it stays the library's call.
// CHECK-LABEL: // adam over 2 parameters (6 + 2 elements)
// CHECK-NEXT: extern "C" __global__ void [[ADAM:gnnc_k[0-9]+]](double correction1, double correction2, const float *q0_param, const float *q0_grad, const float *q0_m, const float *q0_v, float *q0_new_param, float *q0_new_m, float *q0_new_v, const float *q1_param,
// CHECK: t < 8;
// CHECK: if (t < 6LL) {
// CHECK-NEXT: i = t - 0LL;
// CHECK: } else if (t < 8LL) {
// CHECK-NEXT: i = t - 6LL;
// CHECK: const double g = grad[i] + 0.00050000000000000001 * p;
// CHECK-NEXT: const double mi = 0.90000000000000002 * m[i] + 0.099999999999999978 * g;
// CHECK-NEXT: const double vi = 0.999 * v[i] + 0.0010000000000000009 * g * g;
// CHECK-NEXT: const double mh = mi / correction1, vh = vi / correction2;
// CHECK-NEXT: p *= 1.0;
// CHECK-NEXT: p -= 0.01 * mh / (sqrt(vh) + 1e-08);
// CHECK-LABEL: // @adam
// CHECK: double gnnc_p0 = 1.0 - pow(0.90000000000000002, (double)a8);
// CHECK-NEXT: double gnnc_p1 = 1.0 - pow(0.999, (double)a8);
// CHECK: GNNC_CALL(gnnrt_cuda_launch(ctx, &gnnc_kernels, "[[ADAM]]", 8, gnnc_params));
// CHECK: GNNC_CALL(gnnrt_cuda_adam(a0, a1, a2, a3, 6, a8, 0.02,
func.func @adam(%p0: tensor<6xf32>, %g0: tensor<6xf32>, %m0: tensor<6xf32>, %v0: tensor<6xf32>, %p1: tensor<2xf32>, %g1: tensor<2xf32>, %m1: tensor<2xf32>, %v1: tensor<2xf32>, %step: i64) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %a:3 = train.adam %p0, %g0, %m0, %v0, %step {beta1 = 9.0e-01 : f64, beta2 = 9.99e-01 : f64, eps = 1.0e-08 : f64, lr = 1.0e-02 : f64, weight_decay = 5.0e-04 : f64} : tensor<6xf32>
  %b:3 = train.adam %p1, %g1, %m1, %v1, %step {beta1 = 9.0e-01 : f64, beta2 = 9.99e-01 : f64, eps = 1.0e-08 : f64, lr = 1.0e-02 : f64, weight_decay = 5.0e-04 : f64} : tensor<2xf32>
  %c:3 = train.adam %p0, %g0, %m0, %v0, %step {beta1 = 9.0e-01 : f64, beta2 = 9.99e-01 : f64, eps = 1.0e-08 : f64, lr = 2.0e-02 : f64, weight_decay = 5.0e-04 : f64} : tensor<6xf32>
  return %a#0, %a#1, %a#2, %b#0, %b#1, %b#2, %c#0, %c#1, %c#2 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}

// -----

// SGD likewise: one launch over adjacent train.sgd ops with the same
// options; with momentum, each parameter's buffer is read and written.
// CHECK-LABEL: // sgd (Nesterov momentum) over 2 parameters (6 + 2 elements)
// CHECK-NEXT: extern "C" __global__ void [[SGD:gnnc_k[0-9]+]](const float *q0_param, const float *q0_grad, const float *q0_buffer, float *q0_new_param, float *q0_new_buffer, const float *q1_param,
// CHECK: const double buf = 0.90000000000000002 * buffer[i] + g;
// CHECK-NEXT: g = g + 0.90000000000000002 * buf;
// CHECK-NEXT: new_buffer[i] = (float)buf;
// CHECK-NEXT: new_param[i] = (float)(p - 0.10000000000000001 * g);
// CHECK-LABEL: // @sgd
// CHECK: GNNC_CALL(gnnrt_cuda_launch(ctx, &gnnc_kernels, "[[SGD]]", 8, gnnc_params));
// CHECK-NOT: gnnrt_cuda_sgd
func.func @sgd(%p0: tensor<6xf32>, %g0: tensor<6xf32>, %b0: tensor<6xf32>, %p1: tensor<2xf32>, %g1: tensor<2xf32>, %b1: tensor<2xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a:2 = train.sgd %p0, %g0, %b0 {lr = 0.1 : f64, momentum = 0.9 : f64, nesterov} : (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>)
  %b:2 = train.sgd %p1, %g1, %b1 {lr = 0.1 : f64, momentum = 0.9 : f64, nesterov} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return %a#0, %a#1, %b#0, %b#1 : tensor<6xf32>, tensor<6xf32>, tensor<2xf32>, tensor<2xf32>
}

// RUN: gnnc-opt -gnn-assign-buffers -test-emit-cpp -split-input-file -verify-diagnostics %s | FileCheck %s

// The emitter prints what gnn-assign-buffers decided: the self loops' CSR
// storage at 0 (112 bytes, 128 aligned), %h at 128, and the dropout %d and
// the relu %a written over it in turn (each is element-wise and its operand
// dies at it), the returned value straight into results[0], a returned
// argument copied; the transpose is a view, the key two scalars. The
// dropout and the relu are one gnnrt_cpu_fused call that stores only %a
// (test/Target/CPU/fusion.mlir), its input and output one buffer.
// CHECK-LABEL: // @f
// CHECK: extern "C" int64_t gnnc_f_arena_bytes(void) { return INT64_C(192); }
// CHECK: extern "C" int gnnc_f(void *const *args, void *const *results, char *arena, gnnrt_offload *tiers) {
// CHECK: const gnnrt_graph *a0 = (const gnnrt_graph *)args[0];
// CHECK: const float *a1 = (const float *)args[1];
// CHECK: const float *a2 = (const float *)args[2];
// CHECK: const int64_t a3 = *(const int64_t *)args[3];
// CHECK: gnnrt_graph v0;
// CHECK-NEXT: GNNC_CALL(gnnrt_cpu_add_self_loops(a0, (int32_t *)(arena + 0), &v0));
// CHECK: const gnnrt_graph v1 = gnnrt_graph_transposed(*&v0);
// CHECK: float *v2 = (float *)(arena + 128);
// CHECK-NEXT: GNNC_CALL(gnnrt_cpu_matmul(a1, a2, 3, 2, 4, 0, 0, v2));
// CHECK: float *v3 = (float *)(arena + 128);
// CHECK-NEXT: {
// CHECK-NEXT: const gnnrt_fused_op gnnc_ops[] = {
// CHECK-NEXT: {GNNRT_FUSED_DROPOUT, 0, 0, -1, 0.5, (uint64_t)a3, (uint64_t)a3, UINT64_C(2)}, // dropout
// CHECK-NEXT: {GNNRT_FUSED_ACTIVATION, 0, 1, -1, 0.01, 0, 0, 0}, // activation
// CHECK-NEXT: };
// CHECK-NEXT: const float *const gnnc_in[] = {v2};
// CHECK-NEXT: float *const gnnc_out[] = {v3};
// CHECK-NEXT: const int32_t gnnc_out_values[] = {2};
// CHECK-NEXT: GNNC_CALL(gnnrt_cpu_fused(gnnc_ops, 2, 6, 2, gnnc_in, 1, gnnc_out, gnnc_out_values, 1));
// CHECK-NEXT: }
// CHECK: float *v4 = (float *)results[0];
// CHECK-NEXT: GNNC_CALL(gnnrt_cpu_spmm(&v1, 1, v3, 2, nullptr, 1, v4));
// CHECK: memcpy(results[1], a1, 48);
// CHECK-NEXT: return GNNRT_OK;
func.func @f(%g: !gnn.graph<3x2>, %x: tensor<3x4xf32>, %w: tensor<4x2xf32>, %s: i64)
    -> (tensor<3x2xf32>, tensor<3x4xf32>) {
  %g1 = gnn.add_self_loops %g : <3x2> -> <3x5>
  %t = gnn.transpose %g1 : <3x5>
  %k = gnn.rng_key %s, %s
  %h = gnn.matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %d = gnn.dropout %h, %k {p = 0.5 : f64, stream = 2 : i64} : tensor<3x2xf32>
  %a = gnn.activation relu %d : tensor<3x2xf32>
  %y = gnn.spmm mean %t, %a : (!gnn.graph<3x5>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %y, %x : tensor<3x2xf32>, tensor<3x4xf32>
}

// -----

// Adam writes all three outputs into their result slots; a splat constant
// is filled in the arena.
// CHECK-LABEL: // @opt
// CHECK: float *v0 = (float *)(arena + 0);
// CHECK-NEXT: for (int64_t i = 0; i < 4; ++i)
// CHECK-NEXT: v0[i] = 0x1p-1f;
// CHECK: float *v1 = (float *)results[2];
// CHECK-NEXT: float *v2 = (float *)results[0];
// CHECK-NEXT: float *v3 = (float *)results[1];
// CHECK-NEXT: GNNC_CALL(gnnrt_cpu_adam(a0, v0, a1, a2, 4, a3, 0.01, 0.90000000000000002, 0.999, 1e-08, 0, 0, v1, v2, v3));
func.func @opt(%p: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %step: i64)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %g = arith.constant dense<0.5> : tensor<4xf32>
  %np, %nm, %nv = train.adam %p, %g, %m, %v, %step {beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, lr = 0.01 : f64, weight_decay = 0.0 : f64} : tensor<4xf32>
  return %nm, %nv, %np : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @wide(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'gnn.zeros' on 'tensor<2xf64>' is not supported yet by the CPU target}}
  %z = gnn.zeros : tensor<2xf64>
  return %x : tensor<2xf32>
}

// -----

// Layers have no kernel: gnn-decompose must run first.
func.func @layer(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'gnn.linear' is not supported yet by the CPU target}}
  %y = gnn.linear %x, %w : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// CSR features (#gnn.csr) are one opaque buffer: `void *`, passed to the
// CSR kernels with their shape and slot count; the products are dense.
// CHECK-LABEL: // @csr
// CHECK: const void *a0 = (const void *)args[0];
// CHECK: void *v0 = (void *)(arena + 0);
// CHECK-NEXT: GNNC_CALL(gnnrt_cpu_csr_dropout(a0, 8, 10, 5, (uint64_t)a2, (uint64_t)a2, UINT64_C(3), 0.5, v0));
// CHECK: GNNC_CALL(gnnrt_cpu_csr_matmul(v0, 8, 10, 5, 0, a1, 4, v1));
// CHECK: GNNC_CALL(gnnrt_cpu_csr_matmul(v0, 8, 10, 5, 1, v1, 4, v2));
func.func @csr(%x: tensor<8x10xf32, #gnn.csr<nnz = 5>>, %w: tensor<10x4xf32>,
               %s: i64) -> (tensor<8x4xf32>, tensor<10x4xf32>) {
  %k = gnn.rng_key %s, %s
  %d = gnn.dropout %x, %k {p = 5.000000e-01 : f64, stream = 3 : i64} : tensor<8x10xf32, #gnn.csr<nnz = 5>>
  %y = gnn.matmul %d, %w : (tensor<8x10xf32, #gnn.csr<nnz = 5>>, tensor<10x4xf32>) -> tensor<8x4xf32>
  %dw = gnn.matmul %d, %y {transpose_a} : (tensor<8x10xf32, #gnn.csr<nnz = 5>>, tensor<8x4xf32>) -> tensor<10x4xf32>
  return %y, %dw : tensor<8x4xf32>, tensor<10x4xf32>
}

// -----

// Other ops have no CSR kernel (gnn-sparse-features never gives them one).
func.func @csr_relu(%x: tensor<2x3xf32, #gnn.csr<nnz = 2>>) -> tensor<2x3xf32, #gnn.csr<nnz = 2>> {
  // expected-error @+1 {{'gnn.activation' with a #gnn.csr operand or result is not supported yet by the CPU target}}
  %y = gnn.activation relu %x : tensor<2x3xf32, #gnn.csr<nnz = 2>>
  return %y : tensor<2x3xf32, #gnn.csr<nnz = 2>>
}

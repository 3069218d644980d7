// REQUIRES: shipped-data
// gnn-plan-memory on Kipf & Welling's GCN on Cora (the pipeline to stage
// plan, as `gnnc emit --stage=plan` runs it) under three budgets and the
// forced policies. The session holds 1.84 MiB besides the step's arena;
// keeping everything needs 3427968 bytes in all (what `gnnc run` measures).
// RUN: gnnc emit --stage=gnn --data %gnnc_data %gnnc_src/examples/cora_gcn.gnn > %t.mlir
// RUN: gnnc-opt -gnnc-pipeline="stage=plan" %t.mlir | FileCheck %s --check-prefix=ROOMY
// RUN: gnnc-opt -gnnc-pipeline="stage=plan budget=3145728" %t.mlir | FileCheck %s --check-prefix=TIGHT
// RUN: gnnc-opt -gnnc-pipeline="stage=plan budget=3145728 solver=ilp" %t.mlir | FileCheck %s --check-prefix=TIGHT
// RUN: gnnc-opt -gnnc-pipeline="stage=plan policy=offload_all" %t.mlir | FileCheck %s --check-prefix=OFFLOAD
// RUN: gnnc-opt -gnnc-pipeline="stage=plan policy=recompute_all" %t.mlir | FileCheck %s --check-prefix=RECOMPUTE
// RUN: gnnc-opt -gnnc-pipeline="stage=cpp policy=offload_all" %t.mlir | FileCheck %s --check-prefix=PLACED

// 256 MiB: every tensor kept, nothing rewritten; the plan still records
// the predicted peak, which is the keep-all session footprint.
// ROOMY-LABEL: func.func @GCN.step
// ROOMY-SAME: mem.fates = [{{.*}}fate = "keep"{{.*}}fate = "keep"{{.*}}fate = "keep"
// ROOMY-SAME: mem.num_handles = 0
// ROOMY-SAME: mem.plan = #mem.plan<budget = 268435456, peak_device = 3427968, peak_host = 0, peak_disk = 0
// ROOMY-SAME: policy = "auto">
// ROOMY-NOT: mem.recompute
// ROOMY-NOT: mem.offload

// 3 MiB: the input dropout (804096 bytes, CSR) is the cheapest to give up:
// it is recomputed from the features and its key just before the first
// weight's gradient; the two hidden tensors stay.
// TIGHT-LABEL: func.func @GCN.step
// TIGHT-SAME: bytes = 804096 : i64, def = 2 : i64, fate = "recompute", first_backward = 21 : i64, last_forward = 3 : i64
// TIGHT-SAME: name = "gnn.bias_add@5"
// TIGHT-SAME: mem.plan = #mem.plan<budget = 3145728, peak_device = 3076032,
// TIGHT: %[[R:.*]] = mem.recompute(%arg1, %{{.*}}) : (tensor<2708x1433xf32, #gnn.csr<nnz = 49216>>, !gnn.rng_key) -> tensor<2708x1433xf32, #gnn.csr<nnz = 49216>> {
// TIGHT-NEXT: ^bb0(%[[X:.*]]: tensor<2708x1433xf32, #gnn.csr<nnz = 49216>>, %[[K:.*]]: !gnn.rng_key):
// TIGHT-NEXT: %[[D:.*]] = gnn.dropout %[[X]], %[[K]]
// TIGHT-NEXT: mem.yield %[[D]]
// TIGHT-NEXT: }
// TIGHT-NEXT: gnn.matmul %[[R]], %{{.*}} {transpose_a}

// offload_all: the three saved tensors go to host after their last forward
// use and come back, in reverse order, before their first backward use;
// each host copy is released once prefetched.
// OFFLOAD-LABEL: func.func @GCN.step
// OFFLOAD-SAME: mem.num_handles = 3
// OFFLOAD-SAME: peak_host = 1150720
// OFFLOAD-SAME: policy = "offload_all"
// OFFLOAD: %[[H0:.*]] = mem.offload %{{.*}} to host {mem.handle = 0 : i64}
// OFFLOAD: %[[H1:.*]] = mem.offload %{{.*}} to host {mem.handle = 1 : i64}
// OFFLOAD: %[[H2:.*]] = mem.offload %{{.*}} to host {mem.handle = 2 : i64}
// OFFLOAD: mem.prefetch %[[H2]]
// OFFLOAD-NEXT: mem.free %[[H2]]
// OFFLOAD: mem.prefetch %[[H1]]
// OFFLOAD-NEXT: mem.free %[[H1]]
// OFFLOAD: mem.prefetch %[[H0]]
// OFFLOAD-NEXT: mem.free %[[H0]]

// recompute_all: each saved tensor through the recipe that needs nothing
// kept (the second hidden dropout re-runs the first layer).
// RECOMPUTE-LABEL: func.func @GCN.step
// RECOMPUTE-SAME: policy = "recompute_all"
// RECOMPUTE-COUNT-3: mem.recompute(
// RECOMPUTE-NOT: mem.offload

// Stage cpp places the prefetched copies like any value.
// PLACED-LABEL: func.func @GCN.step
// PLACED: mem.prefetch %{{.*}} {gnn.offsets = array<i64: {{[0-9]+}}>}

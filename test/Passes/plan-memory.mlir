// REQUIRES: shipped-data
// The planner is tested on the step that computes every row (--all-rows,
// restrict-rows=false), whose numbers docs/MemoryPlanning.md shows;
// gnn-restrict-rows has its own tests (restrict-rows.mlir, run-restrict-rows.test).
// gnn-plan-memory on Kipf & Welling's GCN on Cora (the pipeline to stage
// plan, as `gnnc emit --stage=plan` runs it) under three budgets and the
// forced policies. Keeping everything needs 2960960 bytes in all (what
// `gnnc run` measures); the raw graph is freed once prepare has run, since
// no other function reads it.
// RUN: gnnc emit --stage=gnn --data %gnnc_data %gnnc_src/examples/cora_gcn.gnn > %t.mlir
// RUN: gnnc-opt -gnnc-pipeline="stage=plan restrict-rows=false" %t.mlir | FileCheck %s --check-prefix=ROOMY
// RUN: gnnc-opt -gnnc-pipeline="stage=plan budget=2724160 restrict-rows=false signs=false" %t.mlir | FileCheck %s --check-prefix=TIGHT
// RUN: gnnc-opt -gnnc-pipeline="stage=plan budget=2724160 solver=ilp restrict-rows=false signs=false" %t.mlir | FileCheck %s --check-prefix=ILP
// RUN: gnnc-opt -gnnc-pipeline="stage=plan budget=2724160 restrict-rows=false" %t.mlir | FileCheck %s --check-prefix=SIGNS
// RUN: gnnc-opt -gnnc-pipeline="stage=plan budget=2724160 solver=ilp restrict-rows=false" %t.mlir | FileCheck %s --check-prefix=SIGNS
// RUN: gnnc-opt -gnnc-pipeline="stage=plan policy=offload_all restrict-rows=false" %t.mlir | FileCheck %s --check-prefix=OFFLOAD
// RUN: gnnc-opt -gnnc-pipeline="stage=plan policy=recompute_all restrict-rows=false" %t.mlir | FileCheck %s --check-prefix=RECOMPUTE
// RUN: gnnc-opt -gnnc-pipeline="stage=cpp policy=offload_all restrict-rows=false" %t.mlir | FileCheck %s --check-prefix=PLACED

// 256 MiB: every tensor kept, nothing rewritten; the plan still records
// the predicted peak, which is the keep-all session footprint.
// ROOMY-LABEL: func.func @GCN.step
// ROOMY-SAME: mem.fates = [{{.*}}fate = "keep"{{.*}}fate = "keep"{{.*}}fate = "keep"
// ROOMY-SAME: mem.num_handles = 0
// ROOMY-SAME: mem.plan = #mem.plan<budget = 268435456, peak_device = 2960960, peak_host = 0, peak_disk = 0
// ROOMY-SAME: policy = "auto">
// ROOMY-NOT: mem.recompute
// ROOMY-NOT: mem.offload

// 2.60 MiB with the sign fate (the default on the CPU target): the first
// layer's pre-ReLU value, which only the ReLU's gradient reads, is kept as
// its signs, 2708 x 2 bytes, over the forward and backward gap, where a
// host copy would cost two copies; the exact search and the ILP agree.
// The signs are packed just before the ReLU, the value's last forward
// reader, which then writes its result over it: one buffer serves both.
// The gradient reads the bits themselves (`packed`): nothing is unpacked.
// SIGNS-LABEL: func.func @GCN.step
// SIGNS-SAME: fate = "sign"{{.*}}name = "gnn.bias_add@5"
// SIGNS: %[[PRE:.*]] = gnn.bias_add
// SIGNS-NEXT: %[[BITS:.*]] = mem.store_sign %[[PRE]] : tensor<2708x16xf32> -> tensor<2708x2xi8>
// SIGNS-NEXT: gnn.activation relu %[[PRE]]
// SIGNS-NOT: %[[PRE]]
// SIGNS: %[[ONES:.*]] = mem.load_sign %[[BITS]] {packed} : tensor<2708x2xi8> -> tensor<2708x16xf32>
// SIGNS-NEXT: gnn.activation_grad relu %[[ONES]], %{{.*}} : tensor<2708x16xf32>

// Without it (signs=false, as for the CUDA target) the cheapest relief at
// 2.60 MiB is a host home for the first layer's
// weight and its Adam m (a copy in and a copy out each per step), not a
// recompute: the step copies the weight in before its first use and its new
// value home right after Adam, and init and predict take the same homes.
// TIGHT-LABEL: func.func @GCN.init
// TIGHT-SAME: -> (tensor<1433x16xf32> {gnn.param = "gcn_conv_0.weight", mem.home = "host", train.role = "param"}
// TIGHT: %[[W:.*]] = train.init glorot
// TIGHT-NEXT: mem.store_home %[[W]] : tensor<1433x16xf32>
// TIGHT-LABEL: func.func @GCN.step
// TIGHT-SAME: %arg6: tensor<1433x16xf32> {gnn.param = "gcn_conv_0.weight", mem.home = "host", train.role = "param"}
// TIGHT-SAME: def = -1 : i64, fate = "host", first_backward = 3 : i64, last_forward = -1 : i64, loc = "{{[^"]*}}", name = "param gcn_conv_0.weight"
// TIGHT-SAME: mem.plan = #mem.plan<budget = 2724160, peak_device = 2685824, peak_host = 366848, peak_disk = 0, predicted_seconds = 8.7049737487335352E-4,
// TIGHT: %[[L:.*]] = mem.load_home %arg6 : tensor<1433x16xf32>
// TIGHT-NEXT: gnn.matmul %{{.*}}, %[[L]]
// TIGHT: %[[P:.*]], %{{.*}}, %{{.*}} = train.adam %[[L]]
// TIGHT: %[[S:.*]] = mem.store_home %[[P]] : tensor<1433x16xf32>
// TIGHT: return %{{.*}}, %[[S]], %{{.*}} :
// TIGHT-LABEL: func.func @GCN.predict
// TIGHT-SAME: mem.home = "host"
// TIGHT: mem.load_home %arg2 : tensor<1433x16xf32>

// GLPK proves the same cost optimal; homing Adam's v instead of its m or
// the weight costs the same, so it may choose another pair.
// ILP-LABEL: func.func @GCN.step
// ILP-SAME: fate = "host"
// ILP-SAME: predicted_seconds = 8.7049737487335352E-4
// ILP-SAME: mem.solver = "ilp"

// offload_all: the three saved tensors go to host after their last forward
// use and come back, in reverse order, before their first backward use;
// each host copy is released once prefetched. The features, labels, train
// mask, parameters, optimizer state and prepare's values (the self-looped
// graph and its edge weights) get host homes (2809152 host bytes in all),
// which makes offload_all the smallest plan here (1608320 device bytes).
// OFFLOAD-LABEL: func.func @GCN.step
// OFFLOAD-SAME: mem.num_handles = 3
// OFFLOAD-SAME: peak_device = 1608320, peak_host = 2809152
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

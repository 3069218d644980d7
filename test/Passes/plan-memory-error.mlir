// REQUIRES: shipped-data
// Budgets no plan fits: the error states the smallest budget with a plan
// (found by bisection over the placed plans), at the train block.
// RUN: gnnc emit --stage=gnn --data %gnnc_data %gnnc_src/examples/cora_gcn.gnn > %t.mlir
// RUN: not gnnc-opt -gnnc-pipeline="stage=plan budget=2097152" %t.mlir 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: not gnnc-opt -gnnc-pipeline="stage=plan budget=3145728 policy=keep_all" %t.mlir 2>&1 | FileCheck %s --check-prefix=KEEP
// RUN: not gnnc-opt -gnnc-pipeline="stage=plan policy=bogus" %t.mlir 2>&1 | FileCheck %s --check-prefix=POLICY
// RUN: not gnnc-opt -gnnc-pipeline="stage=plan solver=bogus budget=3145728" %t.mlir 2>&1 | FileCheck %s --check-prefix=SOLVER

// SMALL: error: memory = 2.00 MiB is below the smallest plan for this program on 'cora' (2.93 MiB, 3076032 bytes): the session holds 1.84 MiB besides the step's arena
// SMALL-NOT: see current operation

// KEEP: error: memory = 3.00 MiB is too small for plan = keep_all on 'cora': it needs 3.27 MiB (plan = auto may fit)

// POLICY: error: gnn-plan-memory: unknown policy 'bogus' (auto, keep_all, recompute_all, offload_all)

// SOLVER: error: gnn-plan-memory: unknown solver 'bogus' (auto, exact, greedy, ilp)

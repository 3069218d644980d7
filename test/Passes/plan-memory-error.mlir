// REQUIRES: shipped-data
// The planner is tested on the step that computes every row (--all-rows,
// restrict-rows=false), whose numbers docs/MemoryPlanning.md shows;
// gnn-restrict-rows has its own tests (restrict-rows.mlir, run-restrict-rows.test).
// Budgets no plan fits: the error states the smallest budget with a plan
// (found by bisection over the placed plans), at the train block.
// RUN: gnnc emit --stage=gnn --data %gnnc_data %gnnc_src/examples/cora_gcn.gnn > %t.mlir
// RUN: not gnnc-opt -gnnc-pipeline="stage=plan budget=1048576 restrict-rows=false" %t.mlir 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: not gnnc-opt -gnnc-pipeline="stage=plan budget=2924160 policy=keep_all restrict-rows=false" %t.mlir 2>&1 | FileCheck %s --check-prefix=KEEP
// RUN: not gnnc-opt -gnnc-pipeline="stage=plan policy=bogus restrict-rows=false" %t.mlir 2>&1 | FileCheck %s --check-prefix=POLICY
// RUN: not gnnc-opt -gnnc-pipeline="stage=plan solver=bogus budget=3145728 restrict-rows=false" %t.mlir 2>&1 | FileCheck %s --check-prefix=SOLVER

// SMALL: error: memory = 1.00 MiB is below the smallest plan for this program on 'cora' (1.53 MiB, 1608320 bytes): the session holds 64 bytes besides the step's workspace
// SMALL-NOT: see current operation

// KEEP: error: memory = 2.79 MiB is too small for plan = keep_all on 'cora': it needs 2.82 MiB (plan = auto may fit)

// POLICY: error: gnn-plan-memory: unknown policy 'bogus' (auto, keep_all, recompute_all, offload_all, checkpoint_layers)

// SOLVER: error: gnn-plan-memory: unknown solver 'bogus' (auto, exact, greedy, ilp)

// REQUIRES: shipped-data
// The planner is tested on the step that computes every row (--all-rows,
// restrict-rows=false), whose numbers docs/MemoryPlanning.md shows;
// gnn-restrict-rows has its own tests (restrict-rows.mlir, run-restrict-rows.test).
// The analyses on a real step: Kipf & Welling's GCN on Cora through the
// named pipeline to stage cpp (what `gnnc emit --stage=cpp` prints as C++),
// with its buffers placed.
// RUN: gnnc emit --stage=gnn --data %gnnc_data %gnnc_src/examples/cora_gcn.gnn > %t.mlir
// RUN: gnnc-opt -gnnc-pipeline="stage=cpp restrict-rows=false" -test-print-memory-plan -o /dev/null %t.mlir | FileCheck %s --match-full-lines
// RUN: gnnc-opt -gnnc-pipeline="stage=cpp budget=2724160 restrict-rows=false signs=false" -test-print-memory-plan -o /dev/null %t.mlir | FileCheck %s --match-full-lines --check-prefix=TIGHT

// @GCN.prepare keeps the graph with 2708 self loops in its arena,
// 4 * 2 * (2708 + 1 + 2 * 13264) = 233896 bytes (233920 as a 64-byte slot),
// for the whole session; its transpose is a view.
// CHECK-LABEL: memory plan @GCN.prepare: 4 ops, no loss
// CHECK: gnn.add_self_loops#0 233896 0 3 arena no
// CHECK: arena peak 233920 bytes at 0 (gnn.add_self_loops), gnn.arena_bytes 233920

// The step: the loss is the 12th op (the seed cotangent constant and the
// key come first). The features are CSR (gnnrt_csr_matrix_bytes(2708, 1433,
// 49216) = 804096 bytes), caller-owned like the parameters and the Adam
// state; the prepared graphs are the session's, 0 bytes here.
// CHECK-LABEL: memory plan @GCN.step: 27 ops, loss at 11 (train.cross_entropy)
// CHECK: %arg0:graph 0 - - argument no
// CHECK-NEXT: %arg1:features 804096 - 2 argument no
// CHECK: %arg6:param[gcn_conv_0.weight] 91712 - 22 argument no
// CHECK: %arg10:adam.m[gcn_conv_0.weight] 91712 - 22 argument no
// CHECK: %arg18:prepared[0] 0 - 9 argument no
// CHECK-NEXT: %arg19:prepared[1] 53056 - 20 argument no
// The backward pass needs four forward tensors: the input dropout (for the
// first weight's gradient), the pre-activation (ReLU's gradient), the
// hidden dropout (the second weight's gradient) and the logits (the loss
// gradient). Nothing else survives the loss. Each bias_add writes over its
// aggregation, the hidden dropout over the ReLU (both die there).
// CHECK: arith.constant#0 4 0 12 arena no
// CHECK-NEXT: gnn.rng_key#0 0 1 17 none no
// CHECK-NEXT: gnn.dropout#0 804096 2 21 arena yes
// CHECK-NEXT: gnn.matmul#0 173312 3 4 arena no
// CHECK-NEXT: gnn.spmm#0 173312 4 5 arena no
// CHECK-NEXT: gnn.bias_add#0 173312 5 18 arena yes over gnn.spmm#0 from 4
// CHECK-NEXT: gnn.activation#0 173312 6 7 arena no
// CHECK-NEXT: gnn.dropout#0 173312 7 15 arena yes over gnn.activation#0 from 6
// CHECK-NEXT: gnn.matmul#0 75824 8 9 arena no
// CHECK-NEXT: gnn.spmm#0 75824 9 10 arena no
// CHECK-NEXT: gnn.bias_add#0 75824 10 12 arena yes over gnn.spmm#0 from 9
// CHECK-NEXT: train.cross_entropy#0 4 11 26 result no
// CHECK-NOT: yes
// CHECK: point op live
// Arguments: features, labels, mask, 4 parameters, their Adam moments and
// the edge weights; results: the loss and 12 parameter and state slots.
// CHECK: resident 1424208 bytes (arguments 1147448, results 276760)
// CHECK-NEXT: saved 1226544 bytes in 4 values
// The live peak is in the forward pass, at the second layer's aggregation
// (the three saved tensors, its input and its output): the backward pass
// computes each weight gradient before the input gradient, so a layer's
// saved input is gone before a tensor as large is allocated.
// CHECK-NEXT: arena peak 1302464 bytes at 9 (gnn.spmm), gnn.arena_bytes 1302464
// The program's 256 MiB keeps the three planned tensors (the logits are
// saved but read right after the loss: not a candidate) and the residents
// (features, labels and train mask, parameters and Adam moments, both
// copies of each state, and prepare's edge weights and graphs, their
// arena); the predicted peak is the session's bytes plus that arena, what
// `gnnc run` measures. The validation and test masks, which no function
// reads, are not on the device at all.
// CHECK-NEXT: plan auto, budget 268435456, solver exact; tensors planned: 20
// CHECK-NEXT: fate gnn.dropout@2  804096  keep
// CHECK-NEXT: fate gnn.bias_add@5  173312  keep
// CHECK-NEXT: fate gnn.dropout@7  173312  keep
// CHECK-NEXT: fate features  804096  keep
// CHECK-NEXT: fate labels  10880  keep
// CHECK-NEXT: fate train_mask  2752  keep
// CHECK-NEXT: fate param gcn_conv_0.weight  183424  keep
// CHECK:      fate adam.v gcn_conv_1.bias  128  keep
// CHECK-NEXT: fate prepared gnn.edge_norm  53056  keep
// CHECK-NEXT: fate prepared graphs  233920  keep
// CHECK-NEXT: predicted peak device 2960960, host 0, disk 0

// At 2.60 MiB without signs (signs=false; plan-memory.mlir has the plan
// with them) the first weight and its Adam m get host homes: both copies
// of each leave the device, the step copies them in and out (the analyses
// at stage cpp see mem.load_home and mem.store_home), and the host holds
// 366848 bytes.
// TIGHT-LABEL: memory plan @GCN.step: {{.*}}
// TIGHT: plan auto, budget 2724160, solver exact; tensors planned: 20
// TIGHT-NEXT: fate gnn.dropout@2  804096  keep
// TIGHT-NEXT: fate gnn.bias_add@5  173312  keep
// TIGHT-NEXT: fate gnn.dropout@7  173312  keep
// TIGHT-NEXT: fate features  804096  keep
// TIGHT-NEXT: fate labels  10880  keep
// TIGHT-NEXT: fate train_mask  2752  keep
// TIGHT-NEXT: fate param gcn_conv_0.weight  183424  host
// TIGHT:      fate adam.m gcn_conv_0.weight  183424  host
// TIGHT:      predicted peak device 2685824, host 366848, disk 0
// TIGHT-LABEL: memory plan @GCN.predict: 9 ops, no loss
// TIGHT-NOT: fate

// Predict saves nothing and its first fit is tight.
// CHECK-LABEL: memory plan @GCN.predict: 8 ops, no loss
// CHECK: saved 0 bytes in 0 values
// CHECK-NEXT: arena peak 346624 bytes at 1 (gnn.spmm), gnn.arena_bytes 346624

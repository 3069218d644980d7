// RUN: gnnc-opt -test-print-memory-plan -split-input-file -o /dev/null %s | FileCheck %s --match-full-lines

// A function gnn-plan-memory planned: after the analyses, the plan its
// attributes record (what `gnnc plan` prints as a table): policy, budget and
// solver, one line per saved tensor (name, bytes, fate) in the order of
// `mem.fates`, and the predicted peak of each tier.
// CHECK-LABEL: memory plan @planned: 2 ops, no loss
// CHECK: arena peak 0 bytes at -
// CHECK-NEXT: plan offload_all, budget 4096, solver none; tensors planned: 2
// CHECK-NEXT: fate gnn.activation@0  128  host
// CHECK-NEXT: fate gnn.matmul@3  64  recompute
// CHECK-NEXT: predicted peak device 2048, host 128, disk 0
// CHECK-NEXT: memory plan @unplanned: 2 ops, no loss
func.func @planned(%x: tensor<4x4xf32>) -> tensor<4x4xf32> attributes {
    mem.plan = #mem.plan<budget = 4096, peak_device = 2048, peak_host = 128,
                         peak_disk = 0, predicted_seconds = 2.0e-3,
                         keep_all_seconds = 1.5e-3, policy = "offload_all">,
    mem.solver = "none",
    mem.fates = [{name = "gnn.activation@0", bytes = 128 : i64, fate = "host",
                  seconds = 1.0e-4 : f64, def = 0 : i64, last_forward = 0 : i64,
                  first_backward = 3 : i64, loc = "m.gnn:2:7"},
                 {name = "gnn.matmul@3", bytes = 64 : i64, fate = "recompute",
                  seconds = 4.0e-4 : f64, def = 3 : i64, last_forward = 4 : i64,
                  first_backward = 9 : i64, loc = "m.gnn:3:7"}]} {
  %a = gnn.activation relu %x : tensor<4x4xf32>
  return %a : tensor<4x4xf32>
}

// -----

// Unplanned functions print the analyses only.
// CHECK: arena peak 0 bytes at -
// CHECK-NOT: {{.}}
func.func @unplanned(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = gnn.activation relu %x : tensor<4x4xf32>
  return %a : tensor<4x4xf32>
}

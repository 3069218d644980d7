// RUN: gnnc-opt %s | FileCheck %s
// RUN: gnnc-opt %s -canonicalize | FileCheck %s --check-prefix=CANON

// The skeleton driver parses and prints the upstream dialects gnnc builds on.
// CHECK-LABEL: func.func @add
// CHECK: arith.addf
// CANON-LABEL: func.func @add
// CANON-NOT: arith.addf
// CANON: return %arg0
func.func @add(%a: f32) -> f32 {
  %zero = arith.constant -0.0 : f32
  %r = arith.addf %a, %zero : f32
  return %r : f32
}

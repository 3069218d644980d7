// RUN: gnnc-opt -test-print-memory-plan -split-input-file -verify-diagnostics -o /dev/null %s

// Sizes must be static: the plan's bytes are exact or there is no plan.
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{test-print-memory-plan needs a static size for 'tensor<?x4xf32>'}}
  %a = gnn.activation relu %x : tensor<?x4xf32>
  %b = gnn.activation relu %a : tensor<?x4xf32>
  return %b : tensor<?x4xf32>
}

// -----

// A planned step's recomputations are regions; the analysis does not look
// inside them yet.
func.func @recompute(%a: tensor<8x4xf32>, %w: tensor<4x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{test-print-memory-plan does not handle regions}}
  %r = mem.recompute (%a, %w) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%a0: tensor<8x4xf32>, %w0: tensor<4x4xf32>):
    %m = gnn.matmul %a0, %w0 : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
    mem.yield %m : tensor<8x4xf32>
  }
  return %r : tensor<8x4xf32>
}

// train ops are pure: an unused initialisation or update disappears, a used
// one stays, and identical initialisations are not merged across streams.
// RUN: gnnc-opt %s -canonicalize -cse | FileCheck %s

// CHECK-LABEL: func.func @dead_update
// CHECK-NOT: train.
// CHECK: return
func.func @dead_update(%w: tensor<4x2xf32>, %g: tensor<4x2xf32>, %seed: i64) {
  %0 = train.sgd %w, %g {lr = 0.1 : f64} : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %1 = train.init glorot %seed {fan_in = 4 : i64, fan_out = 2 : i64, stream = 0 : i64} : tensor<4x2xf32>
  return
}

// CHECK-LABEL: func.func @streams_differ
// CHECK: train.init glorot {{.*}}stream = 0
// CHECK: train.init glorot {{.*}}stream = 1
func.func @streams_differ(%seed: i64) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %0 = train.init glorot %seed {fan_in = 4 : i64, fan_out = 2 : i64, stream = 0 : i64} : tensor<4x2xf32>
  %1 = train.init glorot %seed {fan_in = 4 : i64, fan_out = 2 : i64, stream = 1 : i64} : tensor<4x2xf32>
  return %0, %1 : tensor<4x2xf32>, tensor<4x2xf32>
}

// CHECK-LABEL: func.func @same_stream_merged
// CHECK: train.init
// CHECK-NOT: train.init
func.func @same_stream_merged(%seed: i64) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %0 = train.init glorot %seed {fan_in = 4 : i64, fan_out = 2 : i64, stream = 0 : i64} : tensor<4x2xf32>
  %1 = train.init glorot %seed {fan_in = 4 : i64, fan_out = 2 : i64, stream = 0 : i64} : tensor<4x2xf32>
  return %0, %1 : tensor<4x2xf32>, tensor<4x2xf32>
}

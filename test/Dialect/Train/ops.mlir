// Every train op parses, verifies, prints and parses again.
// RUN: gnnc-opt %s | gnnc-opt | FileCheck %s
// RUN: gnnc-opt %s --mlir-print-op-generic | gnnc-opt | FileCheck %s

// CHECK-LABEL: func.func @init
func.func @init(%seed: i64) {
  // CHECK: train.init glorot %{{.*}} {fan_in = 1433 : i64, fan_out = 16 : i64, stream = 0 : i64} : tensor<1433x16xf32>
  %0 = train.init glorot %seed {fan_in = 1433 : i64, fan_out = 16 : i64, stream = 0 : i64} : tensor<1433x16xf32>
  // CHECK: train.init kaiming %{{.*}} {fan_in = 16 : i64, stream = 1 : i64} : tensor<16x7xf64>
  %1 = train.init kaiming %seed {fan_in = 16 : i64, stream = 1 : i64} : tensor<16x7xf64>
  // CHECK: train.init zeros %{{.*}} {stream = 2 : i64} : tensor<16xf32>
  %2 = train.init zeros %seed {stream = 2 : i64} : tensor<16xf32>
  // CHECK: train.init ones %{{.*}} {stream = 3 : i64} : tensor<16xf32>
  %3 = train.init ones %seed {stream = 3 : i64} : tensor<16xf32>
  return
}

// CHECK-LABEL: func.func @loss
func.func @loss(%l: tensor<5x3xf32>, %y: tensor<5xi32>, %m: tensor<5xi1>, %d: tensor<f32>) -> (tensor<f32>, tensor<5x3xf32>) {
  // CHECK: train.cross_entropy %{{.*}}, %{{.*}}, %{{.*}} {class_weights = #train<class_weights balanced>, label_smoothing = 1.000000e-01 : f64} : (tensor<5x3xf32>, tensor<5xi32>, tensor<5xi1>) -> tensor<f32>
  %0 = train.cross_entropy %l, %y, %m {label_smoothing = 0.1 : f64, class_weights = #train<class_weights balanced>} : (tensor<5x3xf32>, tensor<5xi32>, tensor<5xi1>) -> tensor<f32>
  // CHECK: train.cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<5x3xf32>, tensor<5xi32>, tensor<5xi1>, tensor<f32>) -> tensor<5x3xf32>
  %1 = train.cross_entropy_grad %l, %y, %m, %d : (tensor<5x3xf32>, tensor<5xi32>, tensor<5xi1>, tensor<f32>) -> tensor<5x3xf32>
  return %0, %1 : tensor<f32>, tensor<5x3xf32>
}

// CHECK-LABEL: func.func @optimizers
func.func @optimizers(%w: tensor<4x2xf32>, %g: tensor<4x2xf32>, %m: tensor<4x2xf32>, %v: tensor<4x2xf32>, %t: i64) {
  // CHECK: %{{.*}}, %{{.*}}, %{{.*}} = train.adam %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {beta1 = 9.000000e-01 : f64, beta2 = 0.99899999999999999 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-02 : f64, weight_decay = 5.000000e-04 : f64} : tensor<4x2xf32>
  %0:3 = train.adam %w, %g, %m, %v, %t {lr = 0.01 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 5.0e-4 : f64} : tensor<4x2xf32>
  // CHECK: train.adam {{.*}} decoupled
  %1:3 = train.adam %w, %g, %m, %v, %t {lr = 0.01 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 1.0e-2 : f64, decoupled} : tensor<4x2xf32>
  // CHECK: train.sgd %{{.*}}, %{{.*}} {lr = 1.000000e-01 : f64} : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %2 = train.sgd %w, %g {lr = 0.1 : f64} : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  // CHECK: train.sgd %{{.*}}, %{{.*}}, %{{.*}} {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, nesterov} : (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>)
  %3:2 = train.sgd %w, %g, %m {lr = 0.1 : f64, momentum = 0.9 : f64, nesterov} : (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>)
  return
}

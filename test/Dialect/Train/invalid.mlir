// Op verifiers of the train dialect.
// RUN: gnnc-opt %s -split-input-file -verify-diagnostics

func.func @glorot_fans(%seed: i64) {
  // expected-error @+1 {{needs positive fan_in + fan_out}}
  %0 = train.init glorot %seed {stream = 0 : i64} : tensor<4x2xf32>
  return
}

// -----

func.func @kaiming_fan(%seed: i64) {
  // expected-error @+1 {{needs positive fan_in}}
  %0 = train.init kaiming %seed {fan_out = 2 : i64, stream = 0 : i64} : tensor<4x2xf32>
  return
}

// -----

func.func @labels_rows(%l: tensor<5x3xf32>, %y: tensor<4xi32>, %m: tensor<5xi1>) {
  // expected-error @+1 {{labels and mask need one entry per logits row}}
  %0 = train.cross_entropy %l, %y, %m : (tensor<5x3xf32>, tensor<4xi32>, tensor<5xi1>) -> tensor<f32>
  return
}

// -----

func.func @smoothing(%l: tensor<5x3xf32>, %y: tensor<5xi32>, %m: tensor<5xi1>) {
  // expected-error @+1 {{label_smoothing must be in [0, 1), got 1.5}}
  %0 = train.cross_entropy %l, %y, %m {label_smoothing = 1.5 : f64} : (tensor<5x3xf32>, tensor<5xi32>, tensor<5xi1>) -> tensor<f32>
  return
}

// -----

func.func @labels_type(%l: tensor<5x3xf32>, %y: tensor<5xf32>, %m: tensor<5xi1>) {
  // expected-error @+1 {{operand #1 must be 1D tensor of 32-bit signless integer values}}
  %0 = train.cross_entropy %l, %y, %m : (tensor<5x3xf32>, tensor<5xf32>, tensor<5xi1>) -> tensor<f32>
  return
}

// -----

func.func @grad_type(%l: tensor<5x3xf32>, %y: tensor<5xi32>, %m: tensor<5xi1>, %d: tensor<f32>) {
  // expected-error @+1 {{result type must equal the logits type}}
  %0 = train.cross_entropy_grad %l, %y, %m, %d : (tensor<5x3xf32>, tensor<5xi32>, tensor<5xi1>, tensor<f32>) -> tensor<5x2xf32>
  return
}

// -----

func.func @adam_types(%w: tensor<4x2xf32>, %g: tensor<4x3xf32>, %t: i64) {
  // expected-error @+1 {{all of {param, grad, m, v, new_param, new_m, new_v} have same type}}
  %0:3 = "train.adam"(%w, %g, %w, %w, %t) {lr = 0.01 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.0 : f64} : (tensor<4x2xf32>, tensor<4x3xf32>, tensor<4x2xf32>, tensor<4x2xf32>, i64) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>)
  return
}

// -----

func.func @sgd_buffer(%w: tensor<4x2xf32>, %g: tensor<4x2xf32>) {
  // expected-error @+1 {{has a momentum buffer (operand and result) exactly when momentum > 0}}
  %0 = train.sgd %w, %g {lr = 0.1 : f64, momentum = 0.9 : f64} : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @sgd_nesterov(%w: tensor<4x2xf32>, %g: tensor<4x2xf32>) {
  // expected-error @+1 {{nesterov needs momentum > 0}}
  %0 = train.sgd %w, %g {lr = 0.1 : f64, nesterov} : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}

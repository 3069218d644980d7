//===- TrainOps.td - train dialect -------------------------*- tablegen -*-===//
//
// The training step: loss, its gradient, optimizer updates and parameter
// initialisation. gnn-autodiff produces it; nothing below this layer knows
// about models, only about step functions whose arguments carry roles.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_TRAIN_OPS
#define GNNC_TRAIN_OPS

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Train_Dialect : Dialect {
  let name = "train";
  let cppNamespace = "::mlir::train";
  let summary = "Training steps: loss, optimizer updates, initialisation";
  let description = [{
    gnn-autodiff turns a model function into functions with fixed roles:
    `@M.init` (seed to parameters and optimizer state), `@M.step` (one
    optimizer step: forward, loss, reverse sweep, update; all state passed
    in and returned as values) and `@M.predict` (the forward pass without
    dropout). With `accumulate = k > 1` the step is split into `@M.grad_step`
    (one micro-batch, adding its gradients into accumulators) and
    `@M.apply_step` (the update with the mean of the accumulated gradients).
    Function arguments and results carry `train.role` ("param", "grad_acc",
    "adam.m", "adam.v", "sgd.momentum", "loss", ...) and `gnn.param` names, so
    a runtime can bind them without knowing the model.
  }];
  let useDefaultAttributePrinterParser = 1;
}

class Train_Op<string mnemonic, list<Trait> traits = []>
    : Op<Train_Dialect, mnemonic, !listconcat([Pure], traits)>;

def Train_InitKind : I32EnumAttr<"InitKind", "parameter initialisation", [
    I32EnumAttrCase<"glorot", 0>, I32EnumAttrCase<"kaiming", 1>,
    I32EnumAttrCase<"zeros", 2>, I32EnumAttrCase<"ones", 3>]> {
  let cppNamespace = "::mlir::train";
  let genSpecializedAttr = 0;
}
def Train_InitKindAttr : EnumAttr<Train_Dialect, Train_InitKind, "init"> {
  let summary = "a parameter initialisation scheme";
  let description = [{
    `glorot` and `kaiming` (uniform, Philox-drawn), `zeros`, `ones`; see `train.init`. MLIRGen also puts it on parameter arguments as `train.init`.

    Example: `#train<init glorot>`
  }];
}

def Train_ClassWeights : I32EnumAttr<"ClassWeights", "loss class weights", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"balanced", 1>]> {
  let cppNamespace = "::mlir::train";
  let genSpecializedAttr = 0;
}
def Train_ClassWeightsAttr
    : EnumAttr<Train_Dialect, Train_ClassWeights, "class_weights"> {
  let summary = "per-class weights of the loss";
  let description = [{
    `none` or `balanced` (n / (C n_c) over the masked nodes); see `train.cross_entropy`.

    Example: `#train<class_weights balanced>`
  }];
}

def Train_FloatTensor : RankedTensorOf<[AnyFloat]>;
def Train_Logits : 2DTensorOf<[AnyFloat]>;
def Train_Scalar : 0DTensorOf<[AnyFloat]>;
def Train_Labels : 1DTensorOf<[I32]>;
def Train_Mask : 1DTensorOf<[I1]>;

def Train_InitOp : Train_Op<"init"> {
  let summary = "a freshly initialised parameter";
  let description = [{
    `glorot`: uniform in `[-a, a]`, `a = sqrt(6 / (fan_in + fan_out))`;
    `kaiming`: uniform with `a = sqrt(6 / fan_in)`; `zeros`, `ones`.
    Element `i` (row-major) draws `u = (r + 0.5) * 2^-32` from word `i mod 4`
    of Philox4x32-10 with key `(seed mod 2^32, seed / 2^32)` and counter
    `(b mod 2^32, b / 2^32, stream, 0xFFFFFFFF)`, `b = i / 4`, and is
    `(2u - 1) a`. `stream` numbers the parameters, so each gets its own draw
    and one seed fixes them all.

    Example:
    ```mlir
    %w = train.init glorot %seed {fan_in = 1433 : i64, fan_out = 16 : i64, stream = 0 : i64} : tensor<1433x16xf32>
    ```
  }];
  let arguments = (ins Train_InitKindAttr:$kind, I64:$seed,
      DefaultValuedAttr<I64Attr, "0">:$fan_in,
      DefaultValuedAttr<I64Attr, "0">:$fan_out,
      ConfinedAttr<I64Attr, [IntNonNegative]>:$stream);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "`` $kind $seed attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Train_CrossEntropyOp : Train_Op<"cross_entropy"> {
  let summary = "masked mean cross-entropy of logits against labels";
  let description = [{
    Over the nodes `i` with `mask[i]` and `labels[i] >= 0`, with
    `p = log_softmax(logits[i])`, `C` classes and smoothing `s`:
    `l_i = -((1 - s) p[y_i] + (s / C) sum_c p[c])`, and the loss is
    `sum w_{y_i} l_i / sum w_{y_i}`, where `w` is 1 (`none`) or, for
    `balanced`, `n / (C * n_c)` with `n_c` the masked count of class `c` (as
    scikit-learn's "balanced"). An empty mask gives 0.

    Example:
    ```mlir
    %l = train.cross_entropy %logits, %labels, %mask {label_smoothing = 0.0 : f64, class_weights = #train<class_weights none>}
        : (tensor<2708x7xf32>, tensor<2708xi32>, tensor<2708xi1>) -> tensor<f32>
    ```
  }];
  let arguments = (ins Train_Logits:$logits, Train_Labels:$labels,
      Train_Mask:$mask, DefaultValuedAttr<F64Attr, "0.0">:$label_smoothing,
      DefaultValuedAttr<Train_ClassWeightsAttr,
                        "::mlir::train::ClassWeights::none">:$class_weights);
  let results = (outs Train_Scalar:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Train_CrossEntropyGradOp : Train_Op<"cross_entropy_grad"> {
  let summary = "cotangent of train.cross_entropy with respect to the logits";
  let description = [{
    `dlogits[i] = dloss * w_{y_i} (softmax(logits[i]) - q_i) / sum w` for the
    counted nodes (0 elsewhere), `q_i` being the smoothed one-hot target.

    Example:
    ```mlir
    %d = train.cross_entropy_grad %logits, %labels, %mask, %dl {label_smoothing = 0.0 : f64}
        : (tensor<2708x7xf32>, tensor<2708xi32>, tensor<2708xi1>, tensor<f32>) -> tensor<2708x7xf32>
    ```
  }];
  let arguments = (ins Train_Logits:$logits, Train_Labels:$labels,
      Train_Mask:$mask, Train_Scalar:$loss_grad,
      DefaultValuedAttr<F64Attr, "0.0">:$label_smoothing,
      DefaultValuedAttr<Train_ClassWeightsAttr,
                        "::mlir::train::ClassWeights::none">:$class_weights);
  let results = (outs Train_Logits:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Train_AdamOp : Train_Op<"adam",
    [AllTypesMatch<["param", "grad", "m", "v", "new_param", "new_m", "new_v"]>]> {
  let summary = "one Adam or AdamW update";
  let description = [{
    PyTorch's `torch.optim.Adam` / `AdamW` for update number `step` (from 1):
    `g = grad + weight_decay * param` (Adam only); `m = beta1 m + (1-beta1) g`;
    `v = beta2 v + (1-beta2) g^2`; `mh = m / (1 - beta1^step)`,
    `vh = v / (1 - beta2^step)`; with `decoupled` (AdamW) first
    `param *= 1 - lr * weight_decay`; then `param -= lr mh / (sqrt(vh) + eps)`.

    Example:
    ```mlir
    %w1, %m1, %v1 = train.adam %w, %g, %m, %v, %step {lr = 1.0e-02 : f64, beta1 = 0.9 : f64,
        beta2 = 0.999 : f64, eps = 1.0e-08 : f64, weight_decay = 5.0e-04 : f64} : tensor<16xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$param, Train_FloatTensor:$grad,
      Train_FloatTensor:$m, Train_FloatTensor:$v, I64:$step, F64Attr:$lr,
      F64Attr:$beta1, F64Attr:$beta2, F64Attr:$eps, F64Attr:$weight_decay,
      UnitAttr:$decoupled);
  let results = (outs Train_FloatTensor:$new_param, Train_FloatTensor:$new_m,
      Train_FloatTensor:$new_v);
  let assemblyFormat = "operands attr-dict `:` type($param)";
}

def Train_SgdOp : Train_Op<"sgd"> {
  let summary = "one SGD update, with optional momentum and Nesterov";
  let description = [{
    PyTorch's `torch.optim.SGD` (dampening 0):
    `g = grad + weight_decay * param`; with momentum, `buf = momentum buf + g`
    (the buffer starts at zero, which equals PyTorch's first-step copy) and
    `g = nesterov ? g + momentum buf : buf`; then `param -= lr g`. The
    `momentum_buffer` operand and result exist exactly when `momentum > 0`.

    Example:
    ```mlir
    %w1, %b1 = train.sgd %w, %g, %b {lr = 0.1 : f64, momentum = 0.9 : f64, weight_decay = 0.0 : f64}
        : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>)
    ```
  }];
  let arguments = (ins Train_FloatTensor:$param, Train_FloatTensor:$grad,
      Optional<Train_FloatTensor>:$momentum_buffer, F64Attr:$lr,
      DefaultValuedAttr<F64Attr, "0.0">:$momentum,
      DefaultValuedAttr<F64Attr, "0.0">:$weight_decay, UnitAttr:$nesterov);
  let results = (outs Train_FloatTensor:$new_param,
      Optional<Train_FloatTensor>:$new_momentum_buffer);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif // GNNC_TRAIN_OPS

//===- Passes.td - gnnc passes -----------------------------*- tablegen -*-===//
//
// Every gnnc pass, declared once. Each is implemented in a file of the same
// name (gnn-decompose -> Graph/Decompose.cpp) and tested by a lit test of
// the same name (test/Passes/decompose.mlir).
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_PASSES
#define GNNC_PASSES

include "mlir/Pass/PassBase.td"

def GnnDecompose : Pass<"gnn-decompose", "::mlir::ModuleOp"> {
  let summary = "Rewrite layer ops into gnn primitives";
  let description = [{
    Replaces every layer op (`gnn.gcn_conv`, `gnn.sage_conv`, `gnn.gat_conv`,
    `gnn.graph_conv`, `gnn.gin_conv`, `gnn.linear`, `gnn.batch_norm`,
    `gnn.layer_norm`) by primitives. Graph-derived values (the graph with
    self loops, GCN's symmetric edge weights) are created once per function
    at its entry and shared by every layer that needs them. Each new op
    keeps the layer's location, so later errors point at the `.gnn` line.
  }];
  let dependentDialects = ["::mlir::gnn::GnnDialect"];
  let statistics = [
    Statistic<"numLayers", "layers", "Number of layer ops decomposed">,
  ];
}

def GnnAutodiff : Pass<"gnn-autodiff", "::mlir::ModuleOp"> {
  let summary = "Build the training step: forward, loss, gradients, update";
  let description = [{
    For every decomposed model function carrying a `train.config`
    attribute, creates `@M.init`, `@M.step` (or `@M.grad_step` and
    `@M.apply_step` when `accumulate > 1`) and `@M.predict` in the `train`
    dialect, and erases the model function. Gradients come from reverse-mode
    differentiation through `DifferentiableOpInterface`; layer ops must be
    decomposed first.
  }];
  let dependentDialects = ["::mlir::gnn::GnnDialect",
                           "::mlir::train::TrainDialect",
                           "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numAdjoints", "adjoints", "Number of adjoint rules applied">,
  ];
}

def GnnHoistGraphPrep : Pass<"gnn-hoist-graph-prep", "::mlir::ModuleOp"> {
  let summary = "Compute graph-derived values once per bound graph";
  let description = [{
    `gnn.add_self_loops`, `gnn.edge_norm` and `gnn.transpose` of the input
    graph depend on the graph alone (ops with the `GraphDerived` trait), yet
    the step and predict functions rebuilt them on every call: 10% of a
    Cora epoch on the CPU. For each train block `M`, the pass moves every
    op with that trait whose operands are the `gnn.input = "graph"`
    argument or results of such ops into a new function
    `@M.prepare(%graph) -> (...)`, one op for equal ops of different
    functions (same name, attributes, operands). Each prepare result used
    by an op that stays behind becomes a result carrying
    `gnn.prepared = k`, and every function that used it takes it as a new
    last argument `{gnn.input = "prepared", gnn.prepared = k}`.

    The runtime calls `@M.prepare` once when it binds a graph and keeps its
    results (and its arena, which holds the new graphs' arrays) for the
    session; the values are those the functions computed, bit for bit. A
    block without graph-derived ops gets no prepare function.
  }];
  let statistics = [
    Statistic<"numPrepared", "prepared-values",
              "Graph-derived values computed once per graph">,
  ];
}

def GnnSparseFeatures : Pass<"gnn-sparse-features", "::mlir::ModuleOp"> {
  let summary = "Store mostly-zero input features as CSR (#gnn.csr)";
  let description = [{
    Input features are usually sparse bag-of-words rows (Cora 1.3% non-zero,
    CiteSeer 0.9%, Facebook 0.3%), yet the dense form makes them the largest
    tensor of the step and the product `x W` the largest cost: on Cora, 72%
    of a CPU epoch was sgemm over 98.7% zeros and 12% dropout over them.

    For every function argument with `gnn.input = "features"` and a
    `gnn.nnz` (stored slots of the bound dataset, set by MLIRGen), when
    `nnz / (rows * cols) <= max-density`, the pass retypes the argument to
    `tensor<R x C x f32, #gnn.csr<nnz = Z>>` together with every
    `gnn.dropout` chain over it. It does so only when each use of those
    values is a `gnn.dropout` input or the left operand of a `gnn.matmul`
    (plain or `transpose_a`: the weight gradient `dropout(x)^T g`), which
    are the forms back ends implement; otherwise, e.g. when a SAGE layer
    aggregates `x` itself, the function keeps dense features. Values do not
    change: `#gnn.csr` is storage only, dropout keeps the slots (dropped
    elements become explicit zeros, with the same mask as the dense form).

    Why 10% by default: a CSR product does 1/density fewer multiply-adds
    than sgemm but runs at a fraction of its rate (no register blocking, an
    index load per product), and dropout copies the pattern (5 int32 words
    per slot); at 10% the CSR form still does 10x less work, a margin that
    covers sgemm's higher rate.
  }];
  let options = [
    Option<"maxDensity", "max-density", "double", /*default=*/"0.1",
           "Largest fraction of non-zeros stored as CSR (0 keeps every "
           "feature matrix dense)">,
  ];
  let statistics = [
    Statistic<"numSparse", "sparse-arguments",
              "Feature arguments given the #gnn.csr encoding">,
  ];
}

def GnnAssignBuffers : Pass<"gnn-assign-buffers", "::mlir::ModuleOp"> {
  let summary = "Give every intermediate tensor a static offset in one arena";
  let description = [{
    For every function (a single block of ops, in order), computes each op
    result's live interval `[defining op, last use]` (a `gnn.transpose` is a
    view: its uses keep its graph operand alive) and places every value that
    needs storage in one arena, first fit by definition order, sizes and
    offsets rounded up to 64 bytes. Values whose intervals overlap never
    share bytes, so an op's outputs never alias its inputs.

    Storage: a statically shaped tensor takes its elements times their byte
    width (i1 as one byte, f32 and i32 four, f64 and i64 eight); a
    `#gnn.csr` matrix takes `gnnrt_csr_matrix_bytes(R, C, nnz)` (its CSR
    and CSC index arrays and its values, gnnrt/Kernels.h); a
    `gnn.add_self_loops` result takes the int32 CSR arrays of both of its
    views, `4 * 2 * (N + 1 + 2 * E)` bytes for `!gnn.graph<NxE>`
    (`gnnrt_cpu_add_self_loops_storage` of the input). Graph views
    (`gnn.transpose`), rng keys and integer scalars take none. A value that
    needs storage but has a dynamic shape is an error.

    Results are recorded on each op as `gnn.offsets = array<i64: ...>`, one
    entry per result:
    * `>= 0`: the byte offset of the result in the arena;
    * `-1`: no storage (a view, a key, a scalar);
    * `-2`: the result is returned by the function and is written directly
      into the caller's result buffer; the op then also carries
      `gnn.result_slots = array<i64: ...>` giving, per result, the index of
      the function result it is written to (the first, when a value is
      returned several times; -1 for results that are not returned).
    Function arguments and tensor results are caller-owned and never in
    the arena. A returned graph is a struct the caller receives (the
    results of `@M.prepare`): the arrays of a returned `gnn.add_self_loops`
    stay in the arena, which that function's caller keeps.
    Each function gets `gnn.arena_bytes = <i64>`, the arena's size (a
    multiple of 64, 0 when nothing needs storage).

    Example: in a chain `%a = f(%x); %b = f(%a); %c = f(%b)` of 64-byte
    tensors, `%a` and `%c` share offset 0 and `%b` takes 64 (it overlaps
    both), so `gnn.arena_bytes = 128`.
  }];
  let statistics = [
    Statistic<"numBuffers", "buffers", "Number of values placed in an arena">,
  ];
}

#endif // GNNC_PASSES

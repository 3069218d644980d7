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
    at its entry and shared by every layer that needs them. GAT's per-head
    attention scores are one product of the projected features with the
    attention vector laid over `gnn.head_matrix spread` (a `[heads, H*F]`
    matrix), so neither they nor their adjoints build an `[N, H*F]` tensor
    besides the features. Each new op keeps the layer's location, so later
    errors point at the `.gnn` line.

    A `gat_conv` that concatenates several heads is rewritten head by head
    (each head's scores, attention and aggregation, the outputs joined by
    `gnn.concat`) when `split-heads` is `always`, or, with `auto`, when the
    function's `train.config` memory budget is below what its aggregation
    needs whole (the projected features, a result as wide and the
    `[E, heads]` attention): then a head needs a head's share. The values
    are the same bits either way (docs/MemoryPlanning.md, "GAT by heads").
  }];
  let options = [
    Option<"splitHeads", "split-heads", "std::string", /*default=*/"\"auto\"",
           "Rewrite multi-head gat_conv head by head: auto (when the "
           "budget is below its whole aggregation's need), always, never">,
  ];
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

def GnnRestrictRows : Pass<"gnn-restrict-rows", "::mlir::ModuleOp"> {
  let summary = "Compute only the rows the loss depends on";
  let description = [{
    A node-classification loss reads the rows of its training mask only
    (Facebook: 80 of 22,470 nodes), so the last aggregation is needed at
    those rows, the one before it at their in-neighbours, and so on; and
    the loss gradient is zero outside the mask, so each aggregation over
    the transposed graph spreads it by one hop only. A step that computes
    every row does most of its work on rows nothing reads or on zeros.

    In a function with a `train.cross_entropy_grad` whose mask is an
    argument, the pass adds one `gnn.receptive_rows` of the input graph and
    that mask, and two analyses over node tensors (one row per node):
    *support*, the least `k` such that the tensor is zero outside `R_k`
    (the loss gradient: 0; a sum over the transposed graph: one more than
    its input's; element-wise products, dropout and `x W` keep it), and
    *demand*, the least `k` such that no use reads the tensor outside
    `R_k` (the loss: 0; an aggregation over the graph: one more than its
    result's; row-wise ops pass it on; a sum over rows, `a^T b` or
    `reduce` over dim 0, needs only the rows where its operands can be
    non-zero), capped by the support. Then:

    * `gnn.spmm` (sum or mean, no or `[E]` weights) with a bounded demand
      computes only `R_demand` (`level`), and skips the sources outside
      `R_support` of its input (`skip`);
    * `gnn.dropout` of CSR features and `gnn.matmul` with a CSR left
      operand compute only `R_demand`; `dropout(x)^T g` sums only over the
      rows of `R_k` where `g` can be non-zero;
    * edge tensors (a row per edge, GAT's scores and attention) get levels
      by their destinations: the edge kernels (`gnn.sddmm`,
      `gnn.edge_add`, `gnn.edge_softmax` and its gradient) compute only
      the edges into `R_demand`, the scatters and the per-head aggregation
      only `R_demand`'s rows; element-wise ops over edge tensors and their
      dropout take the sets of one `gnn.receptive_edges` (`E_k`, the edges
      into `R_k`) as their rows.

    Rows outside a restricted op's set are written as 0, so every other op
    still reads finite values and needs no change; values at the rows that
    matter are the same (the skipped terms are zeros). Functions without
    such a loss (`predict`) are left alone, as are ops of other kinds.
  }];
  let options = [
    Option<"edgeRows", "edge-rows", "bool", /*default=*/"true",
           "Restrict element-wise ops over edge tensors with the sets of a "
           "gnn.receptive_edges (1.25 integers per edge, live from the "
           "first edge op on); false: they compute every edge">,
  ];
  let dependentDialects = ["::mlir::gnn::GnnDialect"];
  let statistics = [
    Statistic<"numRestricted", "restricted-ops",
              "Ops computing only some rows">,
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
    needs storage in one arena, sizes and offsets rounded up to 64 bytes:
    in definition order and largest first, each value at the lowest free
    offset (first fit) or in the slot freed last before it begins; while
    the arena is above the live-bytes peak, a bounded, deterministic local
    search over orders; the smallest arena found is kept. Values whose intervals overlap never share bytes, with one
    exception: an element-wise op (add, sub, mul, scale, an activation or
    its gradient, bias_add, row_mul, dense dropout), an edge softmax or its
    gradient writes its result over the first operand it reads at the
    element that dies at it and has the same slot size, since every kernel
    of these ops on both targets reads an element before it writes it. Such a chain of results is one slot, and
    the op needs one buffer where it would need two (a GCN's bias_add over
    its aggregation, the ReLU gradient over the incoming gradient). No other
    op's outputs alias its inputs.

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
    the arena, except in a function marked `gnn.results_in_arena` (the
    predict function, whose caller reads the logits right after the call):
    there a returned tensor that an op computes is an arena value live to
    the end, so it reuses the bytes of values dead before it, and the
    function gets `gnn.result_offsets = array<i64: ...>`, per result its
    offset in the arena or -1. A returned graph is a struct the caller receives (the
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

def GnnPlanMemory : Pass<"gnn-plan-memory", "::mlir::ModuleOp"> {
  let summary = "Give every tensor the backward pass needs a fate under the "
                "device budget";
  let description = [{
    For every training step (a function with `train.config` that returns a
    `train.role = "loss"` result), decides for each saved tensor (defined in
    the forward part, read again by the backward part after at least one op
    in between) whether it is kept, recomputed, offloaded to host memory or
    disk, stored narrow, or kept as its signs, so that the step fits the device budget at the
    lowest predicted step time, and rewrites the step with `mem` ops.

    The budget is the train block's `memory` (or the `budget` option); the
    session's fixed bytes besides the step's arena (labels, masks, outputs,
    and the graph unless only prepare reads it, in which case the session
    frees it after prepare) are subtracted first. The residents, the
    features, every parameter and optimizer state (two copies each) and
    `@M.prepare`'s values, are candidates too: kept on the device, or given
    a host home (`mem.home = "host"` on the argument and result,
    `mem.load_home` before the first use or before each use,
    `mem.store_home` right after the op computing the new value), and init
    and predict get the same homes. Prepare's graphs, which share its
    arena, are one candidate; with a host home prepare builds them in host
    memory and the step copies in the one CSR view each op reads
    (`mem.load_graph_home`), or the aggregations read the view and the edge
    weights from host memory a tile at a time (`tile_bytes`), in tiles of
    the runtime's size or a quarter of it. A tensor of at least 4 KiB that
    the backward pass computes and reads only after an op in between (a
    weight gradient waiting for the optimizer) is a candidate too, kept or
    parked in host memory or on disk meanwhile, never recomputed or
    narrowed. `host_memory` and `disk = spill(dir, size)` bound
    the other tiers; without `disk`, nothing goes to disk. Narrow storage
    (bf16, or f16) is only considered when `saved_precision` is not `exact`.

    Options per candidate, over a timeline of two points per op (the
    boundary before it, where `mem` ops go, and the op):
    * keep: the value's life is unchanged;
    * recompute: a `mem.recompute` before the first backward use re-runs
      the forward ops from inputs live there anyway; one recipe stops at
      other saved values (which the plan must then keep), one goes through
      them; the region's other results are transient bytes at that point;
    * host, disk: `mem.offload` after the last forward use (`mem.handle`
      numbers the copies), `mem.prefetch` and `mem.free` of the copy before
      the first backward use;
    * narrow: `mem.store_as` / `mem.load_as` at the same points;
    * sign, for a tensor only relu and leaky_relu gradients read (they need
      `x > 0` alone): `mem.store_sign` / `mem.load_sign` at the same
      points, a bit an element over the gap, exact at any
      `saved_precision` (the `signs` option; off for the CUDA target). A
      room that no plan places is tried again without signs.
    Costs come from the cost model (CostModel.h; the `profile` option, or
    the built-in default). The `policy` (default: the train block's `plan`)
    `auto` solves exactly (branch and bound; `solver=greedy` or `ilp` for
    GLPK), `keep_all`, `recompute_all` and `offload_all` force one fate.
    `checkpoint_layers` (for comparisons; not a language value) keeps the
    inputs of every layer (the forward ops of one layer call, found by the
    parameters they read) and the residents, and recomputes every other
    saved tensor by its cheapest recipe reading only those, as
    torch.utils.checkpoint around each layer would.
    Each plan is placed as gnn-assign-buffers will place it and solved
    again with less room while fragmentation pushes the arena over.

    A budget no plan fits is an error stating the smallest budget that has
    one. The step gets `mem.plan` (#mem.plan: budget, predicted peak per
    tier, predicted and keep-all seconds, policy), `mem.num_handles`,
    `mem.fates` (one dictionary per candidate: name, bytes, fate, seconds,
    schedule positions, location) and `mem.device_curve`/`mem.host_curve`/
    `mem.disk_curve` (bytes per timeline point), `mem.solver` (the solver
    that chose the fates, `none` under a forced policy) and
    `mem.loss_point` (the loss's timeline point, where the backward part
    starts), and, when not 0, `mem.cache_seconds` (the cache's part of
    predicted minus keep-all seconds), which `gnnc plan` prints, and, where
    the aggregations were split, `mem.split_seconds` (the blocks' part:
    keep-all seconds are then the unsplit step's). With a
    profile that has a cache, `auto` also plans the room of half the cache
    and keeps that plan when its prediction is lower (docs/CostModel.md).
  }];
  let dependentDialects = ["::mlir::mem::MemDialect"];
  let options = [
    Option<"budget", "budget", "int64_t", /*default=*/"-1",
           "Device budget in bytes (-1: the train block's `memory`)">,
    Option<"policy", "policy", "std::string", /*default=*/"\"\"",
           "auto, keep_all, recompute_all, offload_all or "
           "checkpoint_layers (default: the train block's `plan`)">,
    Option<"solver", "solver", "std::string", /*default=*/"\"auto\"",
           "auto (greedy, then a bounded exact search from its plan), exact, greedy, ilp">,
    Option<"profile", "profile", "std::string", /*default=*/"\"\"",
           "Machine profile: a JSON file, or a shipped profile's name, "
           "cpu-default or cuda-default (default: cpu-default)">,
    Option<"cache", "cache", "bool", /*default=*/"true",
           "Price the profile's cache (the CPU target, whose arena is host "
           "memory; off for the CUDA target)">,
    Option<"signs", "signs", "bool", /*default=*/"true",
           "Offer the sign fate, mem.store_sign (the CPU target; the CUDA "
           "target has no kernels for it yet)">,
    Option<"hostReads", "host-reads", "bool", /*default=*/"true",
           "Offer fates whose kernels read host memory: host homes of the "
           "residents and prepare's graphs, and saved matrices products "
           "read a tile at a time from host memory (the CPU target; the "
           "CUDA target's kernels read device memory only)">,
  ];
  let statistics = [
    Statistic<"numCandidates", "candidates", "Saved tensors given a fate">,
    Statistic<"numRecomputed", "recomputed", "Tensors recomputed">,
    Statistic<"numOffloaded", "offloaded", "Tensors offloaded to host or disk">,
    Statistic<"numNarrowed", "narrowed", "Tensors stored in a narrower type">,
    Statistic<"numSigned", "signed", "Tensors kept as their signs">,
  ];
}

def GnnSplitAggregations : Pass<"gnn-split-aggregations", "::mlir::ModuleOp"> {
  let summary = "Run aggregations a block of columns at a time, in place";
  let description = [{
    Rewrites every `gnn.spmm` whose input nothing reads after it (and whose
    weights, if any, are one per edge) into `blocks` blocks of columns:
    `gnn.slice` of the input, the same `gnn.spmm` over that block, and
    `gnn.insert_columns` of its result over the same columns of the input,
    which no later block reads. The values are the same bit for bit; the
    device holds the input and two blocks instead of the input and the
    result. Only aggregations large enough to bind a plan are split
    (twice the result above `1 + 2 / blocks` times the largest one's)
    unless `every-size`. An aggregation restricted to a row set
    (gnn-restrict-rows) gives its slices the rows it reads and, when its
    rest is unread, its inserts the rows it computes. `gnn-plan-memory`
    applies it itself to the step and predict when no plan fits the budget
    otherwise; the pass exposes it for tests. With `multiply-first` it
    first rewrites `(A x) W` to `A (x W)` where the split `A (x W)` needs
    less than the whole `(A x) W` (`2 out < blocks in`: every narrowing
    `W`, a widening one below `blocks / 2` times), as `gnn-plan-memory`
    does to predict (SplitAggregations.h).
  }];
  let options = [
    Option<"blocks", "blocks", "int64_t", "8",
           "Blocks of columns per aggregation (the last one narrower when "
           "they do not divide the columns)">,
    Option<"everySize", "every-size", "bool", "false",
           "Split every aggregation that can be, however small">,
    Option<"multiplyFirstOption", "multiply-first", "bool", "false",
           "First rewrite (A x) W to A (x W) where W narrows, or widens little "
           "enough that the split A (x W) needs less (what gnn-plan-memory does "
           "to predict)">,
  ];
  let statistics = [
    Statistic<"numSplit", "split", "aggregations split into column blocks">,
    Statistic<"numMultipliedFirst", "multiplied-first",
              "widening products of an aggregation multiplied first">,
  ];
}

def MemExpandRecompute : Pass<"mem-expand-recompute", "::mlir::ModuleOp"> {
  let summary = "Inline mem.recompute regions at their recompute point";
  let description = [{
    Replaces every `mem.recompute` by clones of its region's ops placed
    where it stands (block arguments mapped to its inputs) and its results
    by the yielded values, so buffer assignment and the emitters see one
    flat block in which the recomputed ops are ordinary ops. Runs after
    gnn-plan-memory; no CSE may run after it (it would merge the clones with
    the originals and undo the plan).
  }];
  let statistics = [
    Statistic<"numExpanded", "expanded", "mem.recompute ops inlined">,
  ];
}

def MemHoistPrefetches : Pass<"mem-hoist-prefetches", "::mlir::ModuleOp"> {
  let summary = "Issue each host prefetch as soon as its arena bytes are free";
  let description = [{
    Runs after gnn-assign-buffers, for the CUDA target, whose prefetches
    from host memory run on the copy stream. gnn-plan-memory puts a
    `mem.prefetch` at the boundary before the tensor's first backward
    reader; once buffers are placed, its bytes are often free well before
    that. This pass moves each whole-tensor prefetch from the host tier up
    to just after the last op that reads or writes any of those bytes
    (by `gnn.offsets` and the values' sizes), never above its `mem.offload`,
    so the copy overlaps the ops in between. The arena, the peaks and the
    results are unchanged: no op between touches the bytes. An op with
    regions, or a value whose place cannot be told, stops the move. Disk
    prefetches (synchronous reads) and row or tile reads stay where they
    are.
  }];
  let statistics = [
    Statistic<"numHoisted", "hoisted", "mem.prefetch ops moved up">,
  ];
}

#endif // GNNC_PASSES

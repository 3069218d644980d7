//===- GnnOps.td - gnn dialect operations ------------------*- tablegen -*-===//
//
// Three groups: graph ops (derived once per graph), layer ops (what MLIRGen
// emits, one per `.gnn` operator call) and primitives (what gnn-decompose
// leaves and what every backend implements). Keep the primitives few: each
// one costs a kernel per backend and a rule in autodiff.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_GNN_OPS
#define GNNC_GNN_OPS

include "dialects/Gnn/GnnBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

class Gnn_Op<string mnemonic, list<Trait> traits = []>
    : Op<Gnn_Dialect, mnemonic, !listconcat([Pure], traits)>;

// Ops with this trait depend on the graph only: the runtime computes them
// once per bound graph and the planner treats them as graph data.
def Gnn_GraphDerived : NativeOpTrait<"GraphDerived"> {
  let cppNamespace = "::mlir::gnn";
}
// Ops with this trait are layers: gnn-decompose must rewrite them before
// autodiff, planning or code generation.
def Gnn_Layer : NativeOpTrait<"Layer"> {
  let cppNamespace = "::mlir::gnn";
}

// The nested row sets of gnn.receptive_rows (layout there), which
// gnn-restrict-rows hands to the ops that compute only some rows.
def Gnn_RowSets : 1DTensorOf<[I32]>;
def Gnn_RowLevelAttr : ConfinedAttr<I64Attr, [IntNonNegative]>;
// The optional restriction of a row-wise op to the rows of R_level: set by
// gnn-restrict-rows only, so every other op builds these ops without it.
defvar Gnn_RowArgs = (ins Optional<Gnn_RowSets>:$row_sets,
                          OptionalAttr<Gnn_RowLevelAttr>:$level);
// In the assembly formats: (`rows` $row_sets^ `:` type($row_sets))?
// The verifier of a row-wise op whose one check beyond ODS's own is its
// restriction (checkRowWise in GnnOps.cpp): with `let hasVerifier = 1`,
// `let extraClassDefinition = Gnn_RowWiseVerifier;`.
defvar Gnn_RowWiseVerifier = [{
  ::mlir::LogicalResult $cppClass::verify() {
    return checkRowWise(*this, getRowSets(), getLevelAttr());
  }
}];

//===----------------------------------------------------------------------===//
// Graph ops
//===----------------------------------------------------------------------===//

def Gnn_AddSelfLoopsOp : Gnn_Op<"add_self_loops", [Gnn_GraphDerived]> {
  let summary = "the graph with one self loop added to every node";
  let description = [{
    Returns `A + I`: the input's edges (same ids `0 .. E-1`) followed by one
    loop `i -> i` for every node `i` (edge id `E + i`). Datasets are loaded
    without self loops (the runtime drops any it finds), so the result has
    exactly `E + N` edges.

    Example:
    ```mlir
    %g1 = gnn.add_self_loops %g : !gnn.graph<2708x10556> -> !gnn.graph<2708x13264>
    ```
  }];
  let arguments = (ins Gnn_GraphType:$graph);
  let results = (outs Gnn_GraphType:$result);
  let assemblyFormat = "$graph attr-dict `:` type($graph) `->` type($result)";
  let hasVerifier = 1;
}

def Gnn_TransposeOp : Gnn_Op<"transpose",
    [Gnn_GraphDerived, AllTypesMatch<["graph", "result"]>]> {
  let summary = "the graph with every edge reversed, edge ids kept";
  let description = [{
    Edge `e` of the result goes from `dst(e)` to `src(e)` of the input. Edge
    ids are unchanged, so edge tensors (weights, attention) apply to both
    views. The backward pass of an aggregation runs over this view.

    Example:
    ```mlir
    %gt = gnn.transpose %g : !gnn.graph<2708x13264>
    ```
  }];
  let arguments = (ins Gnn_GraphType:$graph);
  let results = (outs Gnn_GraphType:$result);
  let assemblyFormat = "$graph attr-dict `:` type($graph)";
  let hasFolder = 1;
}

def Gnn_EdgeNormOp : Gnn_Op<"edge_norm", [Gnn_GraphDerived]> {
  let summary = "graph-derived edge weights: GCN's symmetric or the mean's 1/deg";
  let description = [{
    With `deg(i)` the in-degree of node `i` (its number of incoming edges):
    * `symmetric`: `w(e) = deg(src(e))^-1/2 * deg(dst(e))^-1/2`, the
      `D^-1/2 (A+I) D^-1/2` of Kipf & Welling when applied to a graph with
      self loops;
    * `mean`: `w(e) = 1 / deg(dst(e))`, which turns a sum into a mean.
    A zero degree gives weight 0.

    Example:
    ```mlir
    %w = gnn.edge_norm symmetric %g : !gnn.graph<2708x13264> -> tensor<13264xf32>
    ```
  }];
  let arguments = (ins Gnn_EdgeNormAttr:$kind, Gnn_GraphType:$graph);
  let results = (outs Gnn_VectorTensor:$result);
  let assemblyFormat =
      "`` $kind $graph attr-dict `:` type($graph) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Layer ops (decomposed by gnn-decompose)
//===----------------------------------------------------------------------===//

def Gnn_ReceptiveRowsOp : Gnn_Op<"receptive_rows"> {
  let summary = "the rows within k hops of a node mask, as nested sets";
  let description = [{
    `R_0` is the set of nodes `i` with `mask[i]`; `R_{k+1}` is `R_k` plus
    every source of an edge into `R_k`. The result describes
    `R_0 c R_1 c ... c R_hops` in `hops + 1 + N + ceil(N / 4)` integers:
    `|R_k|` for `k = 0..hops`; then every node sorted by `(level, id)`, so
    that `R_k` is a prefix; then `level(i)` for each node, a byte each (four
    to an integer, the first in the lowest byte), the least `k` with `i` in
    `R_k` (`hops + 1` when in none). A level's byte limits `hops` to 126.

    `gnn-restrict-rows` creates it from the training mask: a loss that
    reads only the rows of `R_0` needs its graph layers' outputs only at
    `R_1`, `R_2`, ... (one set per aggregation). The ops given `rows`
    compute only those rows.

    Example:
    ```mlir
    %r = gnn.receptive_rows %g, %mask {hops = 2 : i64} : (!gnn.graph<2708x10556>, tensor<2708xi1>) -> tensor<3388xi32>
    ```
  }];
  let arguments = (ins Gnn_GraphType:$graph, 1DTensorOf<[I1]>:$mask,
      Gnn_RowLevelAttr:$hops);
  let results = (outs Gnn_RowSets:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Gnn_ReceptiveEdgesOp : Gnn_Op<"receptive_edges"> {
  let summary = "the edges into the rows of nested row sets, as row sets";
  let description = [{
    Nested row sets over the `E` edges of `%graph` (row `e` of an edge
    tensor is edge `e`), from nested row sets `%sets` of its `N` nodes
    (`gnn.receptive_rows` over the same graph, of at least `hops` hops):
    `E_k` is the set of edges whose destination is in `R_k`, for
    `k = 0..hops`. The layout is `gnn.receptive_rows`' over `E` rows:
    `|E_k|`, then the edges of `E_0`, of `E_1 \ E_0`, ... each by
    increasing id, then a level byte per edge (`hops + 1` for an edge into
    no `R_k`, `k <= hops`). The order's entries after the first `|E_hops|`
    are unspecified: no op reads an order past its set, and listing every
    other edge would cost a pass over the edges each step.

    `gnn-restrict-rows` creates it so that element-wise ops over edge
    tensors (GAT's leaky ReLU and attention dropout, their gradients) take
    `rows` like node tensors' do and compute only the edges into `R_k`.

    Example:
    ```mlir
    %e = gnn.receptive_edges %g, %r {hops = 1 : i64} : (!gnn.graph<2708x13264>, tensor<3388xi32>) -> tensor<16582xi32>
    ```
  }];
  let arguments = (ins Gnn_GraphType:$graph, Gnn_RowSets:$sets,
      Gnn_RowLevelAttr:$hops);
  let results = (outs Gnn_RowSets:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Gnn_GcnConvOp : Gnn_Op<"gcn_conv", [Gnn_Layer]> {
  let summary = "Kipf & Welling graph convolution";
  let description = [{
    `D^-1/2 (A+I) D^-1/2 (H W) + b`. `self_loops` adds `I`, `normalize`
    applies the symmetric normalisation (otherwise messages are summed).
    The sum commutes with `W`, so gnn-decompose aggregates the narrower
    side: `H W` when `W` narrows or keeps the width, `H` when it widens
    (`aggregatesFirst()`).

    Example:
    ```mlir
    %y = gnn.gcn_conv %g, %x, %w, %b {normalize = true, self_loops = true}
        : (!gnn.graph<2708x10556>, tensor<2708x1433xf32>, tensor<1433x16xf32>,
           tensor<16xf32>) -> tensor<2708x16xf32>
    ```
  }];
  let arguments = (ins Gnn_GraphType:$graph, Gnn_NodeTensor:$input,
      Gnn_NodeTensor:$weight, Optional<Gnn_VectorTensor>:$bias,
      DefaultValuedAttr<BoolAttr, "true">:$self_loops,
      DefaultValuedAttr<BoolAttr, "true">:$normalize);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether the weight widens the input, both widths known: then the
    /// layer aggregates the input and multiplies after.
    bool aggregatesFirst() {
      int64_t in = getInput().getType().getDimSize(1);
      int64_t out = getWeight().getType().getDimSize(1);
      return !::mlir::ShapedType::isDynamic(in) &&
             !::mlir::ShapedType::isDynamic(out) && in < out;
    }
  }];
}

def Gnn_SageConvOp : Gnn_Op<"sage_conv", [Gnn_Layer, AttrSizedOperandSegments]> {
  let summary = "GraphSAGE convolution";
  let description = [{
    `aggr_j(h_j) W + h_i W_root + b` over incoming edges, with `aggr` one of
    sum, mean, max. Without `root_weight` the root term is absent. As in
    PyTorch Geometric, the bias belongs to the neighbour term.

    Example:
    ```mlir
    %y = gnn.sage_conv %g, %x, %w root %wr bias %b {aggr = #gnn<aggr mean>}
        : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<8x4xf32>, tensor<8x4xf32>,
           tensor<4xf32>) -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Gnn_GraphType:$graph, Gnn_NodeTensor:$input,
      Gnn_NodeTensor:$weight, Optional<Gnn_NodeTensor>:$root_weight,
      Optional<Gnn_VectorTensor>:$bias, Gnn_AggregationAttr:$aggr);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat = "$graph `,` $input `,` $weight (`root` $root_weight^)? (`bias` $bias^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Gnn_GraphConvOp : Gnn_Op<"graph_conv", [Gnn_Layer]> {
  let summary = "Morris et al. graph convolution";
  let description = [{
    `h_i W_root + aggr_j(h_j) W + b` (PyTorch Geometric's `GraphConv`; the
    language's `add` is `sum`).

    Example:
    ```mlir
    %y = gnn.graph_conv %g, %x, %w, %wr, %b {aggr = #gnn<aggr sum>}
        : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<8x4xf32>, tensor<8x4xf32>,
           tensor<4xf32>) -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Gnn_GraphType:$graph, Gnn_NodeTensor:$input,
      Gnn_NodeTensor:$weight, Gnn_NodeTensor:$root_weight,
      Gnn_VectorTensor:$bias, Gnn_AggregationAttr:$aggr);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Gnn_GinConvOp : Gnn_Op<"gin_conv", [Gnn_Layer]> {
  let summary = "graph isomorphism network convolution";
  let description = [{
    `MLP((1 + eps) h_i + sum_j h_j)` with the two-layer MLP
    `relu(z W1 + b1) W2 + b2`; `eps` is a constant.

    Example:
    ```mlir
    %y = gnn.gin_conv %g, %x, %w1, %b1, %w2, %b2 {eps = 0.0 : f64}
        : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<8x4xf32>, tensor<4xf32>,
           tensor<4x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Gnn_GraphType:$graph, Gnn_NodeTensor:$input,
      Gnn_NodeTensor:$weight1, Gnn_VectorTensor:$bias1,
      Gnn_NodeTensor:$weight2, Gnn_VectorTensor:$bias2,
      DefaultValuedAttr<F64Attr, "0.0">:$eps);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Gnn_GatConvOp : Gnn_Op<"gat_conv", [Gnn_Layer, AttrSizedOperandSegments]> {
  let summary = "graph attention convolution (Veličković et al.)";
  let description = [{
    With `Z = H W` split into `heads` blocks of width `F`, per head `k`:
    `e_ij = leaky_relu(a_src·z_j + a_dst·z_i, negative_slope)`,
    `alpha = edge_softmax(e)` over the incoming edges of `i` (after adding
    self loops), optionally dropped out with rate `attn_dropout` (this needs
    `key`), and `y_i = sum_j alpha_ij z_j`. Heads are concatenated
    (`concat`) or averaged; then `b` is added.
    `weight` is `[in, heads*F]`, `att_src`/`att_dst` are `[heads*F]`.

    Example:
    ```mlir
    %y = gnn.gat_conv %g, %x, %w, %as, %ad bias %b {heads = 8 : i64, concat = true,
           negative_slope = 2.0e-01 : f64, attn_dropout = 0.0 : f64, stream = 0 : i64}
        : (!gnn.graph<?x?>, tensor<?x16xf32>, tensor<16x64xf32>, tensor<64xf32>,
           tensor<64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
    ```
  }];
  let arguments = (ins Gnn_GraphType:$graph, Gnn_NodeTensor:$input,
      Gnn_NodeTensor:$weight, Gnn_VectorTensor:$att_src,
      Gnn_VectorTensor:$att_dst, Optional<Gnn_VectorTensor>:$bias,
      Optional<Gnn_RngKeyType>:$key,
      ConfinedAttr<I64Attr, [IntPositive]>:$heads,
      DefaultValuedAttr<BoolAttr, "true">:$concat,
      DefaultValuedAttr<F64Attr, "0.2">:$negative_slope,
      DefaultValuedAttr<F64Attr, "0.0">:$attn_dropout,
      DefaultValuedAttr<I64Attr, "0">:$stream);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat = "$graph `,` $input `,` $weight `,` $att_src `,` $att_dst (`bias` $bias^)? (`key` $key^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Gnn_LinearOp : Gnn_Op<"linear", [Gnn_Layer]> {
  let summary = "dense layer";
  let description = [{
    `H W + b`, `W` being `[in, out]`.

    Example:
    ```mlir
    %y = gnn.linear %x, %w, %b : (tensor<?x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Gnn_NodeTensor:$input, Gnn_NodeTensor:$weight,
      Optional<Gnn_VectorTensor>:$bias);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

class Gnn_NormLayerOp<string mnemonic, string what>
    : Gnn_Op<mnemonic, [Gnn_Layer, AllTypesMatch<["input", "result"]>]> {
  let summary = what # " with a learnt scale and shift";
  let arguments = (ins Gnn_NodeTensor:$input, Gnn_VectorTensor:$weight,
      Gnn_VectorTensor:$bias,
      DefaultValuedAttr<F64Attr, "1.0e-5">:$eps);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Gnn_BatchNormOp : Gnn_NormLayerOp<"batch_norm", "normalisation over nodes"> {
  let description = [{
    Each feature (column) is normalised over the nodes with the batch's
    mean and biased variance, then scaled by `weight` and shifted by `bias`
    (both `[D]`). Full-graph training sees every node in every batch, so
    evaluation uses the same batch statistics (no running averages).

    Example:
    ```mlir
    %y = gnn.batch_norm %x, %s, %b : (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    ```
  }];
}

def Gnn_LayerNormOp : Gnn_NormLayerOp<"layer_norm", "normalisation over features"> {
  let description = [{
    Each node's row is normalised over its features, then scaled by `weight`
    and shifted by `bias` (both `[D]`), as `torch.nn.LayerNorm(D)`.

    Example:
    ```mlir
    %y = gnn.layer_norm %x, %s, %b : (tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Primitives: aggregation over the graph
//===----------------------------------------------------------------------===//

def Gnn_SpmmOp : Gnn_Op<"spmm", [AttrSizedOperandSegments]> {
  let summary = "sparse-dense product: aggregate neighbour rows over incoming edges";
  let description = [{
    `y[i, c] = aggr over edges e with dst(e) = i of w(e, head(c)) * x[src(e), c]`
    where `aggr` is `sum`, `mean` (sum divided by the in-degree) or `max`.
    `weights` is optional (`1` when absent) and is `[E]` or `[E, H]` with
    `H` dividing `D` (`head(c) = c / (D / H)`), which is how multi-head
    attention is applied. Nodes without incoming edges get 0. `max` takes
    no weights.

    With `rows` (set by `gnn-restrict-rows`; sum and mean only, weights
    `[E]` or `[E, heads]`), only the
    rows of `R_level` of the row sets are computed and every other row is
    0; with `skip` as well, the rows of `x` outside `R_skip` are taken to be
    0 (the pass sets it only where they are) and their edges are not read.

    Example:
    ```mlir
    %y = gnn.spmm sum %g, %x, %w : (!gnn.graph<2708x13264>, tensor<2708x16xf32>, tensor<13264xf32>) -> tensor<2708x16xf32>
    ```
  }];
  let arguments = (ins Gnn_AggregationAttr:$aggr, Gnn_GraphType:$graph,
      Gnn_NodeTensor:$input, Optional<Gnn_FloatTensor>:$weights,
      Optional<Gnn_RowSets>:$row_sets, OptionalAttr<Gnn_RowLevelAttr>:$level,
      OptionalAttr<Gnn_RowLevelAttr>:$skip);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat =
      "`` $aggr $graph `,` $input (`,` $weights^)? (`rows` $row_sets^)? attr-dict `:` functional-type(operands, results)";
  // Every op but gnn-restrict-rows builds it without row sets.
  let builders = [
    OpBuilder<(ins "Type":$result, "AggregationAttr":$aggr, "Value":$graph,
                   "Value":$input, "Value":$weights), [{
      build($_builder, $_state, result, aggr, graph, input, weights,
            /*row_sets=*/Value(), /*level=*/IntegerAttr(), /*skip=*/IntegerAttr());
    }]>,
    OpBuilder<(ins "Type":$result, "Aggregation":$aggr, "Value":$graph,
                   "Value":$input, "Value":$weights), [{
      build($_builder, $_state, result,
            AggregationAttr::get($_builder.getContext(), aggr), graph, input,
            weights);
    }]>
  ];
  let hasVerifier = 1;
}

def Gnn_SpmmMaxGradOp : Gnn_Op<"spmm_max_grad",
    [AllTypesMatch<["input", "result_grad", "result"]>]> {
  let summary = "cotangent of a max aggregation with respect to its input";
  let description = [{
    Routes `dy[i, c]` to `x[j, c]` for the source `j` of the first incoming
    edge of `i` (lowest edge id) that attains the maximum of
    `gnn.spmm max %graph, %input`; everything else gets 0.

    Example:
    ```mlir
    %dx = gnn.spmm_max_grad %g, %x, %dy : (!gnn.graph<?x?>, tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Gnn_GraphType:$graph, Gnn_NodeTensor:$input,
      Gnn_NodeTensor:$result_grad);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Gnn_SddmmOp : Gnn_Op<"sddmm"> {
  let summary = "sampled dense-dense product: one dot product per edge and head";
  let description = [{
    `y[e, k] = sum over c in head k of lhs[dst(e), c] * rhs[src(e), c]`,
    `lhs` and `rhs` being `[N, D]` and `heads` dividing `D`; the result is
    `[E, heads]`. It is the gradient of an edge-weighted `gnn.spmm` with
    respect to its weights, and attention's score kernel.

    With `rows` (set by `gnn-restrict-rows`), only the edges into the rows
    of `R_level` of the row sets (the graph's destinations) are computed
    and every other edge row is 0.

    Example:
    ```mlir
    %s = gnn.sddmm %g, %dy, %x {heads = 1 : i64} : (!gnn.graph<?x?>, tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x1xf32>
    ```
  }];
  let arguments = (ins Gnn_GraphType:$graph, Gnn_NodeTensor:$lhs,
      Gnn_NodeTensor:$rhs, ConfinedAttr<I64Attr, [IntPositive]>:$heads,
      Optional<Gnn_RowSets>:$row_sets, OptionalAttr<Gnn_RowLevelAttr>:$level);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat =
      "$graph `,` $lhs `,` $rhs (`rows` $row_sets^)? attr-dict `:` functional-type(operands, results)";
  // Every op but gnn-restrict-rows builds it without row sets.
  let builders = [
    OpBuilder<(ins "Type":$result, "Value":$graph, "Value":$lhs,
                   "Value":$rhs, "int64_t":$heads), [{
      build($_builder, $_state, result, graph, lhs, rhs,
            $_builder.getI64IntegerAttr(heads), /*row_sets=*/Value(),
            /*level=*/IntegerAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def Gnn_GatherOp : Gnn_Op<"gather"> {
  let summary = "node rows to edge rows: y[e] = x[src(e)] or x[dst(e)]";
  let description = [{
    Example:
    ```mlir
    %y = gnn.gather src %g, %x : (!gnn.graph<?x?>, tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Gnn_EdgeEndAttr:$end, Gnn_GraphType:$graph,
      Gnn_NodeTensor:$input);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat =
      "`` $end $graph `,` $input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Gnn_EdgeAddOp : Gnn_Op<"edge_add"> {
  let summary = "one edge row from both ends: y[e] = src_input[src(e)] + dst_input[dst(e)]";
  let description = [{
    `gnn.add` of `gnn.gather src %g, %a` and `gnn.gather dst %g, %b` in one
    kernel, with the same bits: attention's per-edge score from its two
    per-node halves. Only the `[E, d]` result is ever written, where the two
    gathers wrote one each and both were live at the add (on Facebook's GAT
    that is 5.8 MB of the predict's peak). Its adjoint is the two scatters.

    With `rows` (set by `gnn-restrict-rows`), only the edges into the rows
    of `R_level` of the row sets (the graph's destinations) are computed
    and every other edge row is 0.

    Example:
    ```mlir
    %e = gnn.edge_add %g, %a, %b : (!gnn.graph<?x?>, tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Gnn_GraphType:$graph, Gnn_NodeTensor:$src_input,
      Gnn_NodeTensor:$dst_input, Optional<Gnn_RowSets>:$row_sets,
      OptionalAttr<Gnn_RowLevelAttr>:$level);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat =
      "$graph `,` $src_input `,` $dst_input (`rows` $row_sets^)? attr-dict `:` functional-type(operands, results)";
  let builders = [
    OpBuilder<(ins "Type":$result, "Value":$graph, "Value":$src_input,
                   "Value":$dst_input), [{
      build($_builder, $_state, result, graph, src_input, dst_input,
            /*row_sets=*/Value(), /*level=*/IntegerAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def Gnn_ScatterOp : Gnn_Op<"scatter"> {
  let summary = "edge rows to node rows by sum: y[i] = sum of x[e] over edges whose end is i";
  let description = [{
    The adjoint of `gnn.gather` with the same `end`.

    With `rows` (set by `gnn-restrict-rows`), only the rows of `R_level` of
    the row sets are computed and every other row is 0; with `skip` as well,
    the edge rows of `x` whose other end (the source for `dst`, the
    destination for `src`) lies outside `R_skip` are taken to be 0 (the
    pass sets it only where they are) and are not read.

    Example:
    ```mlir
    %y = gnn.scatter dst %g, %e : (!gnn.graph<?x?>, tensor<?x4xf32>) -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Gnn_EdgeEndAttr:$end, Gnn_GraphType:$graph,
      Gnn_NodeTensor:$input, Optional<Gnn_RowSets>:$row_sets,
      OptionalAttr<Gnn_RowLevelAttr>:$level,
      OptionalAttr<Gnn_RowLevelAttr>:$skip);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat =
      "`` $end $graph `,` $input (`rows` $row_sets^)? attr-dict `:` functional-type(operands, results)";
  let builders = [
    OpBuilder<(ins "Type":$result, "EdgeEnd":$end, "Value":$graph,
                   "Value":$input), [{
      build($_builder, $_state, result,
            EdgeEndAttr::get($_builder.getContext(), end), graph, input,
            /*row_sets=*/Value(), /*level=*/IntegerAttr(), /*skip=*/IntegerAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def Gnn_EdgeSoftmaxOp : Gnn_Op<"edge_softmax", [AllTypesMatch<["input", "result"]>]> {
  let summary = "softmax of edge scores over the incoming edges of each node";
  let description = [{
    For `x : [E, H]`, `y[e, k] = exp(x[e, k] - m) / sum exp(x[e', k] - m)`
    over the edges `e'` with `dst(e') = dst(e)`, `m` being their maximum.

    With `rows` (set by `gnn-restrict-rows`), only the edges into the rows
    of `R_level` of the row sets (the graph's destinations) are computed
    and every other edge row is 0.

    Example:
    ```mlir
    %a = gnn.edge_softmax %g, %s : (!gnn.graph<?x?>, tensor<?x8xf32>) -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins Gnn_GraphType:$graph, Gnn_NodeTensor:$input,
      Optional<Gnn_RowSets>:$row_sets, OptionalAttr<Gnn_RowLevelAttr>:$level);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat =
      "$graph `,` $input (`rows` $row_sets^)? attr-dict `:` functional-type(operands, results)";
  let builders = [
    OpBuilder<(ins "Type":$result, "Value":$graph, "Value":$input), [{
      build($_builder, $_state, result, graph, input, /*row_sets=*/Value(),
            /*level=*/IntegerAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def Gnn_EdgeSoftmaxGradOp : Gnn_Op<"edge_softmax_grad",
    [AllTypesMatch<["output", "result_grad", "result"]>]> {
  let summary = "cotangent of an edge softmax from its output";
  let description = [{
    `dx[e, k] = y[e, k] * (dy[e, k] - sum y[e', k] dy[e', k])` over the edges
    `e'` sharing `dst(e)`, `y` being the softmax's output.

    With `rows` (set by `gnn-restrict-rows`), only the edges into the rows
    of `R_level` of the row sets (the graph's destinations) are computed
    and every other edge row is 0.

    Example:
    ```mlir
    %dx = gnn.edge_softmax_grad %g, %y, %dy : (!gnn.graph<?x?>, tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins Gnn_GraphType:$graph, Gnn_NodeTensor:$output,
      Gnn_NodeTensor:$result_grad, Optional<Gnn_RowSets>:$row_sets,
      OptionalAttr<Gnn_RowLevelAttr>:$level);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat =
      "$graph `,` $output `,` $result_grad (`rows` $row_sets^)? attr-dict `:` functional-type(operands, results)";
  let builders = [
    OpBuilder<(ins "Type":$result, "Value":$graph, "Value":$output,
                   "Value":$result_grad), [{
      build($_builder, $_state, result, graph, output, result_grad,
            /*row_sets=*/Value(), /*level=*/IntegerAttr());
    }]>
  ];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Primitives: dense
//===----------------------------------------------------------------------===//

def Gnn_MatmulOp : Gnn_Op<"matmul"> {
  let summary = "dense matrix product with optional transposes";
  let description = [{
    `y = op(a) op(b)` where `op` transposes when `transpose_a` /
    `transpose_b` is set.

    With `rows` (set by `gnn-restrict-rows` on products whose `a` is a node
    tensor), only the rows of `R_level` count: without `transpose_a`, the
    other rows of `y` are 0; with it, the contraction runs over the rows of
    `R_level` only, as if the other rows of `a` and `b` were 0.

    Example:
    ```mlir
    %y = gnn.matmul %x, %w : (tensor<2708x1433xf32>, tensor<1433x16xf32>) -> tensor<2708x16xf32>
    %dw = gnn.matmul %x, %dy {transpose_a} : (tensor<2708x1433xf32>, tensor<2708x16xf32>) -> tensor<1433x16xf32>
    ```
  }];
  let arguments = (ins Gnn_NodeTensor:$lhs, Gnn_NodeTensor:$rhs,
      Optional<Gnn_RowSets>:$row_sets, UnitAttr:$transpose_a,
      UnitAttr:$transpose_b, OptionalAttr<Gnn_RowLevelAttr>:$level);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs (`rows` $row_sets^)? attr-dict `:` functional-type(operands, results)";
  let builders = [
    OpBuilder<(ins "Type":$result, "Value":$lhs, "Value":$rhs,
                   CArg<"bool", "false">:$transposeA,
                   CArg<"bool", "false">:$transposeB), [{
      build($_builder, $_state, result, lhs, rhs, /*row_sets=*/Value(),
            transposeA, transposeB, /*level=*/IntegerAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def Gnn_BiasAddOp : Gnn_Op<"bias_add", [AllTypesMatch<["input", "result"]>]> {
  let summary = "adds a vector to every row";
  let description = [{
    `y[i, c] = x[i, c] + b[c]`.

    Example:
    ```mlir
    %y = gnn.bias_add %x, %b : (tensor<?x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
    ```
  }];
  let arguments = !con((ins Gnn_NodeTensor:$input, Gnn_VectorTensor:$bias),
                       Gnn_RowArgs);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat = "$input `,` $bias (`rows` $row_sets^)? "
      "attr-dict `:` functional-type(operands, results)";
  let builders = [
    OpBuilder<(ins "Type":$result, "Value":$input, "Value":$bias), [{
      build($_builder, $_state, result, input, bias, /*row_sets=*/Value(),
            /*level=*/IntegerAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def Gnn_RowMulOp : Gnn_Op<"row_mul", [AllTypesMatch<["input", "result"]>]> {
  let summary = "multiplies every row by a vector, element-wise";
  let description = [{
    `y[i, c] = x[i, c] * v[c]` (a learnt scale; attention vectors).

    Example:
    ```mlir
    %y = gnn.row_mul %x, %v : (tensor<?x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
    ```
  }];
  let arguments = !con((ins Gnn_NodeTensor:$input, Gnn_VectorTensor:$scale),
                       Gnn_RowArgs);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat = "$input `,` $scale (`rows` $row_sets^)? "
      "attr-dict `:` functional-type(operands, results)";
  let builders = [
    OpBuilder<(ins "Type":$result, "Value":$input, "Value":$scale), [{
      build($_builder, $_state, result, input, scale, /*row_sets=*/Value(),
            /*level=*/IntegerAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def Gnn_ReduceOp : Gnn_Op<"reduce"> {
  let summary = "reduces a matrix along one dimension";
  let description = [{
    `dim = 0` reduces over rows (`[N, D] -> [D]`, e.g. a bias gradient),
    `dim = 1` over columns (`[N, D] -> [N]`).

    With `rows` (set by `gnn-restrict-rows`; `sum` and `mean` over
    `dim = 0` only), the rows outside `R_level` are taken to be 0 and are
    not read.

    Example:
    ```mlir
    %db = gnn.reduce sum %dy {dim = 0 : i64} : tensor<?x16xf32> -> tensor<16xf32>
    ```
  }];
  let arguments = !con((ins Gnn_ReduceKindAttr:$kind, Gnn_NodeTensor:$input,
      ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<1>]>:$dim),
      Gnn_RowArgs);
  let results = (outs Gnn_VectorTensor:$result);
  let assemblyFormat = "`` $kind $input (`rows` $row_sets^ `:` type($row_sets))? "
      "attr-dict `:` type($input) `->` type($result)";
  let builders = [
    OpBuilder<(ins "Type":$result, "ReduceKind":$kind, "Value":$input,
                   "int64_t":$dim), [{
      build($_builder, $_state, result,
            ReduceKindAttr::get($_builder.getContext(), kind), input,
            $_builder.getI64IntegerAttr(dim), /*row_sets=*/Value(),
            /*level=*/IntegerAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def Gnn_HeadMatrixOp : Gnn_Op<"head_matrix"> {
  let summary = "a constant 0/1 matrix that sums, averages or spreads attention heads";
  let description = [{
    For `heads = H` and `width = F`:
    * `sum`: `[H*F, H]`, `M[c, k] = 1` when column `c` is in head `k`, so
      `x M` sums each head's block;
    * `mean`: `[H*F, F]`, `M[k*F + f, f] = 1/H`, so `x M` averages heads;
    * `spread`: `[H, H*F]`, `sum`'s transpose: `s M` spreads a per-head value
      back over the head's columns. GAT's attention vectors scale it into
      the `[H, H*F]` matrix whose transpose gives the per-head scores in one
      product with the features (gnn-decompose).

    Example:
    ```mlir
    %m = gnn.head_matrix sum {heads = 8 : i64, width = 8 : i64} : tensor<64x8xf32>
    ```
  }];
  let arguments = (ins Gnn_HeadMatrixKindAttr:$kind,
      ConfinedAttr<I64Attr, [IntPositive]>:$heads,
      ConfinedAttr<I64Attr, [IntPositive]>:$width);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat = "`` $kind attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Gnn_ZerosOp : Gnn_Op<"zeros"> {
  let summary = "a tensor of zeros";
  let description = [{
    Example:
    ```mlir
    %z = gnn.zeros : tensor<16xf32>
    ```
  }];
  let results = (outs Gnn_FloatTensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Primitives: element-wise
//===----------------------------------------------------------------------===//

// The element-wise ops below take the optional row restriction of
// gnn-restrict-rows (Gnn_RowArgs): with `rows`, the rows of a node tensor
// outside `R_level` are 0 and are not computed.
class Gnn_BinaryOp<string mnemonic, string what>
    : Gnn_Op<mnemonic, [AllTypesMatch<["lhs", "rhs", "result"]>]> {
  let summary = "element-wise " # what;
  let arguments = !con((ins Gnn_FloatTensor:$lhs, Gnn_FloatTensor:$rhs),
                       Gnn_RowArgs);
  let results = (outs Gnn_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs (`rows` $row_sets^ `:` type($row_sets))? "
      "attr-dict `:` type($result)";
  let builders = [
    OpBuilder<(ins "Value":$lhs, "Value":$rhs), [{
      build($_builder, $_state, lhs.getType(), lhs, rhs, /*row_sets=*/Value(),
            /*level=*/IntegerAttr());
    }]>,
    OpBuilder<(ins "Type":$result, "Value":$lhs, "Value":$rhs), [{
      build($_builder, $_state, result, lhs, rhs, /*row_sets=*/Value(),
            /*level=*/IntegerAttr());
    }]>
  ];
  let hasVerifier = 1;
  let extraClassDefinition = Gnn_RowWiseVerifier;
}

def Gnn_AddOp : Gnn_BinaryOp<"add", "sum"> {
  let description = [{
    Example:
    ```mlir
    %y = gnn.add %a, %b : tensor<?x16xf32>
    ```
  }];
  let hasCanonicalizer = 1;
}
def Gnn_SubOp : Gnn_BinaryOp<"sub", "difference"> {
  let description = [{
    Example:
    ```mlir
    %y = gnn.sub %a, %b : tensor<?x16xf32>
    ```
  }];
}
def Gnn_MulOp : Gnn_BinaryOp<"mul", "product"> {
  let description = [{
    Example:
    ```mlir
    %y = gnn.mul %a, %b : tensor<?x16xf32>
    ```
  }];
}

def Gnn_ScaleOp : Gnn_Op<"scale", [AllTypesMatch<["input", "result"]>]> {
  let summary = "multiplies every element by a constant";
  let description = [{
    Example:
    ```mlir
    %y = gnn.scale %x {factor = 2.0 : f64} : tensor<?x16xf32>
    ```
  }];
  let arguments = !con((ins Gnn_FloatTensor:$input, F64Attr:$factor),
                       Gnn_RowArgs);
  let results = (outs Gnn_FloatTensor:$result);
  let assemblyFormat = "$input (`rows` $row_sets^ `:` type($row_sets))? "
      "attr-dict `:` type($result)";
  let builders = [
    OpBuilder<(ins "Value":$input, "FloatAttr":$factor), [{
      build($_builder, $_state, input.getType(), input, factor,
            /*row_sets=*/Value(), /*level=*/IntegerAttr());
    }]>,
    OpBuilder<(ins "Type":$result, "Value":$input, "FloatAttr":$factor), [{
      build($_builder, $_state, result, input, factor, /*row_sets=*/Value(),
            /*level=*/IntegerAttr());
    }]>
  ];
  let hasVerifier = 1;
  let extraClassDefinition = Gnn_RowWiseVerifier;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Gnn_ActivationOp : Gnn_Op<"activation", [AllTypesMatch<["input", "result"]>]> {
  let summary = "element-wise activation function";
  let description = [{
    `relu`, `leaky_relu` (`x` if `x > 0` else `slope * x`), `elu`
    (`x` if `x > 0` else `exp(x) - 1`), `gelu` (the exact, erf form),
    `sigmoid`, `tanh`. Works on node and edge tensors alike.

    Example:
    ```mlir
    %y = gnn.activation relu %x : tensor<?x16xf32>
    %e = gnn.activation leaky_relu %s {slope = 2.0e-01 : f64} : tensor<?x8xf32>
    ```
  }];
  let arguments = !con((ins Gnn_ActivationAttr:$kind, Gnn_FloatTensor:$input,
      DefaultValuedAttr<F64Attr, "0.01">:$slope), Gnn_RowArgs);
  let results = (outs Gnn_FloatTensor:$result);
  let assemblyFormat = "`` $kind $input (`rows` $row_sets^ `:` type($row_sets))? "
      "attr-dict `:` type($result)";
  let builders = [
    OpBuilder<(ins "Type":$result, "ActivationAttr":$kind, "Value":$input,
                   "FloatAttr":$slope), [{
      build($_builder, $_state, result, kind, input, slope,
            /*row_sets=*/Value(), /*level=*/IntegerAttr());
    }]>
  ];
  let hasVerifier = 1;
  let extraClassDefinition = Gnn_RowWiseVerifier;
}

def Gnn_ActivationGradOp : Gnn_Op<"activation_grad",
    [AllTypesMatch<["input", "result_grad", "result"]>]> {
  let summary = "cotangent of an activation: dy * f'(x)";
  let description = [{
    Takes the activation's input `x` (not its output), so that it can be
    recomputed rather than stored; at `x = 0` the derivative of `relu` and
    `leaky_relu` is taken from the left (0 and `slope`).

    Example:
    ```mlir
    %dx = gnn.activation_grad relu %x, %dy : tensor<?x16xf32>
    ```
  }];
  let arguments = !con((ins Gnn_ActivationAttr:$kind, Gnn_FloatTensor:$input,
      Gnn_FloatTensor:$result_grad,
      DefaultValuedAttr<F64Attr, "0.01">:$slope), Gnn_RowArgs);
  let results = (outs Gnn_FloatTensor:$result);
  let assemblyFormat = "`` $kind $input `,` $result_grad (`rows` $row_sets^ `:` type($row_sets))? "
      "attr-dict `:` type($result)";
  let builders = [
    OpBuilder<(ins "Type":$result, "ActivationAttr":$kind, "Value":$input,
                   "Value":$resultGrad, "FloatAttr":$slope), [{
      build($_builder, $_state, result, kind, input, resultGrad, slope,
            /*row_sets=*/Value(), /*level=*/IntegerAttr());
    }]>
  ];
  let hasVerifier = 1;
  let extraClassDefinition = Gnn_RowWiseVerifier;
}

def Gnn_RngKeyOp : Gnn_Op<"rng_key"> {
  let summary = "makes a random key from a seed and a step number";
  let description = [{
    Example:
    ```mlir
    %key = gnn.rng_key %seed, %step
    ```
  }];
  let arguments = (ins I64:$seed, I64:$step);
  let results = (outs Gnn_RngKeyType:$result);
  let assemblyFormat = "$seed `,` $step attr-dict";
}

def Gnn_DropoutOp : Gnn_Op<"dropout", [AllTypesMatch<["input", "result"]>]> {
  let summary = "inverted dropout whose mask is a function of its key";
  let description = [{
    `y[i] = x[i] / (1 - p)` if `u(i) >= p`, else 0, where `i` is the
    row-major element index and `u(i)` is uniform in [0, 1): word
    `i mod 4` of Philox4x32-10 with key `(seed mod 2^32, seed / 2^32)` and
    counter `(b mod 2^32, b / 2^32, stream, step)`, `b = i / 4`,
    multiplied by 2^-32. `stream` tells apart the random ops of one step.
    Because the mask depends only on the key, `stream` and `i`, the same op
    applied to the cotangent is its own adjoint and a recomputation
    reproduces the mask exactly.

    With `rows` (set by `gnn-restrict-rows`), the rows outside `R_level`
    are 0; the others keep their values and masks. The sets are a node
    tensor's rows (`gnn.receptive_rows`) or an edge tensor's
    (`gnn.receptive_edges`: the edges into `R_level`).

    With `mask_columns = array<i64: C, o>` the input, a `[R, W]` matrix, is
    columns `[o, o + W)` of a `[R, C]` one, and element `(r, c)` draws the
    mask of that matrix's element `(r, o + c)`: `i = r * C + o + c`. A GAT
    layer rewritten head by head (`gnn-decompose`) drops each head's
    attention with its column of the whole `[E, heads]` mask, so the split
    layer computes the same values.

    Example:
    ```mlir
    %y = gnn.dropout %x, %key {p = 5.0e-01 : f64, stream = 0 : i64} : tensor<?x16xf32>
    %h = gnn.dropout %a, %key {mask_columns = array<i64: 4, 2>, p = 6.0e-01 : f64, stream = 1 : i64} : tensor<10x1xf32>
    ```
  }];
  let arguments = (ins Gnn_FloatTensor:$input, Gnn_RngKeyType:$key,
      Optional<Gnn_RowSets>:$row_sets, Gnn_NonNegativeF64Attr:$p,
      ConfinedAttr<I64Attr, [IntNonNegative]>:$stream,
      OptionalAttr<Gnn_RowLevelAttr>:$level,
      OptionalAttr<DenseI64ArrayAttr>:$mask_columns);
  let results = (outs Gnn_FloatTensor:$result);
  let assemblyFormat = "$input `,` $key (`rows` $row_sets^ `:` type($row_sets))? attr-dict `:` type($result)";
  let builders = [
    OpBuilder<(ins "Type":$result, "Value":$input, "Value":$key,
                   "FloatAttr":$p, "IntegerAttr":$stream), [{
      build($_builder, $_state, result, input, key, /*row_sets=*/Value(), p,
            stream, /*level=*/IntegerAttr(), /*mask_columns=*/nullptr);
    }]>
  ];
  let extraClassDeclaration = [{
    /// Draws the masks of columns [offset, offset + width) of a matrix of
    /// \p columns columns (`mask_columns`).
    void setMaskColumns(int64_t columns, int64_t offset) {
      setMaskColumnsAttr(
          ::mlir::DenseI64ArrayAttr::get(getContext(), {columns, offset}));
    }
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Gnn_ConcatOp : Gnn_Op<"concat", [AttrSizedOperandSegments]> {
  let summary = "feature-wise concatenation of node tensors";
  let description = [{
    With `rows` (set by `gnn-restrict-rows`), only the rows of `R_level`
    are joined; the others are 0 (GAT's heads joined head by head, where
    the loss reads a few rows).

    Example:
    ```mlir
    %y = gnn.concat %a, %b : (tensor<?x4xf32>, tensor<?x8xf32>) -> tensor<?x12xf32>
    %z = gnn.concat %a, %b rows %r : tensor<8xi32> {level = 1 : i64} : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x12xf32>
    ```
  }];
  let arguments = !con((ins Variadic<Gnn_NodeTensor>:$inputs), Gnn_RowArgs);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat = "$inputs (`rows` $row_sets^ `:` type($row_sets))? "
      "attr-dict `:` functional-type($inputs, results)";
  let builders = [
    OpBuilder<(ins "Type":$result, "ValueRange":$inputs), [{
      build($_builder, $_state, result, inputs, /*row_sets=*/Value(),
            /*level=*/IntegerAttr());
    }]>
  ];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Gnn_SliceOp : Gnn_Op<"slice"> {
  let summary = "a block of columns: y = x[:, offset : offset + width]";
  let description = [{
    The adjoint of one operand of `gnn.concat`.

    With row sets (`rows`, set by `gnn-plan-memory` where it splits an
    aggregation into blocks of columns, docs/MemoryPlanning.md) only the
    rows of R_level are copied; the others are +0.0, or left as they were
    with `gnn.rest_unread` (the block's aggregation reads no other row).

    Example:
    ```mlir
    %y = gnn.slice %x {offset = 4 : i64} : tensor<?x12xf32> -> tensor<?x8xf32>
    ```
  }];
  let arguments = !con((ins Gnn_NodeTensor:$input,
      ConfinedAttr<I64Attr, [IntNonNegative]>:$offset), Gnn_RowArgs);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat = "$input (`rows` $row_sets^ `:` type($row_sets))? "
      "attr-dict `:` type($input) `->` type($result)";
  let builders = [
    OpBuilder<(ins "Type":$result, "Value":$input, "uint64_t":$offset), [{
      build($_builder, $_state, result, input, offset, /*row_sets=*/Value(),
            /*level=*/IntegerAttr());
    }]>
  ];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Gnn_InsertColumnsOp : Gnn_Op<"insert_columns",
                                 [AllTypesMatch<["input", "result"]>]> {
  let summary = "a matrix with one block of its columns replaced";
  let description = [{
    `y = x` but `y[:, offset : offset + width] = block`, `width` being the
    block's columns: the inverse of `gnn.slice`.

    `gnn-plan-memory` builds it where it splits an aggregation into blocks
    of columns (docs/MemoryPlanning.md, "Aggregations by column blocks"):
    each block of the result is written over the same columns of the
    aggregation's input, which no later block reads, so the result takes
    the input's place and the device never holds both whole. The kernels
    write over `x` when it dies here.

    With row sets (`rows`) only the rows of R_level take the block's
    columns: every other row is x's, whole. (Unlike the other restricted
    ops nothing is cleared: where the planner restricts it, the split
    aggregation's rows outside its set are unread, and a cleared block
    would cost a pass over every row.)

    Example:
    ```mlir
    %y = gnn.insert_columns %b into %x {offset = 8 : i64} : tensor<2708x8xf32> into tensor<2708x16xf32>
    ```
  }];
  let arguments = !con((ins Gnn_NodeTensor:$block, Gnn_NodeTensor:$input,
      ConfinedAttr<I64Attr, [IntNonNegative]>:$offset), Gnn_RowArgs);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat =
      "$block `into` $input (`rows` $row_sets^ `:` type($row_sets))? "
      "attr-dict `:` type($block) `into` type($input)";
  let builders = [
    OpBuilder<(ins "Type":$result, "Value":$block, "Value":$input,
                   "uint64_t":$offset), [{
      build($_builder, $_state, result, block, input, offset,
            /*row_sets=*/Value(), /*level=*/IntegerAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def Gnn_NormalizeOp : Gnn_Op<"normalize", [SameOperandsAndResultType]> {
  let summary = "standardises a matrix along one dimension";
  let description = [{
    `y = (x - mean) / sqrt(var + eps)` with the mean and biased variance taken
    over rows (`dim = 0`, per column: batch norm) or over columns
    (`dim = 1`, per row: layer norm).

    Example:
    ```mlir
    %y = gnn.normalize %x {dim = 0 : i64, eps = 1.0e-05 : f64} : tensor<?x16xf32>
    ```
  }];
  let arguments = (ins Gnn_NodeTensor:$input,
      ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<1>]>:$dim,
      Gnn_NonNegativeF64Attr:$eps);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Gnn_NormalizeGradOp : Gnn_Op<"normalize_grad", [SameOperandsAndResultType]> {
  let summary = "cotangent of gnn.normalize from its input";
  let description = [{
    With `xhat = normalize(x)` along `dim` over `n` elements and
    `r = 1/sqrt(var + eps)`:
    `dx = r * (dy - mean(dy) - xhat * mean(dy * xhat))`, means along `dim`.

    Example:
    ```mlir
    %dx = gnn.normalize_grad %x, %dy {dim = 0 : i64, eps = 1.0e-05 : f64} : tensor<?x16xf32>
    ```
  }];
  let arguments = (ins Gnn_NodeTensor:$input, Gnn_NodeTensor:$result_grad,
      ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<1>]>:$dim,
      Gnn_NonNegativeF64Attr:$eps);
  let results = (outs Gnn_NodeTensor:$result);
  let assemblyFormat = "$input `,` $result_grad attr-dict `:` type($result)";
}

#endif // GNNC_GNN_OPS

//===- GnnBase.td - gnn dialect, types and attributes ------*- tablegen -*-===//
//
// The graph-level dialect: value semantics over builtin tensors, plus one
// type for the graph every aggregation runs over.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_GNN_BASE
#define GNNC_GNN_BASE

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/TensorEncoding.td"

def Gnn_Dialect : Dialect {
  let name = "gnn";
  let cppNamespace = "::mlir::gnn";
  let summary = "Graph neural network layers and the primitives they lower to";
  let description = [{
    The `gnn` dialect is where a `.gnn` model lands: a function over one
    graph (`!gnn.graph`) and node tensors (builtin `tensor<N x D x f32>`, one
    row per node), with layer ops (`gnn.gcn_conv`, `gnn.gat_conv`, ...) as
    MLIRGen emits them and the few primitives they decompose into (SpMM,
    SDDMM, edge softmax, gather/scatter, dense matmul, element-wise ops,
    reductions, dropout with an explicit counter-based key).

    Conventions every op follows:
    * An edge `e` of a graph goes from `src(e)` to `dst(e)`; aggregations
      gather messages at the destination over its incoming edges.
    * Edge tensors (`tensor<E x H>` or `tensor<E>`) are indexed by edge id;
      `gnn.transpose` swaps the roles of the ends and keeps edge ids, so an
      edge tensor means the same in both views.
    * Node tensors are `[N, D]`; with `heads = H`, column `c` belongs to head
      `c / (D / H)`.
    * Ops are pure functions of their operands; dropout is too, because its
      mask is a function of its key (see `gnn.dropout`).
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
  }];
  let hasConstantMaterializer = 0;
}

class Gnn_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Gnn_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Gnn_GraphType : Gnn_Type<"Graph", "graph"> {
  let summary = "a directed graph with a number of nodes and of edges";
  let description = [{
    The graph that graph operators aggregate over. Its node and edge counts
    are dynamic (`?`) before the program is bound to data and static after;
    MLIRGen binds them from the dataset's `meta.json`. Edges are directed and
    stored by the runtime as CSR over destinations (plus the transposed view
    when the backward pass needs it).

    Example:
    ```mlir
    !gnn.graph<2708x10556>   // Cora: 2 708 nodes, 10 556 directed edges
    !gnn.graph<?x?>          // unbound
    ```
  }];
  let parameters = (ins "int64_t":$nodes, "int64_t":$edges);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    bool hasStaticNodes() const { return !::mlir::ShapedType::isDynamic(getNodes()); }
    bool hasStaticEdges() const { return !::mlir::ShapedType::isDynamic(getEdges()); }
  }];
}

def Gnn_RngKeyType : Gnn_Type<"RngKey", "rng_key"> {
  let summary = "a key for the counter-based random number generator";
  let description = [{
    A (seed, step) pair made by `gnn.rng_key`. Every random op combines it
    with its own `stream` number and the element index into a Philox4x32-10
    counter, so the same key always gives the same random bits: recomputing
    a dropout reproduces its mask bit for bit, and no mask is ever stored.

    Example:
    ```mlir
    %key = gnn.rng_key %seed, %step
    ```
  }];
}

def Gnn_CsrEncodingAttr : AttrDef<Gnn_Dialect, "CsrEncoding",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let mnemonic = "csr";
  let summary = "tensor encoding: a matrix stored as CSR with nnz slots";
  let description = [{
    Marks a rank-2 tensor as stored in compressed sparse rows with exactly
    `nnz` stored slots (explicit zeros allowed). It changes how a value is
    stored, never what it means: every op computes on the dense matrix the
    slots describe (element (i, j) is the slot's value, 0 where there is no
    slot), so the reference interpreter ignores it and a CSR program gives
    the values of its dense form.

    `gnn-sparse-features` gives it to input features that are mostly zeros,
    and to what is derived from them while the zeros stay zeros (dropout).
    Back ends implement it where that pass may put it: `gnn.dropout` (the
    result keeps the operand's slots) and the left operand of `gnn.matmul`.
    The CPU runtime's layout is `gnnrt_csr_matrix` in gnnrt/Kernels.h.

    Example:
    ```mlir
    tensor<2708x1433xf32, #gnn.csr<nnz = 49216>>   // Cora's features
    ```
  }];
  let parameters = (ins "int64_t":$nnz);
  let assemblyFormat = "`<` `nnz` `=` $nnz `>`";
}

def Gnn_Aggregation : I32EnumAttr<"Aggregation", "neighbourhood aggregation", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"mean", 1>,
    I32EnumAttrCase<"max", 2>]> {
  let cppNamespace = "::mlir::gnn";
  let genSpecializedAttr = 0;
}
def Gnn_AggregationAttr : EnumAttr<Gnn_Dialect, Gnn_Aggregation, "aggr"> {
  let summary = "how an aggregation combines incoming messages";
  let description = [{
    Used by `gnn.spmm` and the layers that aggregate: `sum`, `mean` (sum over the in-degree) or `max` (element-wise maximum; 0 for a node without incoming edges).

    Example: `#gnn<aggr mean>`
  }];
}

def Gnn_Activation : I32EnumAttr<"Activation", "element-wise activation", [
    I32EnumAttrCase<"relu", 0>, I32EnumAttrCase<"leaky_relu", 1>,
    I32EnumAttrCase<"elu", 2>, I32EnumAttrCase<"gelu", 3>,
    I32EnumAttrCase<"sigmoid", 4>, I32EnumAttrCase<"tanh", 5>]> {
  let cppNamespace = "::mlir::gnn";
  let genSpecializedAttr = 0;
}
def Gnn_ActivationAttr : EnumAttr<Gnn_Dialect, Gnn_Activation, "activation"> {
  let summary = "an element-wise activation function";
  let description = [{
    The kind of `gnn.activation` and `gnn.activation_grad`.

    Example: `#gnn<activation leaky_relu>`
  }];
}

def Gnn_EdgeEnd : I32EnumAttr<"EdgeEnd", "one end of an edge", [
    I32EnumAttrCase<"src", 0>, I32EnumAttrCase<"dst", 1>]> {
  let cppNamespace = "::mlir::gnn";
  let genSpecializedAttr = 0;
}
def Gnn_EdgeEndAttr : EnumAttr<Gnn_Dialect, Gnn_EdgeEnd, "edge_end"> {
  let summary = "which end of an edge a gather or scatter uses";
  let description = [{
    `src` or `dst` in `gnn.gather` and `gnn.scatter`.

    Example: `#gnn<edge_end src>`
  }];
}

def Gnn_EdgeNorm : I32EnumAttr<"EdgeNorm", "graph-derived edge weights", [
    I32EnumAttrCase<"symmetric", 0>, I32EnumAttrCase<"mean", 1>]> {
  let cppNamespace = "::mlir::gnn";
  let genSpecializedAttr = 0;
}
def Gnn_EdgeNormAttr : EnumAttr<Gnn_Dialect, Gnn_EdgeNorm, "edge_norm"> {
  let summary = "the kind of graph-derived edge weights";
  let description = [{
    `symmetric` (GCN) or `mean` (1 / in-degree of the destination) in `gnn.edge_norm`.

    Example: `#gnn<edge_norm symmetric>`
  }];
}

def Gnn_ReduceKind : I32EnumAttr<"ReduceKind", "reduction", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"mean", 1>,
    I32EnumAttrCase<"max", 2>]> {
  let cppNamespace = "::mlir::gnn";
  let genSpecializedAttr = 0;
}
def Gnn_ReduceKindAttr : EnumAttr<Gnn_Dialect, Gnn_ReduceKind, "reduce"> {
  let summary = "the reduction of `gnn.reduce`";
  let description = [{
    `sum`, `mean` or `max` along one dimension.

    Example: `#gnn<reduce sum>`
  }];
}

def Gnn_HeadMatrixKind : I32EnumAttr<"HeadMatrixKind", "head selection matrix", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"mean", 1>,
    I32EnumAttrCase<"spread", 2>]> {
  let cppNamespace = "::mlir::gnn";
  let genSpecializedAttr = 0;
}
def Gnn_HeadMatrixKindAttr
    : EnumAttr<Gnn_Dialect, Gnn_HeadMatrixKind, "head_matrix"> {
  let summary = "what a head matrix does to attention heads";
  let description = [{
    `sum` sums each head block, `mean` averages the heads, `spread` is `sum`'s
    transpose (see `gnn.head_matrix`).

    Example: `#gnn<head_matrix mean>`
  }];
}

// Float tensors of rank 1 or 2: node tensors, edge tensors, weights.
def Gnn_FloatTensor : RankedTensorOf<[AnyFloat]>;
def Gnn_NodeTensor : 2DTensorOf<[AnyFloat]>;
def Gnn_VectorTensor : 1DTensorOf<[AnyFloat]>;

def Gnn_NonNegativeF64Attr : ConfinedAttr<F64Attr, [AttrConstraint<
    CPred<"::llvm::cast<::mlir::FloatAttr>($_self).getValueAsDouble() >= 0.0">,
    "whose value is non-negative">]>;

#endif // GNNC_GNN_BASE

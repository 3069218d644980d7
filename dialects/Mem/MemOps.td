//===- MemOps.td - mem dialect operations ------------------*- tablegen -*-===//
//
// One op per memory decision of the planner. Every op but the terminator
// reads and writes the plan's resource, so no generic pass erases, merges or
// reorders a decision the predicted peak depends on.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_MEM_OPS
#define GNNC_MEM_OPS

include "dialects/Mem/MemBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// The storage the plan manages (device arena, host pool, spill files), as
// one side-effect resource. A resource of its own rather than the default
// one: the decisions order among themselves, but an analysis of ordinary
// memory (memref loads and stores) need not assume they alias it.
def Mem_PlanResource : Resource<"::mlir::mem::PlanResource">;

// Reading and writing the plan's storage: not trivially dead (canonicalize
// keeps an unused one), not CSE-able (two identical ones stay two), and
// ordered with respect to each other.
def Mem_PlanEffects : MemoryEffects<[MemRead<Mem_PlanResource>,
                                     MemWrite<Mem_PlanResource>]>;

class Mem_Op<string mnemonic, list<Trait> traits = []>
    : Op<Mem_Dialect, mnemonic, traits>;

def Mem_Stream : DefaultValuedAttr<ConfinedAttr<I64Attr, [IntNonNegative]>,
                                   "1">;
// A load that copies nothing and leaves its users to read the host copy a
// tile at a time, through a device buffer of this many bytes.
def Mem_TileBytes : OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>;
def Mem_FloatTensor : RankedTensorOf<[AnyFloat]>;
// A transfer of some rows only: the nested row sets of gnn.receptive_rows
// (hops + 1 + N + ceil(N / 4) integers) and the level of the set copied.
defvar Mem_RowArgs = (ins Optional<1DTensorOf<[I32]>>:$row_sets,
                          OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$level);

def Mem_OffloadOp : Mem_Op<"offload", [Mem_PlanEffects]> {
  let summary = "start copying a device tensor to host memory or disk";
  let description = [{
    Starts an asynchronous copy of `input` from the device to tier `tier`
    (`host`: pinned host memory; `disk`: a spill file) on copy stream
    `stream` (default 1; stream 0 is the compute stream) and returns a
    handle to the copy. The offload ends the device lifetime of `input`: its
    device buffer is released once the copy has completed, without a
    separate `mem.free`. Therefore no op after the offload in the same block
    may use `input`, with one exception: the next op that is not a `mem` op,
    when it is a `gnn` op, may read it one last time and write its result
    over its buffer. gnn-plan-memory places an offload there when that
    reader can work in place, so that one buffer serves both; a target that
    copies asynchronously must wait for the copy before that reader runs.
    Later users take the value `mem.prefetch` returns.

    The tier is spelled in the op and in the handle's type: the op says what
    is done, the type what a later `mem.prefetch` or `mem.free` receives.

    With `rows %sets {level = k}` (host tier only) the copy holds only the
    rows of `R_k` of the nested row sets `%sets` (`gnn.receptive_rows` over
    the input's `N` rows: `hops + 1 + N + ceil(N / 4)` integers): `input` was computed
    at those rows alone and no op reads its other rows
    (`gnn.rest_unread`), so they need not travel. The host block holds
    `|R_k|` rows, and the transfer moves that many.

    Example:
    ```mlir
    %h = mem.offload %x to host {stream = 1} : tensor<2708x16xf32> -> !mem.offloaded<host, tensor<2708x16xf32>>
    %r = mem.offload %y rows %sets to host {level = 1 : i64} : tensor<2708x16xf32>, tensor<5419xi32> -> !mem.offloaded<host, tensor<2708x16xf32>>
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$input), Mem_RowArgs,
                       (ins Mem_TierAttr:$tier, Mem_Stream:$stream));
  let results = (outs Mem_OffloadedType:$result);
  let assemblyFormat = [{
    $input (`rows` $row_sets^)? `to` custom<Tier>($tier) attr-dict `:`
    type($input) (`,` type($row_sets)^)? `->` qualified(type($result))
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$input,
                   "::mlir::mem::Tier":$tier), [{
      build($_builder, $_state, result, input, /*row_sets=*/::mlir::Value(),
            /*level=*/::mlir::IntegerAttr(),
            ::mlir::mem::TierAttr::get($_builder.getContext(), tier),
            /*stream=*/nullptr);
    }]>
  ];
  let hasVerifier = 1;
}

def Mem_PrefetchOp : Mem_Op<"prefetch", [Mem_PlanEffects]> {
  let summary = "bring an offloaded tensor back to the device";
  let description = [{
    Copies the bytes behind `handle` back into a fresh device buffer on copy
    stream `stream` (default 1) and returns them as a tensor; the compute
    stream waits for the copy before the first user of the result. The
    planner places the prefetch early enough that the copy hides behind
    compute, and late enough that the buffer does not raise the device peak.

    The handle stays valid: a tensor offloaded once (a parameter, say) may be
    prefetched more than once; `mem.free` of the handle releases the host or
    disk copy.

    With `rows %sets {level = k}` it brings back a copy that `mem.offload`
    made with the same rows: the rows of `R_k` land where they were, and
    the others hold whatever the buffer held (no op reads them).

    With `tile_bytes`, the prefetch copies nothing: its result stands for
    the host copy of a CSR matrix (`#gnn.csr`, offloaded to the host tier
    whole), which each user, a `gnn.matmul` reading it as its left operand
    (`A b` or `A^T b`), reads a tile at a time (a run of rows' or
    columns' column or row indices and values, 28 bytes a slot with the
    tile's piece records) through a device buffer of `tile_bytes` bytes,
    the result's storage. The device then holds a tile of the matrix
    instead of all of it, for the time of the product. The host copy may
    also be a static f32 matrix, whole or (with `rows`) the rows of `R_k`
    its offload kept, which each product reads a tile of rows at a time
    (gnnrt_cpu_matmul_tiles: the same BLAS calls as over the device copy,
    so the same bits).

    Example:
    ```mlir
    %y = mem.prefetch %h {stream = 1} : !mem.offloaded<host, tensor<2708x16xf32>> -> tensor<2708x16xf32>
    %z = mem.prefetch %r rows %sets {level = 1 : i64} : !mem.offloaded<host, tensor<2708x16xf32>>, tensor<5419xi32> -> tensor<2708x16xf32>
    %a = mem.prefetch %c {tile_bytes = 114688 : i64} : !mem.offloaded<host, tensor<2708x1433xf32, #gnn.csr<nnz = 49216>>> -> tensor<2708x1433xf32, #gnn.csr<nnz = 49216>>
    ```
  }];
  let arguments = !con((ins Mem_OffloadedType:$handle), Mem_RowArgs,
                       (ins Mem_Stream:$stream, Mem_TileBytes:$tile_bytes));
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $handle (`rows` $row_sets^)? attr-dict `:` qualified(type($handle))
    (`,` type($row_sets)^)? `->` type($result)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$handle), [{
      build($_builder, $_state, result, handle, /*row_sets=*/::mlir::Value(),
            /*level=*/::mlir::IntegerAttr(), /*stream=*/nullptr,
            /*tile_bytes=*/nullptr);
    }]>
  ];
  let hasVerifier = 1;
}

def Mem_RecomputeOp : Mem_Op<"recompute", [Mem_PlanEffects,
                                           IsolatedFromAbove, SingleBlock]> {
  let summary = "re-derive values from explicitly kept inputs";
  let description = [{
    Runs its single-block region on `inputs` and returns what the region's
    `mem.yield` yields. The region is isolated from above, so everything it
    reads is listed as an operand: the kept tensors (and keys, seeds) the
    recomputation starts from are visible in the IR, and the planner's
    liveness sees exactly which inputs a recomputation keeps alive. The
    entry block's arguments stand for the inputs, one for one, with the same
    types.

    The region holds a copy of the forward ops that produced the values;
    since dropout masks are functions of their counter-based key, the
    recomputed values equal the originals bit for bit. A recompute runs where
    it stands: it is neither hoisted, merged with an identical one nor
    erased when unused, because its position is the planner's decision.

    Example:
    ```mlir
    %h = mem.recompute (%x, %w) : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32> {
    ^bb0(%x0: tensor<8x4xf32>, %w0: tensor<4x4xf32>):
      %m = gnn.matmul %x0, %w0 : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
      mem.yield %m : tensor<8x4xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$inputs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` attr-dict `:` functional-type($inputs, results) $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Mem_YieldOp : Mem_Op<"yield", [Pure, Terminator,
                                   HasParent<"RecomputeOp">]> {
  let summary = "the values a mem.recompute region re-derives";
  let description = [{
    Terminates the region of `mem.recompute`; its operands become the
    recompute's results, in order and with the same types. It has no effect
    of its own: the enclosing recompute carries the ordering.

    Example:
    ```mlir
    mem.yield %a, %b : tensor<8x4xf32>, tensor<8xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def Mem_StoreAsOp : Mem_Op<"store_as", [Mem_PlanEffects]> {
  let summary = "keep a tensor in a narrower float type until it is needed";
  let description = [{
    Converts `input` to the narrower float element type of the result (same
    shape and encoding; the result's element bit width strictly smaller,
    e.g. f32 to bf16 or f16) and releases the wide buffer, so the tensor
    occupies fewer device bytes while it waits for its backward-pass users.
    Like `mem.offload`, it ends the lifetime of `input`: no op after it in
    the same block may use `input` (but the next `gnn` op, as there); later
    users take the value `mem.load_as` returns.
    gnn-plan-memory chooses this fate only where the program's
    `saved_precision` allows it; `mem.load_as` converts back. Rounding is to
    nearest even.

    Example:
    ```mlir
    %s = mem.store_as %x : tensor<2708x16xf32> -> tensor<2708x16xbf16>
    ```
  }];
  let arguments = (ins Mem_FloatTensor:$input);
  let results = (outs Mem_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Mem_LoadAsOp : Mem_Op<"load_as", [Mem_PlanEffects]> {
  let summary = "widen a tensor stored by mem.store_as for its users";
  let description = [{
    Converts a narrow stored tensor back to the wider float element type of
    the result (same shape and encoding; the result's element bit width
    strictly larger) in a fresh buffer; the users compute at the wide type.
    The conversion is exact, so the value equals the stored one.

    Example:
    ```mlir
    %y = mem.load_as %s : tensor<2708x16xbf16> -> tensor<2708x16xf32>
    ```
  }];
  let arguments = (ins Mem_FloatTensor:$input);
  let results = (outs Mem_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Mem_StoreSignOp : Mem_Op<"store_sign", [Mem_PlanEffects]> {
  let summary = "keep only whether each element of a tensor is positive";
  let description = [{
    Packs `input > 0` a bit an element: row `i` of the result holds the
    bits of row `i` of `input` (all its other dimensions flattened to
    `C` columns), column `c` in bit `c % 8` of byte `c / 8`, so the result
    is `N x ceil(C / 8)` bytes. A NaN is not positive. Like `mem.store_as`,
    it ends the lifetime of `input` (but for the next `gnn` op, as
    `mem.offload` says); `mem.load_sign` brings the bits back for
    the one kind of user that needs nothing else, the gradient of `relu` or
    `leaky_relu`, which depends on its input only through `x > 0`. That makes
    this fate exact at any `saved_precision`, at a 32nd of the bytes.

    With `rows %sets {level = k}` only the rows of `R_k` are packed (as for
    `mem.offload`); the other rows of the result are left as they were.

    Example:
    ```mlir
    %s = mem.store_sign %x : tensor<2708x16xf32> -> tensor<2708x2xi8>
    ```
  }];
  let arguments = !con((ins Mem_FloatTensor:$input), Mem_RowArgs);
  let results = (outs TensorOf<[I8]>:$result);
  let assemblyFormat = [{
    $input (`rows` $row_sets^)? attr-dict `:` type($input)
    (`,` type($row_sets)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def Mem_LoadSignOp : Mem_Op<"load_sign", [Mem_PlanEffects]> {
  let summary = "a tensor of 1.0 and 0.0 from the bits mem.store_sign kept";
  let description = [{
    Unpacks the bits of `mem.store_sign` into a fresh f32 tensor of the
    stored tensor's type: 1.0 where the element was positive, +0.0
    elsewhere. It is not the stored tensor, only its sign, so its only users
    may be `gnn.activation_grad relu` or `leaky_relu` reading it as their
    input: their derivative, `x > 0 ? 1 : 0` or `x > 0 ? 1 : slope`, is the
    same for both, and so are their results, bit for bit. With `rows %sets
    {level = k}` only the rows of `R_k` are written.

    With `packed`, nothing is unpacked: the result stands for the bits,
    which stay the only storage the device holds for it, and each gradient
    reading it reads `x > 0` from them (gnnrt_cpu_activation_grad_sign).
    A 2M x 64 tensor's gradient then needs 16 MB beside its other operand
    instead of 512 MB; the results are the same bits as unpacking first.

    Example:
    ```mlir
    %x1 = mem.load_sign %s : tensor<2708x2xi8> -> tensor<2708x16xf32>
    %dx = gnn.activation_grad relu %x1, %dy : tensor<2708x16xf32>
    %x2 = mem.load_sign %s {packed} : tensor<2708x2xi8> -> tensor<2708x16xf32>
    ```
  }];
  let arguments = !con((ins TensorOf<[I8]>:$input, UnitAttr:$packed),
                       Mem_RowArgs);
  let results = (outs Mem_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`rows` $row_sets^)? attr-dict `:` type($input)
    (`,` type($row_sets)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def Mem_FreeOp : Mem_Op<"free", [Mem_PlanEffects]> {
  let summary = "release the storage of a value at this point";
  let description = [{
    Marks where the storage of `value` is released: the device buffer of a
    tensor, or the host or disk copy behind an offloaded handle. It ends the
    value's lifetime, so no op after it in the same block may use the value.
    An explicit free pins the release point the planner's peak assumes,
    instead of leaving it to a later buffer analysis.

    Example:
    ```mlir
    mem.free %x : tensor<2708x16xf32>
    mem.free %h : !mem.offloaded<host, tensor<2708x16xf32>>
    ```
  }];
  let arguments = (ins AnyTypeOf<[AnyRankedTensor, Mem_OffloadedType]>:$value);
  let assemblyFormat = "$value attr-dict `:` qualified(type($value))";
  let hasVerifier = 1;
}

// Host homes: parameters, optimizer state and inputs whose plan keeps them in
// host memory between steps. The function argument (or result) carries
// `mem.home = "host"`; the caller's buffer is host memory, so no other op may
// read the argument, and a result must come from mem.store_home.
def Mem_LoadHomeOp : Mem_Op<"load_home", [Mem_PlanEffects,
                                          AllTypesMatch<["home", "result"]>]> {
  let summary = "copy a host-homed argument into a device buffer";
  let description = [{
    Copies the caller's host buffer of `home`, an argument of the enclosing
    function marked `mem.home = "host"`, into a fresh device buffer on copy
    stream `stream` (default 1) and returns it. The planner places one
    before the first use of the argument, or one before each use when the
    device cannot hold it in between; the argument itself is never read by
    anything else.

    With `rows %sets {level = k}` only the rows of `R_k` of the nested row
    sets `%sets` are copied, to the same rows of the device buffer; its
    other rows hold whatever the buffer held. For an argument that the
    function reads at those rows only (`gnn.rows_read = k`, set by
    `gnn-restrict-rows`): a step that computes at the loss's rows reads
    its features there alone.

    With `tile_bytes`, the load copies nothing: its result stands for the
    host copy of an edge tensor (the edge weights), which each user, a
    `gnn.spmm` over a graph loaded with `tile_bytes` too, reads as its
    weights a tile at a time, through a device buffer of `tile_bytes`
    bytes that is the result's storage (see `mem.load_graph_home`); or of
    a matrix that products alone read as their left operand, a CSR one
    (gnnrt_cpu_csr_matmul_tiles) or a static f32 one
    (gnnrt_cpu_matmul_tiles), a tile of rows at a time.

    Example:
    ```mlir
    func.func @step(%w: tensor<1433x16xf32> {mem.home = "host"}, ...) {
      %w0 = mem.load_home %w : tensor<1433x16xf32>
      %x0 = mem.load_home %x rows %sets {level = 2 : i64} : tensor<2708x16xf32>, tensor<5419xi32>
      %e0 = mem.load_home %e {tile_bytes = 32768 : i64} : tensor<13264xf32>
    ```
  }];
  let arguments = !con((ins AnyRankedTensor:$home), Mem_RowArgs,
                       (ins Mem_Stream:$stream, Mem_TileBytes:$tile_bytes));
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $home (`rows` $row_sets^)? attr-dict `:` type($home)
    (`,` type($row_sets)^)?
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$home), [{
      build($_builder, $_state, home.getType(), home,
            /*row_sets=*/::mlir::Value(), /*level=*/::mlir::IntegerAttr(),
            /*stream=*/nullptr, /*tile_bytes=*/nullptr);
    }]>
  ];
  let hasVerifier = 1;
}

// A gnn.graph, checked by predicate: the mem dialect names the type without
// including the gnn dialect's definitions (whose enums would be generated
// again here).
def Mem_GraphType : Type<CPred<"::llvm::isa<::mlir::gnn::GraphType>($_self)">,
                         "gnn.graph">;

def Mem_LoadGraphHomeOp : Mem_Op<"load_graph_home",
                                 [Mem_PlanEffects,
                                  AllTypesMatch<["home", "result"]>]> {
  let summary = "copy one CSR view of a host-homed graph into a device buffer";
  let description = [{
    Copies one CSR view (`indptr [N + 1]`, `src [E]` and `edge_id [E]`,
    int32) of `home`, a graph argument of the enclosing function marked
    `mem.home = "host"`, into a fresh device buffer of `4 (N + 1 + 2E)`
    bytes on copy stream `stream` (default 1), and returns the graph over
    that buffer, without the other view. The view is the CSR over
    destinations (`in`), which every graph kernel reads but one, or with
    `out` the CSR over sources, which `gnn.scatter src` reads (it sums by
    source). The verifier refuses a user that reads the view not copied,
    and the ops that build graphs from both (`gnn.add_self_loops`,
    `gnn.transpose`, `gnn.edge_norm`). A transposed graph's `in` view is
    its source's `out` view, so the backward pass's graph is loaded the
    same way.

    The planner gives @M.prepare's graphs a host home when the device
    cannot keep them: one load before each use (or one per view before its
    first use, kept to its last), half the graph's two views each time.

    With `tile_bytes`, the load copies nothing: its result stands for the
    host copy of the `in` view, which each user reads a tile at a time
    through a device buffer of `tile_bytes` bytes, the result's storage: a
    `gnn.spmm` sum or mean or a `gnn.sddmm` (the sources and edge ids of a
    run of rows' slots, 28 bytes a slot with the tile's piece records), a
    `gnn.edge_softmax` or `gnn.edge_softmax_grad` (the edge ids of whole
    rows, which a row's normalisation needs at once). The device then holds
    a tile of the view instead of all of it, for the time of the op.

    Example:
    ```mlir
    func.func @step(%g: !gnn.graph<2708x13264> {mem.home = "host"}, ...) {
      %g0 = mem.load_graph_home %g : !gnn.graph<2708x13264>
      %y = gnn.spmm sum %g0, %x, %w : ...
      %g1 = mem.load_graph_home %g {out} : !gnn.graph<2708x13264>
      %s = gnn.scatter src %g1, %e : ...
      %g2 = mem.load_graph_home %g {tile_bytes = 229376 : i64} : !gnn.graph<2708x13264>
      %z = gnn.spmm sum %g2, %x, %w : ...
    ```
  }];
  let arguments = (ins Mem_GraphType:$home, UnitAttr:$out, Mem_Stream:$stream,
                       Mem_TileBytes:$tile_bytes);
  let results = (outs Mem_GraphType:$result);
  let assemblyFormat = "$home attr-dict `:` qualified(type($home))";
  let hasVerifier = 1;
}

def Mem_StoreHomeOp : Mem_Op<"store_home", [Mem_PlanEffects,
                                            AllTypesMatch<["input", "result"]>]> {
  let summary = "copy a device tensor out to a host-homed result";
  let description = [{
    Copies `input` into the caller's host buffer of the function result it
    is returned as (marked `mem.home = "host"`) on copy stream `stream`. Its
    result may only be returned. The planner places it right after the op
    defining `input`, so the device buffer of `input` can end there; `input`
    may be stored to several homes (init returns one zero tensor as two
    optimizer states).

    Example:
    ```mlir
    %p, %m, %v = train.adam %w0, %g, %m0, %v0, %step {...} : tensor<1433x16xf32>
    %p1 = mem.store_home %p : tensor<1433x16xf32>
    ...
    return %loss, %p1, ...
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, Mem_Stream:$stream);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

#endif // GNNC_MEM_OPS

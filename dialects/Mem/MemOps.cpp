//===- MemOps.cpp - mem dialect -------------------------------------------===//
//
// Verifiers check local invariants only (types agree, a released value is
// not used later in its block); whether a plan fits its budget is a layer
// contract, checked by a verifier pass, not here.
//
//===----------------------------------------------------------------------===//
#include "dialects/Mem/MemOps.h"
#include "dialects/Gnn/GnnOps.h"
#include "dialects/Gnn/RowSets.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::mem;

MLIR_DEFINE_EXPLICIT_TYPE_ID(mlir::mem::PlanResource)

#include "dialects/Mem/MemDialect.cpp.inc"
#include "dialects/Mem/MemEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Mem/MemAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/Mem/MemTypes.cpp.inc"

void MemDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Mem/MemOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/Mem/MemTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Mem/MemAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// custom<Tier>: a bare keyword (`to host`), where the attribute's own syntax
// would read `to <host>`.
//===----------------------------------------------------------------------===//

static ParseResult parseTier(OpAsmParser &parser, TierAttr &tier) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<Tier> value = symbolizeTier(keyword);
  if (!value)
    return parser.emitError(loc, "expected a storage tier (host, disk), got '")
           << keyword << "'";
  tier = TierAttr::get(parser.getContext(), *value);
  return success();
}

static void printTier(OpAsmPrinter &printer, Operation *, TierAttr tier) {
  printer << stringifyTier(tier.getValue());
}

#define GET_OP_CLASSES
#include "dialects/Mem/MemOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Types and attributes
//===----------------------------------------------------------------------===//

LogicalResult
OffloadedType::verify(function_ref<InFlightDiagnostic()> emitError, Tier tier,
                      RankedTensorType tensorType) {
  // An offloaded tensor is by definition not on the device; a device
  // "handle" would be a tensor the planner forgot to account for.
  if (tier == Tier::device)
    return emitError() << "an offloaded tensor lives on host or disk, not on "
                          "the device";
  return success();
}

LogicalResult PlanAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               int64_t budget, int64_t peakDevice,
                               int64_t peakHost, int64_t peakDisk,
                               APFloat predictedSeconds, APFloat keepAllSeconds,
                               StringRef policy) {
  std::pair<StringRef, int64_t> sizes[] = {{"budget", budget},
                                           {"peak_device", peakDevice},
                                           {"peak_host", peakHost},
                                           {"peak_disk", peakDisk}};
  for (auto [name, bytes] : sizes)
    if (bytes < 0)
      return emitError() << name << " must be a non-negative number of bytes, "
                         << "got " << bytes;
  std::pair<StringRef, APFloat> times[] = {
      {"predicted_seconds", predictedSeconds},
      {"keep_all_seconds", keepAllSeconds}};
  for (const auto &[name, seconds] : times) {
    if (&seconds.getSemantics() != &APFloat::IEEEdouble())
      return emitError() << name << " must be a double";
    // Reports divide and compare these; NaN or infinity would poison them.
    if (!seconds.isFinite() || (seconds.isNegative() && !seconds.isZero()))
      return emitError() << name
                         << " must be a finite, non-negative double, got "
                         << seconds.convertToDouble();
  }
  if (policy.empty())
    return emitError() << "policy must name how the plan was chosen";
  return success();
}

/// `mem.home` on a function argument or result: where the caller keeps the
/// value between calls. Only "host" is spelled; the device is the default.
static LogicalResult verifyHomeAttr(Operation *op, NamedAttribute attr) {
  if (attr.getName().getValue() != "mem.home")
    return op->emitError() << "unknown argument or result attribute '"
                           << attr.getName().getValue()
                           << "' of the mem dialect";
  auto home = dyn_cast<StringAttr>(attr.getValue());
  if (!home || home.getValue() != "host")
    return op->emitError() << "'mem.home' must be \"host\"";
  return success();
}

LogicalResult MemDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                   unsigned,
                                                   NamedAttribute attr) {
  return verifyHomeAttr(op, attr);
}

LogicalResult MemDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                      unsigned,
                                                      NamedAttribute attr) {
  return verifyHomeAttr(op, attr);
}

LogicalResult MemDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  Attribute value = attr.getValue();
  // Every discardable `mem.*` attribute is the dialect's; rejecting unknown
  // names catches a misspelt `mem.plan` that reports would silently miss.
  // Besides the plan, gnn-plan-memory records what `gnnc plan` and the
  // emitters read: the offload handle of each copy and their count, the
  // solver that chose the fates, the per-tensor table, the bytes of each
  // tier over the timeline, the loss's point on it, and the cache's part of
  // the predicted time.
  bool onFunction = isa<FunctionOpInterface>(op);
  auto wrongPlace = [&](StringRef where) {
    return op->emitError() << "'" << name << "' belongs on " << where
                           << ", not on '" << op->getName() << "'";
  };
  if (name == PlanAttrHelper::getNameStr()) {
    if (!isa<PlanAttr>(value))
      return op->emitError()
             << "'" << name << "' must be a #mem.plan attribute, got " << value;
    return onFunction ? success() : wrongPlace("a function");
  }
  if (name == "mem.handle" || name == "mem.num_handles" ||
      name == "mem.loss_point") {
    auto i = dyn_cast<IntegerAttr>(value);
    if (!i || i.getInt() < 0)
      return op->emitError()
             << "'" << name << "' must be a non-negative integer, got "
             << value;
    if (name == "mem.handle")
      return isa<OffloadOp>(op) ? success() : wrongPlace("a mem.offload");
    return onFunction ? success() : wrongPlace("a function");
  }
  if (name == "mem.solver") {
    auto solver = dyn_cast<StringAttr>(value);
    if (!solver || solver.getValue().empty())
      return op->emitError()
             << "'" << name << "' must name the solver that chose the fates";
    return onFunction ? success() : wrongPlace("a function");
  }
  if (name == "mem.cache_seconds" || name == "mem.split_seconds") {
    if (!isa<FloatAttr>(value))
      return op->emitError()
             << "'" << name << "' must be a float, got " << value;
    return onFunction ? success() : wrongPlace("a function");
  }
  if (name == "mem.fates") {
    auto rows = dyn_cast<ArrayAttr>(value);
    if (!rows ||
        !llvm::all_of(rows, [](Attribute a) { return isa<DictionaryAttr>(a); }))
      return op->emitError()
             << "'" << name << "' must be an array of dictionaries";
    return onFunction ? success() : wrongPlace("a function");
  }
  if (name == "mem.device_curve" || name == "mem.host_curve" ||
      name == "mem.disk_curve") {
    if (!isa<DenseI64ArrayAttr>(value))
      return op->emitError() << "'" << name << "' must be an array<i64>";
    return onFunction ? success() : wrongPlace("a function");
  }
  return op->emitError() << "unknown mem attribute '" << name << "'";
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

/// The user of \p value whose ancestor in \p op's block comes first after
/// \p op, or null. Users nested in a later op's regions count: for the
/// release point, using a value inside an `scf.if` after it is no different
/// from using it directly.
/// Users of \p spared itself (not of its regions) are not counted.
static Operation *findUseAfter(Operation *op, Value value,
                               Operation *spared = nullptr) {
  Block *block = op->getBlock();
  if (!block)
    return nullptr;
  Operation *first = nullptr, *firstAncestor = nullptr;
  for (Operation *user : value.getUsers()) {
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    if (!ancestor || ancestor == op || !op->isBeforeInBlock(ancestor) ||
        user == spared)
      continue;
    if (!firstAncestor || ancestor->isBeforeInBlock(firstAncestor)) {
      first = user;
      firstAncestor = ancestor;
    }
  }
  return first;
}

/// The op that a transfer \p op ending its input's lifetime (mem.offload,
/// mem.store_as, mem.store_sign) may still leave one read to: the next op
/// that is not a mem op, when it is a gnn op. The planner puts a transfer
/// there when that op is its input's last reader and can write its result
/// over the input's buffer: the data has left by then, and one buffer
/// serves both.
static Operation *lastReaderAfterTransfer(Operation *op) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (!isa<MemDialect>(next->getDialect()))
      return isa<gnn::GnnDialect>(next->getDialect()) ? next : nullptr;
  return nullptr;
}

/// Fails when \p value is used after \p op, which ended its lifetime
/// (after \p spared, when that op may still read it).
static LogicalResult verifyNoUseAfter(Operation *op, Value value, StringRef why,
                                      Operation *spared = nullptr) {
  Operation *user = findUseAfter(op, value, spared);
  if (!user)
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << "operand is used after it " << why;
  diag.attachNote(user->getLoc()) << "used here";
  return diag;
}

/// The rule of mem.offload, mem.store_as and mem.store_sign: the transfer
/// \p op ends \p input's lifetime, but for one last read by the next gnn
/// op (lastReaderAfterTransfer).
static LogicalResult verifyTransferEndsInput(Operation *op, Value input,
                                             StringRef why) {
  return verifyNoUseAfter(op, input, why, lastReaderAfterTransfer(op));
}

/// The checks of a transfer's `rows %sets {level}`: both or neither; rows
/// of a matrix; sets over its rows (hops + 1 + N + ceil(N / 4) integers) with
/// the level within their hops.
static LogicalResult verifyTransferRows(Operation *op, Value rowSets,
                                        std::optional<uint64_t> level,
                                        RankedTensorType tensor) {
  if (!rowSets && !level)
    return success();
  if (!rowSets || !level)
    return op->emitOpError("needs both row sets and a level, or neither");
  if (tensor.getRank() != 2 || !tensor.hasStaticShape())
    return op->emitOpError("row sets need a static matrix, got ") << tensor;
  int64_t size = cast<RankedTensorType>(rowSets.getType()).getDimSize(0);
  int64_t hops = gnn::rowSetsHops(size, tensor.getDimSize(0));
  if (ShapedType::isDynamic(size) || hops < 0)
    return op->emitOpError("row sets of ")
           << size << " integers are not over " << tensor.getDimSize(0)
           << " rows (hops + 1 + N + ceil(N / 4))";
  if (static_cast<int64_t>(*level) > hops)
    return op->emitOpError("level ")
           << *level << " is beyond the row sets' " << hops << " hops";
  return success();
}

LogicalResult OffloadOp::verify() {
  if (getTier() == Tier::device)
    return emitOpError("can only offload to host or disk");
  if (getRowSets() && getTier() != Tier::host)
    return emitOpError("offloads rows to the host tier only");
  if (failed(verifyTransferRows(*this, getRowSets(), getLevel(),
                                getInput().getType())))
    return failure();
  OffloadedType handle = getResult().getType();
  if (handle.getTier() != getTier())
    return emitOpError("result tier '")
           << stringifyTier(handle.getTier()) << "' must be the op's tier '"
           << stringifyTier(getTier()) << "'";
  if (handle.getTensorType() != getInput().getType())
    return emitOpError("result must hold the operand's type ")
           << getInput().getType() << ", got " << handle.getTensorType();
  return verifyTransferEndsInput(*this, getInput(),
                                 "was offloaded (use the mem.prefetch result)");
}

Operation *mlir::mem::nonProductReader(Value csr) {
  for (OpOperand &use : csr.getUses())
    if (!isa<gnn::MatmulOp>(use.getOwner()) || use.getOperandNumber() != 0)
      return use.getOwner();
  return nullptr;
}

bool mlir::mem::readsGraphInTiles(OpOperand &use) {
  Operation *user = use.getOwner();
  // The edge kernels restricted to the edges into some rows copy those
  // rows' slots through the tile (gnnrt_cpu_sddmm_rows_tiles and the like),
  // leaving the other edges' rows as they were: only for a result no op
  // reads there. A restricted scatter reads the view of its end.
  if (gnn::getEdgeRestriction(user))
    return use.get() == user->getOperand(0) &&
           user->hasAttr(gnn::kRestUnreadAttr);
  if (auto scatter = dyn_cast<gnn::ScatterOp>(user))
    return use.get() == scatter.getGraph() && scatter.getRowSets();
  if (auto spmm = dyn_cast<gnn::SpmmOp>(user))
    return use.get() == spmm.getGraph() &&
           spmm.getAggr() != gnn::Aggregation::max;
  if (auto sddmm = dyn_cast<gnn::SddmmOp>(user))
    return use.get() == sddmm.getGraph();
  if (auto softmax = dyn_cast<gnn::EdgeSoftmaxOp>(user))
    return use.get() == softmax.getGraph();
  if (auto grad = dyn_cast<gnn::EdgeSoftmaxGradOp>(user))
    return use.get() == grad.getGraph();
  // The row sets read the slots of their sets' rows, one hop at a time;
  // the edge sets those of their last node set.
  if (auto sets = dyn_cast<gnn::ReceptiveRowsOp>(user))
    return use.get() == sets.getGraph();
  if (auto sets = dyn_cast<gnn::ReceptiveEdgesOp>(user))
    return use.get() == sets.getGraph();
  return false;
}

std::optional<uint64_t> mlir::mem::tileBytesRead(Value value) {
  Operation *def = value.getDefiningOp();
  if (auto load = dyn_cast_or_null<LoadHomeOp>(def))
    return load.getTileBytes();
  if (auto load = dyn_cast_or_null<LoadGraphHomeOp>(def))
    return load.getTileBytes();
  if (auto prefetch = dyn_cast_or_null<PrefetchOp>(def))
    return prefetch.getTileBytes();
  return std::nullopt;
}

bool mlir::mem::isDenseF32Matrix(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 2 && tensor.hasStaticShape() &&
         tensor.getElementType().isF32() && !tensor.getEncoding();
}

/// A matrix that \p op (with `tile_bytes`) leaves in host memory is
/// read by products only.
static LogicalResult verifyReadByProducts(Operation *op) {
  if (Operation *reader = nonProductReader(op->getResult(0)))
    return op->emitOpError("with tile_bytes may only be read as the left "
                           "operand of a gnn.matmul, but '")
           << reader->getName() << "' reads it";
  return success();
}

LogicalResult PrefetchOp::verify() {
  RankedTensorType expected = getHandle().getType().getTensorType();
  if (getResult().getType() != expected)
    return emitOpError("result type must be the offloaded type ")
           << expected << ", got " << getResult().getType();
  // The copy's layout: the rows the offload kept, or all of them.
  if (auto offload = getHandle().getDefiningOp<OffloadOp>()) {
    if (offload.getRowSets() != getRowSets() ||
        offload.getLevel() != getLevel())
      return emitOpError("must bring back the rows its mem.offload copied");
  }
  if (getTileBytes()) {
    // gnnrt_cpu_csr_matmul_tiles reads the host block of a whole CSR copy;
    // gnnrt_cpu_matmul_tiles a dense matrix's, or the rows its offload kept.
    if (gnn::isCsr(expected) ? getRowSets() != nullptr
                             : !isDenseF32Matrix(expected))
      return emitOpError("with tile_bytes brings back a whole CSR matrix or "
                         "a static f32 matrix");
    if (getHandle().getType().getTier() != Tier::host)
      return emitOpError("with tile_bytes reads a copy in the host tier");
    if (failed(verifyReadByProducts(*this)))
      return failure();
  }
  return verifyTransferRows(*this, getRowSets(), getLevel(), expected);
}

LogicalResult RecomputeOp::verify() {
  if (getNumResults() == 0)
    return emitOpError("must re-derive at least one value");
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("region needs one argument per input: expected ")
           << getInputs().size() << ", got " << body.getNumArguments();
  for (auto [i, input, arg] : llvm::enumerate(getInputs(), body.getArguments()))
    if (input.getType() != arg.getType())
      return emitOpError("region argument #")
             << i << " has type " << arg.getType() << ", but input #" << i
             << " has type " << input.getType();
  return success();
}

LogicalResult RecomputeOp::verifyRegions() {
  // SingleBlock checks neither that the block ends in our terminator nor
  // that it yields what we return.
  auto yield = dyn_cast<YieldOp>(getBody().front().getTerminator());
  if (!yield)
    return emitOpError("region must end in mem.yield");
  if (yield.getValues().getTypes() != getResultTypes())
    return yield.emitOpError("yields ")
           << yield.getValues().getTypes() << ", but the mem.recompute "
           << "returns " << getResultTypes();
  return success();
}

/// store_as (\p narrow) and load_as change only the element type, and in
/// the direction their names promise.
static LogicalResult verifyPrecisionChange(Operation *op, Value input,
                                           Value result, bool narrow) {
  auto from = cast<RankedTensorType>(input.getType());
  auto to = cast<RankedTensorType>(result.getType());
  if (from.clone(to.getElementType()) != to)
    return op->emitOpError("result must have the operand's shape and "
                           "encoding, got ")
           << from << " -> " << to;
  unsigned fromBits = from.getElementTypeBitWidth();
  unsigned toBits = to.getElementTypeBitWidth();
  if (narrow ? toBits >= fromBits : toBits <= fromBits)
    return op->emitOpError("result element type ")
           << to.getElementType() << " must be "
           << (narrow ? "narrower" : "wider") << " than the operand's "
           << from.getElementType();
  return success();
}

LogicalResult StoreAsOp::verify() {
  if (failed(verifyPrecisionChange(*this, getInput(), getResult(),
                                   /*narrow=*/true)))
    return failure();
  // Like an offload, storing narrow replaces the wide buffer; a later use
  // of the wide value would keep it alive and void the saving.
  return verifyTransferEndsInput(
      *this, getInput(), "was stored narrow (use the mem.load_as result)");
}

LogicalResult LoadAsOp::verify() {
  return verifyPrecisionChange(*this, getInput(), getResult(),
                               /*narrow=*/false);
}

RankedTensorType mlir::mem::signBitsType(RankedTensorType tensor) {
  if (!tensor.hasStaticShape() || tensor.getEncoding() ||
      tensor.getRank() == 0 || !isa<FloatType>(tensor.getElementType()))
    return {};
  int64_t rows = tensor.getDimSize(0);
  int64_t cols = rows == 0 ? 0 : tensor.getNumElements() / rows;
  return RankedTensorType::get({rows, (cols + 7) / 8},
                               IntegerType::get(tensor.getContext(), 8));
}

bool mlir::mem::readsSignOnly(OpOperand &use) {
  auto grad = dyn_cast<gnn::ActivationGradOp>(use.getOwner());
  return grad && use.get() == grad.getInput() &&
         use.get() != grad.getResultGrad() &&
         (grad.getKind() == gnn::Activation::relu ||
          grad.getKind() == gnn::Activation::leaky_relu);
}

/// The checks shared by store_sign and load_sign: \p bits is \p tensor's
/// packing, and the rows (if any) are over its rows.
static LogicalResult verifySignPacking(Operation *op, RankedTensorType tensor,
                                       Type bits, Value rowSets,
                                       std::optional<uint64_t> level) {
  RankedTensorType expected = signBitsType(tensor);
  if (!expected)
    return op->emitOpError("packs a static float tensor without encoding, "
                           "got ")
           << tensor;
  if (bits != expected)
    return op->emitOpError("bits of ")
           << tensor << " must be " << expected << ", got " << bits;
  if (rowSets && tensor.getRank() != 2)
    return op->emitOpError("row sets need a matrix, got ") << tensor;
  return verifyTransferRows(op, rowSets, level, tensor);
}

LogicalResult StoreSignOp::verify() {
  if (failed(verifySignPacking(*this, getInput().getType(),
                               getResult().getType(), getRowSets(),
                               getLevel())))
    return failure();
  return verifyTransferEndsInput(*this, getInput(),
                                 "was stored as its sign (use mem.load_sign)");
}

LogicalResult LoadSignOp::verify() {
  if (failed(verifySignPacking(*this, getResult().getType(),
                               getInput().getType(), getRowSets(), getLevel())))
    return failure();
  for (OpOperand &use : getResult().getUses())
    if (!readsSignOnly(use)) {
      InFlightDiagnostic diag =
          emitOpError("result is a sign, not the stored tensor: only the "
                      "input of a relu or leaky_relu gradient may read it");
      diag.attachNote(use.getOwner()->getLoc()) << "read here";
      return diag;
    }
  return success();
}

LogicalResult FreeOp::verify() {
  return verifyNoUseAfter(*this, getValue(), "was freed");
}

/// Whether the function's argument or result \p index is marked
/// `mem.home = "host"`.
static bool isHostHome(FunctionOpInterface func, unsigned index, bool result) {
  auto home = result ? func.getResultAttrOfType<StringAttr>(index, "mem.home")
                     : func.getArgAttrOfType<StringAttr>(index, "mem.home");
  return home && home.getValue() == "host";
}

/// A copy in from a host home (\p op) reads \p home, which must be an
/// argument of the enclosing function marked mem.home = "host".
static LogicalResult verifyHomeOperand(Operation *op, Value home) {
  auto arg = dyn_cast<BlockArgument>(home);
  auto func = op->getParentOfType<FunctionOpInterface>();
  if (!arg || !func || arg.getOwner() != &func.getFunctionBody().front() ||
      !isHostHome(func, arg.getArgNumber(), /*result=*/false))
    return op->emitOpError("operand must be an argument of the enclosing "
                           "function marked mem.home = \"host\"");
  return success();
}

LogicalResult LoadHomeOp::verify() {
  if (failed(verifyHomeOperand(*this, getHome())))
    return failure();
  if (getTileBytes()) {
    if (getRowSets())
      return emitOpError("with tile_bytes copies no rows");
    // A CSR matrix that products read (gnnrt_cpu_csr_matmul_tiles), or a
    // dense one that products alone read (gnnrt_cpu_matmul_tiles).
    auto home = cast<RankedTensorType>(getHome().getType());
    if (gnn::isCsr(home) ||
        (isDenseF32Matrix(home) && !getResult().use_empty() &&
         !nonProductReader(getResult())))
      return verifyReadByProducts(*this);
    // The edge weights of aggregations that read their graph in tiles.
    for (OpOperand &use : getResult().getUses()) {
      auto spmm = dyn_cast<gnn::SpmmOp>(use.getOwner());
      if (!spmm || use.get() != spmm.getWeights() ||
          use.getOperandNumber() == 0 || !tileBytesRead(spmm.getGraph()))
        return emitOpError("with tile_bytes may only be read as the weights "
                           "of a gnn.spmm whose graph is a mem.load_graph_home "
                           "with tile_bytes, but '")
               << use.getOwner()->getName() << "' reads it";
    }
  }
  return verifyTransferRows(*this, getRowSets(), getLevel(),
                            cast<RankedTensorType>(getHome().getType()));
}

std::optional<GraphView> mlir::mem::graphViewReadBy(Operation *user) {
  if (!isa<gnn::GnnDialect>(user->getDialect()) ||
      isa<gnn::AddSelfLoopsOp, gnn::TransposeOp, gnn::EdgeNormOp>(user))
    return std::nullopt;
  if (auto scatter = dyn_cast<gnn::ScatterOp>(user))
    if (scatter.getEnd() == gnn::EdgeEnd::src)
      return GraphView::Out;
  return GraphView::In;
}

LogicalResult LoadGraphHomeOp::verify() {
  if (failed(verifyHomeOperand(*this, getHome())))
    return failure();
  if (getTileBytes()) {
    // gnnrt_cpu_spmm_tiles and the edge kernels' tiles read the `in` view;
    // a restricted scatter to sources (gnnrt_cpu_scatter_rows_tiles) the
    // `out` view.
    for (OpOperand &use : getResult().getUses())
      if (!readsGraphInTiles(use))
        return emitOpError("with tile_bytes may only be read as the graph of "
                           "gnn.spmm sum or mean, gnn.sddmm, gnn.edge_softmax "
                           "or gnn.edge_softmax_grad, or of one restricted to "
                           "some rows, or of gnn.receptive_rows or "
                           "gnn.receptive_edges, but '")
               << use.getOwner()->getName() << "' reads it";
  }
  GraphView copied = getOut() ? GraphView::Out : GraphView::In;
  for (Operation *user : getResult().getUsers())
    if (graphViewReadBy(user) != copied)
      return emitOpError("result has the graph's ")
             << (getOut() ? "out" : "in") << " view only, but '"
             << user->getName() << "' reads "
             << (graphViewReadBy(user) ? "the other" : "both");
  return success();
}

LogicalResult StoreHomeOp::verify() {
  auto func = getOperation()->getParentOfType<FunctionOpInterface>();
  for (OpOperand &use : getResult().getUses()) {
    Operation *user = use.getOwner();
    if (!user->hasTrait<OpTrait::IsTerminator>() || !func ||
        user->getParentOp() != func.getOperation() ||
        !isHostHome(func, use.getOperandNumber(), /*result=*/true))
      return emitOpError("result may only be returned as a function result "
                         "marked mem.home = \"host\"");
  }
  return success();
}

//===- MemOps.h - mem dialect -----------------------------------*- C++ -*-===//
//
// The mem dialect: the planner's memory decisions as ops, the offloaded
// tensor type, storage tiers and the `mem.plan` function attribute.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_DIALECTS_MEM_MEMOPS_H
#define GNNC_DIALECTS_MEM_MEMOPS_H

#include "dialects/Gnn/GnnDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/APFloat.h"

#include <optional>

namespace mlir::mem {
/// The storage the plan manages (device arena, host pool, spill files). Every
/// mem op but mem.yield reads and writes it, which keeps the planned order.
struct PlanResource : public SideEffects::Resource::Base<PlanResource> {
  StringRef getName() final { return "mem::PlanResource"; }
};
} // namespace mlir::mem
MLIR_DECLARE_EXPLICIT_TYPE_ID(mlir::mem::PlanResource)

#include "dialects/Mem/MemEnums.h.inc"

// Attributes and types come before the dialect: its generated
// PlanAttrHelper returns a PlanAttr by value.
#define GET_ATTRDEF_CLASSES
#include "dialects/Mem/MemAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/Mem/MemTypes.h.inc"

#include "dialects/Mem/MemDialect.h.inc"

#define GET_OP_CLASSES
#include "dialects/Mem/MemOps.h.inc"
namespace mlir::mem {
/// The CSR view of a graph operand that \p user reads: the CSR over
/// destinations for every graph kernel but `gnn.scatter src`, which sums by
/// source; none for ops that read both (those building graphs) or that are
/// not the gnn dialect's.
enum class GraphView { In, Out };
std::optional<GraphView> graphViewReadBy(Operation *user);

/// The first reader of \p csr that is not a `gnn.matmul` reading it as its
/// left operand (`A b` or `A^T b`), or nullptr when there is none: products
/// are what can read a CSR matrix from host memory a tile at a time
/// (`tile_bytes`, gnnrt_cpu_csr_matmul_tiles).
Operation *nonProductReader(Value csr);

/// The tile_bytes of the load or prefetch that defines \p value when it
/// leaves the copy in host memory for its readers to read a tile at a time
/// (mem.load_home, mem.load_graph_home or mem.prefetch with `tile_bytes`):
/// the device then holds a tile of that many bytes, not the value.
std::optional<uint64_t> tileBytesRead(Value value);

/// Whether \p type is a static f32 matrix without encoding: a left operand
/// that products may read from host memory a tile of rows at a time
/// (`tile_bytes`, gnnrt_cpu_matmul_tiles).
bool isDenseF32Matrix(Type type);

/// Whether \p use reads a graph as an op that can read it from host memory
/// a tile at a time (`mem.load_graph_home {tile_bytes}`): the graph of a
/// gnn.spmm sum or mean (gnnrt_cpu_spmm_tiles), of a gnn.sddmm, or of a
/// gnn.edge_softmax or its gradient (gnnrt_cpu_sddmm_tiles and the like);
/// restricted by gnn-restrict-rows, those and gnn.edge_add when their result
/// is `gnn.rest_unread`, and a gnn.scatter (gnnrt_cpu_*_rows_tiles); and
/// gnn.receptive_rows and gnn.receptive_edges (their _tiles kernels).
bool readsGraphInTiles(OpOperand &use);

/// The bytes mem.store_sign packs \p tensor into: a row of ceil(C / 8)
/// bytes for each of its N rows, C its other dimensions' product; null for
/// a tensor it cannot pack (dynamic, encoded, not float, rank 0).
RankedTensorType signBitsType(RankedTensorType tensor);

/// Whether \p use needs its value only through `value > 0`: the input of a
/// gnn.activation_grad of relu or leaky_relu, the one user mem.load_sign's
/// 1.0s and 0.0s may have.
bool readsSignOnly(OpOperand &use);
} // namespace mlir::mem

#endif // GNNC_DIALECTS_MEM_MEMOPS_H

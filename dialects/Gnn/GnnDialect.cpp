//===- GnnDialect.cpp - gnn dialect, types and attributes -----------------===//
#include "dialects/Gnn/GnnDialect.h"
#include "dialects/Gnn/GnnOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::gnn;

#include "dialects/Gnn/GnnDialect.cpp.inc"
#include "dialects/Gnn/GnnEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/Gnn/GnnTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Gnn/GnnAttrs.cpp.inc"

void GnnDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Gnn/GnnOps.cpp.inc"
      >();
  registerTypes();
  registerAttributes();
}

void GnnDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/Gnn/GnnTypes.cpp.inc"
      >();
}

void GnnDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Gnn/GnnAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// GraphType: `<` nodes `x` edges `>`, each a count or `?`.
//===----------------------------------------------------------------------===//

Type GraphType::parse(AsmParser &parser) {
  SmallVector<int64_t, 2> dims;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() ||
      parser.parseDimensionList(dims, /*allowDynamic=*/true,
                                /*withTrailingX=*/false) ||
      parser.parseGreater())
    return {};
  if (dims.size() != 2) {
    parser.emitError(loc, "expected `nodes x edges`, got ")
        << dims.size() << " dimension(s)";
    return {};
  }
  return GraphType::get(parser.getContext(), dims[0], dims[1]);
}

void GraphType::print(AsmPrinter &printer) const {
  auto dim = [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      printer << '?';
    else
      printer << d;
  };
  printer << '<';
  dim(getNodes());
  printer << 'x';
  dim(getEdges());
  printer << '>';
}

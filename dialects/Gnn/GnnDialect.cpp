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

//===----------------------------------------------------------------------===//
// CsrEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult CsrEncodingAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (shape.size() != 2 || ShapedType::isDynamicShape(shape))
    return emitError() << "#gnn.csr needs a static rank-2 shape";
  if (!elementType.isF32() && !elementType.isF64())
    return emitError() << "#gnn.csr needs f32 or f64 elements, got "
                       << elementType;
  // rows * cols cannot overflow for shapes the rest of the IR accepts, but
  // compare in double to be safe.
  if (getNnz() < 0 || double(getNnz()) > double(shape[0]) * double(shape[1]))
    return emitError() << "#gnn.csr<nnz = " << getNnz() << "> does not fit a "
                       << shape[0] << "x" << shape[1] << " matrix";
  return success();
}

CsrEncodingAttr mlir::gnn::getCsrEncoding(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor ? dyn_cast_or_null<CsrEncodingAttr>(tensor.getEncoding())
                : CsrEncodingAttr();
}

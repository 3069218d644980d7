//===- InputArguments.cpp - A function's dataset inputs -------------------===//
#include "passes/Graph/InputArguments.h"

using namespace mlir;

BlockArgument mlir::gnn::inputArgument(func::FuncOp func, StringRef role) {
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (auto attr = func.getArgAttrOfType<StringAttr>(i, "gnn.input");
        attr && attr.getValue() == role)
      return func.getArgument(i);
  return {};
}

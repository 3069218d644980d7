//===- FrontendFuzzer.cpp - libFuzzer target for parser + Sema ------------===//
//
// Feeds arbitrary bytes through the whole front end: UTF-8 check, lexer,
// parser with recovery, AST builder, and semantic analysis with the shipped
// datasets on the search path. Any crash, sanitizer report, leak or timeout
// is a bug: bad input must only ever produce diagnostics.
//
//===----------------------------------------------------------------------===//
#include "lang/Basic/Diagnostics.h"
#include "lang/Parser/Parser.h"
#include "lang/Sema/Sema.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::SourceMgr sourceMgr;
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz.gnn");
  unsigned id = sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  // Render every diagnostic (caret lines included) without keeping it.
  std::string sink;
  llvm::raw_string_ostream os(sink);
  gnnc::DiagnosticEngine diags(sourceMgr, id, &os);
  auto program = gnnc::parseProgram(diags);
  if (diags.hasErrors())
    return 0;
  gnnc::SemaOptions options;
  options.dataSearchPath = {GNNC_FUZZ_DATA_DIR};
  // Keep single inputs fast so libFuzzer explores instead of unrolling.
  options.maxUnrolledStatements = 2000;
  gnnc::checkProgram(*program, diags, options);
  return 0;
}

//===- Run.h - gnnc run and gnnc compile ------------------------*- C++ -*-===//
//
// The two commands that produce running code, over the JIT API: `run`
// compiles, trains every selected train block and reports; `compile` builds
// a standalone executable. Both return the process exit code.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_TOOLS_GNNC_RUN_H
#define GNNC_TOOLS_GNNC_RUN_H

#include "compiler/Driver/Driver.h"
#include "gnnrt/Session.h"

#include <cstdint>
#include <string>

namespace gnnc {

struct RunOptions {
  int64_t epochs = -1, seed = -1;
  int threads = 0;
  /// gnnrt::TrainOptions's early stopping and model selection.
  int64_t patience = 0;
  bool restoreBest = false;
  gnnrt::TrainOptions::Monitor monitor = gnnrt::TrainOptions::Monitor::Accuracy;
  bool quiet = false;
  std::string reportFile, saveWeights, loadWeights;
  bool useCache = true, verboseBuild = false;
};

int runProgram(const DriverOptions &driver, const RunOptions &options);
/// \p cudaArchs: "80", "90" for a CUDA-target program, else empty.
int compileProgram(const DriverOptions &driver, const std::string &output,
                   bool verbose, const std::vector<std::string> &cudaArchs);

} // namespace gnnc

#endif // GNNC_TOOLS_GNNC_RUN_H

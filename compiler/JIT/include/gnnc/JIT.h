//===- JIT.h - Compile and train .gnn programs from C++ ----------*- C++
//-*-===//
//
// The public C++ API of gnnc (installed as <prefix>/include/gnnc/JIT.h;
// `find_package(gnnc)` then `target_link_libraries(app gnnc::JIT)`):
//
//   auto program = gnnc::jit::Program::compileFile("cora_gcn.gnn");
//   if (!program) { report(program.takeError()); ... }
//   auto model = (*program)->bind();          // the program's own dataset
//   auto report = (*model)->train({});        // or trainStep() in a loop
//   (*model)->saveWeights("gcn.weights");
//
// compile* runs the whole compiler (front end, passes, the CPU emitter),
// builds the generated C++ with the system compiler into a shared object
// (cached by content under $GNNC_CACHE_DIR, default ~/.cache/gnnc) and
// loads it. bind* gives a Model: the runtime's gnnrt::Session over that
// code and a dataset, from disk or from the host's arrays. Every failure is
// an llvm::Error carrying the compiler's or runtime's message; nothing
// aborts.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_JIT_H
#define GNNC_JIT_H

#include "gnnc/CompileSettings.h"
#include "gnnrt/Dataset.h"
#include "gnnrt/Session.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gnnc::jit {

/// What a compile takes: the settings `gnnc` takes too (CompileSettings.h),
/// and where the JIT keeps what it builds.
struct CompileOptions : CompileSettings {
  /// Reuse shared objects built before for the same generated code.
  bool useCache = true;
  /// Where they are kept; empty: $GNNC_CACHE_DIR, else
  /// $XDG_CACHE_HOME/gnnc, else ~/.cache/gnnc.
  std::string cacheDir;
  /// Print the C++ compiler's command line to stderr.
  bool verbose = false;
};

class Model;

/// A compiled program: one entry per `train` block, in file order.
class Program {
public:
  static llvm::Expected<std::unique_ptr<Program>>
  compileFile(const std::string &path, const CompileOptions &options = {});
  /// \p name is the file name diagnostics show.
  static llvm::Expected<std::unique_ptr<Program>>
  compileString(const std::string &source, const std::string &name = "<string>",
                const CompileOptions &options = {});
  ~Program();

  size_t numTrains() const { return models.size(); }
  /// The table of train block \p index (model name, settings, functions).
  const gnnrt_model_desc &train(size_t index) const { return *models[index]; }
  /// The generated C++ (what `gnnc emit --stage=cpp` prints).
  const std::string &generatedSource() const { return cpp; }
  /// Whether the shared object came from the cache.
  bool fromCache() const { return cached; }

  /// Train block \p index on the data it names (its dataset, or \p dataDir
  /// when not empty; synthetic graphs are generated).
  llvm::Expected<std::unique_ptr<Model>>
  bind(size_t index = 0, const std::string &dataDir = "",
       const gnnrt::SessionOptions &options = {}) const;
  /// Train block \p index on arrays the host already has (CSR or edge
  /// list, features, labels, splits: gnnrt::HostDataset).
  llvm::Expected<std::unique_ptr<Model>>
  bindHost(size_t index, const gnnrt::HostDataset &data,
           const gnnrt::HostLoadOptions &loadOptions = {},
           const gnnrt::SessionOptions &options = {}) const;

private:
  Program() = default;
  static llvm::Expected<std::unique_ptr<Program>>
  compile(const std::string &path, const std::string *source,
          const CompileOptions &options);
  llvm::Expected<std::unique_ptr<Model>>
  bindData(size_t index, std::unique_ptr<gnnrt::Dataset> data, std::string note,
           const gnnrt::SessionOptions &options) const;

  std::shared_ptr<void> library; // dlopen handle, dlclose'd last.
  std::string cpp;
  bool cached = false;
  std::vector<const gnnrt_model_desc *> models;
};

/// A train block bound to data: train, evaluate, predict, save, load. It
/// keeps the loaded code alive, so it may outlive its Program.
class Model {
public:
  ~Model();

  const gnnrt_model_desc &desc() const { return trainer->model(); }
  const gnnrt::Dataset &data() const { return *dataset; }
  gnnrt::Session &session() { return *trainer; }
  /// A remark about the data ("ships no features: random stand-ins"), or
  /// empty.
  const std::string &dataNote() const { return note; }

  /// Fresh parameters and optimizer state from \p seed (-1: the program's).
  llvm::Error initialize(int64_t seed = -1);
  /// One optimizer step (full graph: one epoch); returns the loss.
  llvm::Expected<double> trainStep();
  /// initialize + epochs (progress, per-epoch callback) + final metrics.
  llvm::Expected<gnnrt::TrainReport> train(const gnnrt::TrainOptions &options);
  llvm::Expected<gnnrt_metrics> evaluate(gnnrt::Split split);
  /// Logits, numNodes x numClasses, row-major.
  llvm::Expected<std::vector<float>> predict();
  llvm::Error saveWeights(const std::string &path) const;
  llvm::Error loadWeights(const std::string &path);

private:
  friend class Program;
  Model() = default;
  std::shared_ptr<void> library; // The loaded code the tables live in.
  std::unique_ptr<gnnrt::Dataset> dataset;
  std::unique_ptr<gnnrt::Session> trainer;
  std::string note;
};

} // namespace gnnc::jit

#endif // GNNC_JIT_H

//===- JIT.cpp - Compile and train .gnn programs from C++ -----------------===//
//
// The compiler half of the JIT: the driver lowers the program to stage cpp,
// the emitter prints it, the system C++ compiler builds a shared object
// (content-addressed in a cache, so a second run of the same program skips
// it), and dlopen gives the gnnrt_model_desc tables. The other half, binding
// data and training, is the runtime's gnnrt::Session.
//
//===----------------------------------------------------------------------===//
#include "gnnc/JIT.h"
#include "compiler/JIT/Toolchain.h"

#include "compiler/Driver/Driver.h"

#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

using namespace gnnc;
using namespace gnnc::jit;

llvm::Expected<std::string>
gnnc::jit::generateCpp(const std::string &path, const std::string *source,
                       const CompileOptions &options) {
  DriverOptions driverOptions;
  static_cast<CompileSettings &>(driverOptions) = options;
  driverOptions.inputFile = path;
  std::string diags;
  llvm::raw_string_ostream diagOS(diags);
  Compilation compilation(driverOptions, diagOS);
  bool ok =
      source ? compilation.runFrontendOn(*source) : compilation.runFrontend();
  if (!ok)
    return fail(llvm::StringRef(diags).rtrim());
  if (compilation.getChecked().trains.empty())
    return fail(path + ": no train block to compile" +
                (options.only.empty()
                     ? ""
                     : " (none of model '" + options.only + "')"));
  if (options.target != "cpu" && options.target != "cuda")
    return fail("unknown target '" + options.target + "' (cpu, cuda)");
  std::string cpp;
  llvm::raw_string_ostream os(cpp);
  if (!compilation.emit(options.target == "cuda" ? Stage::Cuda : Stage::Cpp,
                        os))
    return fail(llvm::StringRef(diags).rtrim());
  return cpp;
}

llvm::Expected<std::unique_ptr<Program>>
Program::compile(const std::string &path, const std::string *source,
                 const CompileOptions &options) {
  llvm::Expected<std::string> cpp = generateCpp(path, source, options);
  if (!cpp)
    return cpp.takeError();
  llvm::Expected<Toolchain> toolchain = findToolchain();
  if (!toolchain)
    return toolchain.takeError();
  llvm::Expected<BuildResult> built =
      buildSharedObject(*toolchain, *cpp, options);
  if (!built)
    return built.takeError();

  void *handle = dlopen(built->path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return fail("cannot load the generated code " + built->path + ": " +
                dlerror());
  std::unique_ptr<Program> program(new Program());
  program->library = std::shared_ptr<void>(handle, [](void *h) { dlclose(h); });
  program->cpp = std::move(*cpp);
  program->cached = built->cached;
  auto models = reinterpret_cast<gnnrt_models_fn>(dlsym(handle, "gnnc_models"));
  if (!models)
    return fail(built->path +
                ": no gnnc_models table (a stale cache entry? "
                "remove " +
                llvm::sys::path::parent_path(built->path) + ")");
  int64_t count = 0;
  const gnnrt_model_desc *const *list = models(&count);
  for (int64_t i = 0; i < count; ++i) {
    if (list[i]->abi_version != GNNRT_MODEL_ABI_VERSION)
      return fail(built->path + ": model table version " +
                  llvm::Twine(list[i]->abi_version) + ", expected " +
                  llvm::Twine(GNNRT_MODEL_ABI_VERSION));
    program->models.push_back(list[i]);
  }
  return std::move(program);
}

llvm::Expected<std::unique_ptr<Program>>
Program::compileFile(const std::string &path, const CompileOptions &options) {
  return compile(path, nullptr, options);
}

llvm::Expected<std::unique_ptr<Program>>
Program::compileString(const std::string &source, const std::string &name,
                       const CompileOptions &options) {
  return compile(name, &source, options);
}

Program::~Program() = default;

llvm::Expected<std::unique_ptr<Model>>
Program::bindData(size_t index, std::unique_ptr<gnnrt::Dataset> data,
                  std::string note,
                  const gnnrt::SessionOptions &options) const {
  std::string error;
  std::unique_ptr<gnnrt::Session> session =
      gnnrt::Session::create(*models[index], *data, options, error);
  if (!session)
    return fail(error);
  std::unique_ptr<Model> model(new Model());
  model->library = library;
  model->dataset = std::move(data);
  model->trainer = std::move(session);
  model->note = std::move(note);
  return std::move(model);
}

llvm::Expected<std::unique_ptr<Model>>
Program::bind(size_t index, const std::string &dataDir,
              const gnnrt::SessionOptions &options) const {
  if (index >= models.size())
    return fail("train block " + llvm::Twine(index) + " does not exist (" +
                llvm::Twine(models.size()) + " compiled)");
  auto data = std::make_unique<gnnrt::Dataset>();
  std::string note, error;
  if (!gnnrt::loadModelData(models[index]->data, dataDir, *data, note, error))
    return fail(error);
  return bindData(index, std::move(data), std::move(note), options);
}

llvm::Expected<std::unique_ptr<Model>>
Program::bindHost(size_t index, const gnnrt::HostDataset &host,
                  const gnnrt::HostLoadOptions &loadOptions,
                  const gnnrt::SessionOptions &options) const {
  if (index >= models.size())
    return fail("train block " + llvm::Twine(index) + " does not exist (" +
                llvm::Twine(models.size()) + " compiled)");
  auto data = std::make_unique<gnnrt::Dataset>();
  gnnrt::DatasetError err;
  if (!gnnrt::loadHostDataset(host, loadOptions, *data, err))
    return fail(err.str());
  return bindData(index, std::move(data), "", options);
}

Model::~Model() {
  // The session's tables live in the library: drop it first.
  trainer.reset();
}

llvm::Error Model::initialize(int64_t seed) {
  std::string error;
  if (!trainer->initialize(seed >= 0 ? seed : desc().seed, error))
    return fail(error);
  return llvm::Error::success();
}

llvm::Expected<double> Model::trainStep() {
  std::string error;
  double loss = 0;
  if (!trainer->initialized() && !trainer->initialize(desc().seed, error))
    return fail(error);
  if (!trainer->trainStep(loss, error))
    return fail(error);
  return loss;
}

llvm::Expected<gnnrt::TrainReport>
Model::train(const gnnrt::TrainOptions &options) {
  gnnrt::TrainReport report;
  std::string error;
  if (!trainer->train(options, report, error))
    return fail(error);
  return report;
}

llvm::Expected<gnnrt_metrics> Model::evaluate(gnnrt::Split split) {
  gnnrt_metrics m{};
  std::string error;
  if (!trainer->evaluate(split, m, error))
    return fail(error);
  return m;
}

llvm::Expected<std::vector<float>> Model::predict() {
  std::vector<float> logits;
  std::string error;
  if (!trainer->predict(logits, error))
    return fail(error);
  return logits;
}

llvm::Error Model::saveWeights(const std::string &path) const {
  std::string error;
  if (!trainer->saveWeights(path, error))
    return fail(error);
  return llvm::Error::success();
}

llvm::Error Model::loadWeights(const std::string &path) {
  std::string error;
  if (!trainer->loadWeights(path, error))
    return fail(error);
  return llvm::Error::success();
}

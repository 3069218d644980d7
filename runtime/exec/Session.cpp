//===- Session.cpp - Training a compiled model on bound data --------------===//
//
// Binding: every shape in the model's table is checked against the data
// before anything is allocated, then the whole footprint is laid out in the
// arena. State values are matched across init, step and predict by (role,
// param), never by position.
//
// The layout's order is gnnrt/Footprint.h's sessionPeak: @M.prepare's
// arena and tensors, the graph, prepare's call, the graph freed when
// nothing else reads it, then the rest, which first fit places from the
// lowest free offset, the graph's old place first. Values whose home is
// host memory (GNNRT_VALUE_HOME_HOST) are blocks of the host tier instead,
// plain host memory that the session fills and reads with memcpy.
//
// On CUDA the arena is device memory: everything the host puts in it or
// takes out of it goes through copyIn, copyOut or stageIn, which are memcpy
// (or nothing: stageIn fills the arena in place) on the CPU, so the CPU
// path does what it always did. Scalars (seed, step) and the gnnrt_graph
// structs stay host memory on both targets, as gnnrt/Model.h says; only
// the arrays they point at are the device's.
//
// libgnnrt_cuda.so is loaded (dlopen) when the first CUDA table is bound,
// not linked: it pulls in cuBLAS, cuSPARSE and NVRTC, whose loading costs
// every process that links this library about 0.1 s and 280 MiB of
// resident memory at startup, which a CPU run must not pay (its report
// prints its peak RSS). Generated CUDA code links the library itself; the
// session then finds the same copy, so both use one context.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Session.h"

#include "gnnrt/Cuda.h"
#include "gnnrt/Footprint.h"
#include "gnnrt/Graph.h"
#include "gnnrt/ProcessStats.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <mutex>
#include <type_traits>
#include <unistd.h>

using namespace gnnrt;

namespace {

std::string shapeString(const int64_t *shape, int32_t rank) {
  std::string s = "[";
  for (int32_t i = 0; i < rank; ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

int64_t elementCount(const gnnrt_value_desc &v) {
  int64_t n = 1;
  for (int32_t i = 0; i < v.rank; ++i)
    n *= v.shape[i];
  return n;
}

/// The index of @M.prepare's result that a "prepared" value names (its
/// param, "0", "1", ...), or -1 when it names none.
int preparedIndex(const gnnrt_value_desc &v, const gnnrt_function_desc *prep) {
  char *end = nullptr;
  long k = std::strtol(v.param, &end, 10);
  if (!prep || end == v.param || *end || k < 0 || k >= prep->num_results)
    return -1;
  return static_cast<int>(k);
}

/// The labels (0) and the train, val and test masks (1..3) by role
/// (footprint::kLabelAndMaskRoles), or -1.
int labelOrMaskIndex(const std::string &role) {
  for (int k = 0; k < 4; ++k)
    if (role == footprint::kLabelAndMaskRoles[k])
      return k;
  return -1;
}

bool isLabelOrMask(const std::string &role) {
  return labelOrMaskIndex(role) >= 0;
}

bool isStateRole(const std::string &role) {
  return role == "param" || role == "adam.m" || role == "adam.v" ||
         role == "sgd.momentum";
}

/// Whether \p v's memory plan keeps it in host memory between calls.
bool hostHome(const gnnrt_value_desc &v) {
  return (v.flags & GNNRT_VALUE_HOME_HOST) != 0;
}

/// \p v as messages name a value: "param 'lin.weight'", "the features".
std::string describe(const gnnrt_value_desc &v) {
  std::string role = v.role;
  if (role == "features")
    return "the features";
  if (*v.param)
    return role + " '" + v.param + "'";
  return "'" + role + "'";
}

/// Calls \p visit(fn, value, isResult, index) on every argument and result
/// of the table's functions, prepare included; stops at the first false.
template <typename Visit>
bool forEachValue(const gnnrt_model_desc &model, Visit visit) {
  for (const gnnrt_function_desc *fn :
       {model.init, model.step, model.predict, model.prepare}) {
    if (!fn)
      continue;
    for (int32_t i = 0; i < fn->num_args; ++i)
      if (!visit(*fn, fn->args[i], false, i))
        return false;
    for (int32_t i = 0; i < fn->num_results; ++i)
      if (!visit(*fn, fn->results[i], true, i))
        return false;
  }
  return true;
}

/// The first value the table keeps in host memory, described, or "".
std::string firstHostHome(const gnnrt_model_desc &model) {
  std::string found;
  forEachValue(model, [&](const gnnrt_function_desc &,
                          const gnnrt_value_desc &v, bool, int32_t) {
    if (hostHome(v))
      found = describe(v);
    return found.empty();
  });
  return found;
}

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

/// The CPU device's "free memory": what the kernel says is available.
uint64_t availableMemory() {
  long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || size <= 0)
    return uint64_t(1) << 30;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(size);
}

/// The offload handles the table's memory plan uses (0: none).
int64_t offloadHandles(const gnnrt_model_desc &model) {
  int64_t handles = 0;
  for (const gnnrt_function_desc *fn : {model.init, model.step, model.predict})
    if (fn)
      handles = std::max(handles, fn->num_offload_handles);
  return handles;
}

/// The functions of gnnrt/Cuda.h the session calls, from libgnnrt_cuda.so.
struct CudaLibrary {
  decltype(&gnnrt_cuda_open) open;
  decltype(&gnnrt_cuda_close) close;
  decltype(&gnnrt_cuda_info) info;
  decltype(&gnnrt_cuda_set_current) setCurrent;
  decltype(&gnnrt_cuda_current) current;
  decltype(&gnnrt_cuda_last_error) lastError;
  decltype(&gnnrt_cuda_malloc) malloc;
  decltype(&gnnrt_cuda_free) free;
  decltype(&gnnrt_cuda_host_alloc) hostAlloc;
  decltype(&gnnrt_cuda_host_free) hostFree;
  decltype(&gnnrt_cuda_copy) copy;
  decltype(&gnnrt_cuda_synchronize) synchronize;
  decltype(&gnnrt_cuda_mem_info) memInfo;
};

/// Set once loadCudaLibrary succeeded; a session with a context uses it.
const CudaLibrary *cudaLibrary = nullptr;

/// Loads libgnnrt_cuda.so once per process (never unloaded: contexts and
/// the CUDA runtime's state live in it). $GNNRT_CUDA_LIBRARY first, a path
/// (the CUDA emulator's, docs/Cuda.md); else by its name: the copy
/// generated code or the program already loaded, else one on the
/// program's rpath ($ORIGIN/../lib once installed) or LD_LIBRARY_PATH;
/// then the build tree's.
const CudaLibrary *loadCudaLibrary(std::string &error) {
  static std::once_flag once;
  static CudaLibrary library;
  static std::string failure;
  std::call_once(once, [] {
    auto reason = [] {
      const char *message = dlerror();
      return std::string(message ? message : "not found");
    };
    void *handle = nullptr;
    std::string reasons;
    if (const char *path = std::getenv("GNNRT_CUDA_LIBRARY"); path && *path) {
      handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
      if (!handle) {
        failure = std::string("no CUDA device: cannot load "
                              "$GNNRT_CUDA_LIBRARY=") +
                  path + ": " + reason();
        return;
      }
      // Generated code calls the library it was linked with, by its
      // SONAME: if that is another file, the session's context would be
      // one library's and the code's calls the other's.
      void *linked = dlopen("libgnnrt_cuda.so", RTLD_NOW | RTLD_NOLOAD);
      if (linked && linked != handle) {
        failure = std::string("no CUDA device: $GNNRT_CUDA_LIBRARY=") + path +
                  " is not the libgnnrt_cuda.so this program already loaded "
                  "(linked at build time and found first; put the "
                  "library's directory first in LD_LIBRARY_PATH)";
        return;
      }
    } else {
      handle = dlopen("libgnnrt_cuda.so", RTLD_NOW | RTLD_LOCAL);
      reasons = handle ? "" : reason();
    }
#ifdef GNNRT_CUDA_LIBRARY
    if (!handle) {
      handle = dlopen(GNNRT_CUDA_LIBRARY, RTLD_NOW | RTLD_LOCAL);
      if (!handle)
        reasons += "; " + reason();
    }
#endif
    if (!handle) {
      failure = "no CUDA device: cannot load the CUDA runtime library "
                "libgnnrt_cuda.so: " +
                reasons;
      return;
    }
    bool complete = true;
    auto bind = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          dlsym(handle, name));
      if (!fn && complete) {
        complete = false;
        failure = std::string("no CUDA device: libgnnrt_cuda.so has no ") +
                  name + " (a library from another gnnc?)";
      }
    };
    bind(library.open, "gnnrt_cuda_open");
    bind(library.close, "gnnrt_cuda_close");
    bind(library.info, "gnnrt_cuda_info");
    bind(library.setCurrent, "gnnrt_cuda_set_current");
    bind(library.current, "gnnrt_cuda_current");
    bind(library.lastError, "gnnrt_cuda_last_error");
    bind(library.malloc, "gnnrt_cuda_malloc");
    bind(library.free, "gnnrt_cuda_free");
    bind(library.hostAlloc, "gnnrt_cuda_host_alloc");
    bind(library.hostFree, "gnnrt_cuda_host_free");
    bind(library.copy, "gnnrt_cuda_copy");
    bind(library.synchronize, "gnnrt_cuda_synchronize");
    bind(library.memInfo, "gnnrt_cuda_mem_info");
    if (complete)
      cudaLibrary = &library;
  });
  if (!cudaLibrary)
    error = failure;
  return cudaLibrary;
}

/// The CUDA device's message after a failed gnnrt_cuda_* call.
std::string cudaError() {
  const char *message = cudaLibrary->lastError();
  return message && *message ? message : "unknown CUDA error";
}

using footprint::align64;

/// The address of every buffer of 0 bytes (an arena or a home would round
/// it up to 64): never read or written, never released.
char emptyAllocation;

} // namespace

const char *gnnrt::splitName(Split split) {
  switch (split) {
  case Split::Train:
    return "train";
  case Split::Val:
    return "val";
  case Split::Test:
    return "test";
  }
  return "?";
}

struct Session::Slot {
  std::string role, param;
  std::vector<int64_t> shape;
  int64_t count = 0;
  /// Both copies are host homes (GNNRT_VALUE_HOME_HOST): blocks of the
  /// host tier, not in the arena (the CPU target only: create refuses
  /// homes on CUDA).
  bool home = false;
  float *copy[2] = {nullptr, nullptr};
};

Session::Session(const gnnrt_model_desc &model) : desc(model) {}

Session::~Session() {
  // The device region goes before the context that allocated it (the
  // arena over it only keeps offsets and never touches it); the members go
  // after, in the CPU's order.
  if (cuda) {
    // The tiers first: their host arena lies in the context's pinned
    // memory and their IO thread may still be writing a spill file.
    tiers.reset();
    if (hostRegion)
      cudaLibrary->hostFree(cuda, hostRegion);
    if (deviceRegion)
      cudaLibrary->free(cuda, deviceRegion);
    cudaLibrary->close(cuda);
  }
}

std::unique_ptr<Session> Session::create(const gnnrt_model_desc &model,
                                         const Dataset &data,
                                         const SessionOptions &options,
                                         std::string &error) {
  if (model.abi_version != GNNRT_MODEL_ABI_VERSION) {
    error = "the compiled program uses model ABI version " +
            std::to_string(model.abi_version) + ", this runtime " +
            std::to_string(GNNRT_MODEL_ABI_VERSION) +
            ": rebuild it with this gnnc";
    return nullptr;
  }
  if (!model.init || !model.step || !model.predict) {
    error = std::string("model ") + model.model +
            ": training needs init, step and predict functions; gradient "
            "accumulation (grad_step/apply_step) is not supported yet by "
            "the CPU runtime";
    return nullptr;
  }
  // The table's own limits before any device is opened, so that they are
  // reported the same on a machine without a GPU.
  if (model.target != GNNRT_TARGET_CPU && model.target != GNNRT_TARGET_CUDA) {
    error = std::string("model ") + model.model + ": target " +
            std::to_string(model.target) +
            " is unknown to this runtime (is the program from a newer "
            "gnnc?)";
    return nullptr;
  }
  if (model.target == GNNRT_TARGET_CUDA) {
    std::string home = firstHostHome(model);
    if (!home.empty()) {
      error = std::string("model ") + model.model + ": the memory plan keeps " +
              home + " in host memory; such plans run on the CPU target only";
      return nullptr;
    }
  }
  std::unique_ptr<Session> s(new Session(model));
  if (!s->bind(data, options, error))
    return nullptr;
  return s;
}

int Session::slotOf(const gnnrt_value_desc &v) const {
  for (size_t i = 0; i < slots.size(); ++i)
    if (slots[i].role == v.role && slots[i].param == v.param)
      return static_cast<int>(i);
  return -1;
}

bool Session::bind(const Dataset &data, const SessionOptions &options,
                   std::string &error) {
  const std::string where =
      std::string("model ") + desc.model + " on '" + data.name + "': ";
  nodes = data.numNodes();
  edges = data.numEdges();
  features = data.numFeatures;
  classes = data.numClasses;
  datasetName = data.name;

  // The state: init's results, which step must take and give back.
  const gnnrt_function_desc &init = *desc.init, &stepFn = *desc.step,
                            &predictFn = *desc.predict;
  for (int32_t k = 0; k < init.num_results; ++k) {
    const gnnrt_value_desc &v = init.results[k];
    if (!isStateRole(v.role) || v.dtype != GNNRT_DTYPE_F32) {
      error = where + init.name + " result " + std::to_string(k) +
              " has role '" + v.role + "', not a parameter or optimizer state";
      return false;
    }
    Slot slot;
    slot.role = v.role;
    slot.param = v.param;
    slot.shape.assign(v.shape, v.shape + v.rank);
    slot.count = elementCount(v);
    slots.push_back(std::move(slot));
  }

  // Every argument and result of the three functions must be known here.
  auto checkValue = [&](const gnnrt_function_desc &fn,
                        const gnnrt_value_desc &v, bool result,
                        int32_t index) -> bool {
    std::string role = v.role;
    std::string what = where + fn.name + (result ? " result " : " argument ") +
                       std::to_string(index) + " ('" + role + "')";
    auto expect = [&](std::vector<int64_t> shape) {
      std::vector<int64_t> got(v.shape, v.shape + v.rank);
      if (got == shape)
        return true;
      error = what + " has shape " + shapeString(v.shape, v.rank) +
              " but the data gives " +
              shapeString(shape.data(), static_cast<int32_t>(shape.size())) +
              ": was the program compiled for another dataset?";
      return false;
    };
    if (role == "graph")
      return expect({nodes, edges});
    if (role == "features")
      return v.dtype == GNNRT_DTYPE_CSR_F32
                 ? expect({nodes, features, data.features.nnz()})
                 : expect({nodes, features});
    if (role == "labels" || role == "train_mask" || role == "val_mask" ||
        role == "test_mask")
      return expect({nodes});
    if (role == "seed" || role == "step")
      return true;
    if (role == "prepared") {
      // Result k of @M.prepare, as that function's table describes it.
      const gnnrt_function_desc *prep = desc.prepare;
      int k = preparedIndex(v, prep);
      if (k < 0 || (&fn == prep && (!result || k != index))) {
        error = what + ": '" + v.param +
                "' names no result of the model's prepare function";
        return false;
      }
      const gnnrt_value_desc &r = prep->results[k];
      if (r.dtype != v.dtype) {
        error = what + " has another type than " + prep->name + " result " +
                v.param;
        return false;
      }
      return expect(std::vector<int64_t>(r.shape, r.shape + r.rank));
    }
    if (role == "loss")
      return expect({});
    if (role == "logits")
      return expect({nodes, classes});
    if (isStateRole(role)) {
      int s = slotOf(v);
      if (s < 0) {
        error = what + " for '" + v.param + "' is not among " + init.name +
                "'s results";
        return false;
      }
      return expect(slots[s].shape);
    }
    error = what + ": this runtime does not know the role (is the program "
                   "from a newer gnnc?)";
    return false;
  };
  if (!forEachValue(desc, checkValue))
    return false;
  if (stepFn.num_results != 1 + static_cast<int32_t>(slots.size()) ||
      std::string(stepFn.results[0].role) != "loss") {
    error = where + stepFn.name +
            " must return the loss and then every state value of init";
    return false;
  }
  if (predictFn.num_results != 1) {
    error = where + predictFn.name + " must return the logits only";
    return false;
  }
  // Predict's logits, in its arena where its table says so: a wrong offset
  // would read or write past the workspace.
  const gnnrt_value_desc &logits = predictFn.results[0];
  logitsInArena =
      (logits.flags & GNNRT_VALUE_IN_ARENA) ? logits.arena_offset : int64_t(-1);
  if ((logits.flags & GNNRT_VALUE_IN_ARENA) &&
      (logits.arena_offset < 0 || logits.arena_offset % 4 != 0 ||
       static_cast<uint64_t>(logits.arena_offset) +
               4 * static_cast<uint64_t>(nodes) *
                   static_cast<uint64_t>(classes) >
           static_cast<uint64_t>(predictFn.arena_bytes))) {
    error = where + predictFn.name + ": its logits [" + std::to_string(nodes) +
            ", " + std::to_string(classes) + "] at arena offset " +
            std::to_string(logits.arena_offset) + " do not fit its arena of " +
            std::to_string(predictFn.arena_bytes) + " bytes";
    return false;
  }

  // Where each state value and the features live between calls. Every
  // function gets the same buffer, so all must agree; the first one seen
  // decides, and a disagreement names both.
  struct Home {
    std::string role, param, seenBy;
    bool host;
  };
  std::vector<Home> homes;
  bool homeOk = forEachValue(desc, [&](const gnnrt_function_desc &fn,
                                       const gnnrt_value_desc &v, bool result,
                                       int32_t index) {
    std::string role = v.role;
    std::string name = std::string(fn.name) +
                       (result ? " result " : " argument ") +
                       std::to_string(index) + " (" + describe(v) + ")";
    bool host = hostHome(v);
    // prepare writes its results where the session puts them: the homes
    // its readers carry decide.
    if (&fn == desc.prepare && result)
      return !host;
    if (role != "features" && !isLabelOrMask(role) && role != "prepared" &&
        !isStateRole(role)) {
      if (host)
        error = where + name +
                " is marked to live in host memory, which this runtime "
                "does for parameters, optimizer state, the features, labels "
                "and masks, and @M.prepare's values only";
      return !host;
    }
    std::string param =
        role == "features" || isLabelOrMask(role) ? "" : v.param;
    auto it = std::find_if(homes.begin(), homes.end(), [&](const Home &h) {
      return h.role == role && h.param == param;
    });
    if (it == homes.end()) {
      homes.push_back({role, param, name, host});
      return true;
    }
    if (it->host == host)
      return true;
    error = where + name + " lives " +
            (host ? "in host memory" : "on the device") + " but " + it->seenBy +
            " " + (it->host ? "in host memory" : "on the device") +
            ": every function must keep a value in the same place";
    return false;
  });
  if (!homeOk)
    return false;
  bool anyHome = false, featureHome = false;
  // The labels [0] and the train, val and test masks [1..3]: whether a
  // function takes them (only those come to the device) and whether they
  // have a host home.
  bool inputTaken[4] = {false, false, false, false};
  bool inputHome[4] = {false, false, false, false};
  for (const gnnrt_function_desc *fn : {&init, &stepFn, &predictFn})
    for (int32_t i = 0; i < fn->num_args; ++i)
      if (int k = labelOrMaskIndex(fn->args[i].role); k >= 0)
        inputTaken[k] = true;
  // @M.prepare's results with a host home, by index.
  std::vector<bool> preparedHome(
      desc.prepare ? static_cast<size_t>(desc.prepare->num_results) : 0);
  for (const Home &h : homes) {
    anyHome |= h.host;
    if (h.role == "features")
      featureHome = h.host;
    if (int k = labelOrMaskIndex(h.role); k >= 0)
      inputHome[k] = h.host;
    if (h.role == "prepared")
      for (size_t k = 0; k < preparedHome.size(); ++k)
        if (h.param == std::to_string(k))
          preparedHome[k] = h.host;
    for (Slot &slot : slots)
      if (slot.role == h.role && slot.param == h.param)
        slot.home = h.host;
  }

  // The graph can go once @M.prepare has read it, if no other function
  // reads it and no prepare result is a view of it (the compiler's
  // decision, in the flags; gnnrt/Footprint.h's sessionPeak).
  bool releaseGraph = desc.prepare != nullptr;
  for (const gnnrt_function_desc *fn : {&init, &stepFn, &predictFn})
    for (int32_t i = 0; i < fn->num_args; ++i)
      if (std::string(fn->args[i].role) == "graph" &&
          !(fn->args[i].flags & GNNRT_VALUE_UNUSED))
        releaseGraph = false;
  if (const gnnrt_function_desc *prep = desc.prepare)
    for (int32_t k = 0; k < prep->num_results; ++k)
      if (prep->results[k].flags & GNNRT_VALUE_VIEWS_GRAPH)
        releaseGraph = false;
  // prepare's graphs share its arena, so they have one home. A host home
  // puts that arena in host memory, and prepare reads the bound graph from
  // the host's copy: nothing of the graph's comes to the device before a
  // step copies a view in (mem.load_graph_home).
  bool graphsHome = false;
  if (const gnnrt_function_desc *prep = desc.prepare) {
    bool seen = false;
    for (int32_t k = 0; k < prep->num_results; ++k) {
      if (prep->results[k].dtype != GNNRT_DTYPE_GRAPH)
        continue;
      if (seen && graphsHome != preparedHome[k]) {
        error = where + "@M.prepare's graphs share its arena, but some have "
                        "a host home and some not";
        return false;
      }
      seen = true;
      graphsHome = preparedHome[k];
    }
    if (graphsHome && !releaseGraph) {
      error = where + "@M.prepare's graphs have a host home, but the bound "
                      "graph is read after prepare: both must live on the "
                      "same side";
      return false;
    }
  }
  if (data.featureSource == FeatureSource::None) {
    error = where + "the dataset has no node features to train on";
    return false;
  }
  if (data.features.numRows != nodes || data.features.numCols != features) {
    error = where + "the feature matrix is not nodes x features";
    return false;
  }

  // The program may ask for row-normalised features: a copy of the pattern
  // and values (kilobytes to a few MiB), never the dense matrix.
  SparseMatrix normalized;
  if (desc.data.normalize_features) {
    normalized = data.features;
    normalized.normalizeRows();
  }
  const SparseMatrix &featureMatrix =
      desc.data.normalize_features ? normalized : data.features;

  // The footprint, summed before allocating so that a budget too small is
  // one message with every part, not a failure halfway.
  CompressedEdges inCsr, outCsr;
  if (!buildInCsr(data.graph, inCsr, error) ||
      !buildOutCsr(data.graph, outCsr, error)) {
    error = where + error;
    return false;
  }
  // The sums are gnnrt/Footprint.h's, which gnn-plan-memory subtracts
  // from the budget too.
  namespace fp = footprint;
  const uint64_t graphBytes = fp::graphBytes(nodes, edges);
  // Features as each function takes them: dense, or the CSR buffer of
  // gnn-sparse-features (often both: step and predict decide separately).
  bool denseFeatures = false, csrFeatures = false;
  for (const gnnrt_function_desc *fn : {&stepFn, &predictFn})
    for (int32_t i = 0; i < fn->num_args; ++i)
      if (std::string(fn->args[i].role) == "features")
        (fn->args[i].dtype == GNNRT_DTYPE_CSR_F32 ? csrFeatures
                                                  : denseFeatures) = true;
  const int64_t featureNnz = data.features.nnz();
  // Homes take host memory, not the device's: the features', labels',
  // masks' and slots' bytes move from the device sum to homeBytes (in the host
  // tier, measured by its high-water mark).
  uint64_t inputBytes =
      fp::featureBytes(nodes, features, denseFeatures && !featureHome,
                       csrFeatures && !featureHome ? featureNnz : -1);
  uint64_t homeBytes =
      fp::featureBytes(nodes, features, denseFeatures && featureHome,
                       csrFeatures && featureHome ? featureNnz : -1);
  for (int k = 0; k < 4; ++k)
    if (inputTaken[k])
      (inputHome[k] ? homeBytes : inputBytes) +=
          k == 0 ? fp::labelBytes(nodes) : fp::maskBytes(nodes);
  uint64_t stateBytes = 0;
  for (const Slot &s : slots)
    (s.home ? homeBytes : stateBytes) += fp::stateBytes(s.count);
  // @M.prepare's arena (holding the graphs it builds) and its tensors stay
  // for the session.
  // Those with a host home (and then the bound graph) take host memory.
  uint64_t preparedBytes = 0;
  if (const gnnrt_function_desc *prep = desc.prepare) {
    (graphsHome ? homeBytes : preparedBytes) +=
        align64(static_cast<uint64_t>(prep->arena_bytes));
    for (int32_t k = 0; k < prep->num_results; ++k)
      if (prep->results[k].dtype != GNNRT_DTYPE_GRAPH)
        (preparedHome[k] ? homeBytes : preparedBytes) +=
            fp::preparedTensorBytes(
                static_cast<uint64_t>(elementCount(prep->results[k])));
  }
  const uint64_t deviceGraphBytes = graphsHome ? 0 : graphBytes;
  const uint64_t outputBytes = fp::outputBytes();
  const uint64_t predictBytes =
      fp::predictWorkspace(static_cast<uint64_t>(predictFn.arena_bytes),
                           static_cast<uint64_t>(nodes),
                           static_cast<uint64_t>(classes), logitsInArena >= 0);
  const uint64_t workspaceBytes =
      std::max(align64(static_cast<uint64_t>(std::max(
                   {init.arena_bytes, stepFn.arena_bytes, int64_t(1)}))),
               predictBytes);
  // Allocated in this order: prepare's arena and tensors, the graph, and
  // once prepare has run (and the graph has gone, when it may) the rest.
  // First fit packs each phase from the lowest free offset, so the arena's
  // highWaterEnd() after bind is exactly this.
  const uint64_t restBytes =
      inputBytes + stateBytes + outputBytes + workspaceBytes;
  const uint64_t needed =
      fp::sessionPeak(preparedBytes, deviceGraphBytes, restBytes, releaseGraph);
  // Every check of the table and the data is done: open the GPU, whose
  // free memory is the default budget.
  if (desc.target == GNNRT_TARGET_CUDA && !openCuda(error))
    return false;
  uint64_t budget = options.budgetBytes;
  if (budget == 0 && desc.memory > 0)
    budget = static_cast<uint64_t>(desc.memory);
  if (budget == 0 && !cuda)
    budget = availableMemory();
  if (budget == 0) {
    int64_t freeBytes = 0, totalBytes = 0;
    if (cudaLibrary->memInfo(cuda, &freeBytes, &totalBytes) != GNNRT_OK) {
      error = where + "cannot read the GPU's free memory: " + cudaError();
      return false;
    }
    uint64_t reserve =
        std::max(kCudaReserveBytes, static_cast<uint64_t>(totalBytes) / 32);
    budget = static_cast<uint64_t>(freeBytes) > reserve
                 ? static_cast<uint64_t>(freeBytes) - reserve
                 : 0;
    if (budget == 0) {
      error = where + "the GPU has " + formatBytes(freeBytes) +
              " free, less than the " + formatBytes(reserve) +
              " this runtime leaves for the CUDA libraries; set a `memory` "
              "budget to use what there is";
      return false;
    }
  }
  if (needed > budget) {
    error = where + "the memory budget of " + formatBytes(budget) +
            " is below the smallest plan this " + (cuda ? "CUDA" : "CPU") +
            " runtime can run: " + formatBytes(needed) +
            " (graph-derived values " + formatBytes(preparedBytes) +
            ", graph " + formatBytes(deviceGraphBytes) +
            (releaseGraph ? " freed once prepare has run, then" : ",") +
            " features/labels/masks " + formatBytes(inputBytes) +
            ", parameters and optimizer state x2 " + formatBytes(stateBytes) +
            ", loss " + formatBytes(outputBytes) +
            ", workspace of the step, init and predict (with the logits) " +
            formatBytes(workspaceBytes) +
            (homeBytes > 0
                 ? "; " + formatBytes(homeBytes) + " more kept in host memory"
                 : "") +
            ")";
    return false;
  }
  // The host and disk tiers, when the plan offloads anything or keeps a
  // value in host memory (CPU only: create refused homes on CUDA).
  if (offloadHandles(desc) > 0 || anyHome) {
    OffloadConfig config;
    config.hostBudget = desc.plan.host_memory > 0
                            ? static_cast<uint64_t>(desc.plan.host_memory)
                            : availableMemory() / 2;
    config.spillDir = desc.plan.spill_dir ? desc.plan.spill_dir : "";
    config.diskBudget = static_cast<uint64_t>(desc.plan.spill_bytes);
    if (cuda) {
      // The host tier in pinned memory, so that the copy stream's copies to
      // and from it overlap the compute stream. Pinning the whole budget
      // (half the machine's memory by default) would lock memory nothing
      // uses: the tier gets the plan's host peak, and a quarter more for
      // first fit's fragmentation (the measured high-water mark, in the
      // report, is what counts against the plan).
      const uint64_t peak =
          static_cast<uint64_t>(std::max<int64_t>(desc.plan.peak_host, 0));
      const uint64_t pinned =
          peak == 0 ? 0
                    : std::min(config.hostBudget,
                               peak + peak / 4 + (uint64_t(1) << 20));
      config.hostBudget = pinned;
      if (pinned > 0 &&
          cudaLibrary->hostAlloc(cuda, static_cast<int64_t>(pinned),
                                 &hostRegion) != GNNRT_OK) {
        hostRegion = nullptr;
        error = where + "cannot pin " + formatBytes(pinned) +
                " of host memory for the host tier: " + cudaError();
        return false;
      }
      config.hostRegion = hostRegion;
    }
    if (!OffloadTiers::create(config, tiers, error)) {
      error = where + error;
      return false;
    }
  }
  deviceArena = std::make_unique<Arena>();
  budgetBytes = budget;
  if (cuda) {
    // One device allocation, made once, of exactly what the session takes
    // (`needed`, which first fit reaches and nothing after bind extends):
    // the plan runs in real memory of its predicted size, and the rest of
    // the budget stays free for the CUDA libraries and other processes, so
    // the GPU memory measured in use is the plan's, not the budget's. A plan
    // that overran its own footprint would fail at its allocation with the
    // arena's message instead of growing past it.
    if (cudaLibrary->malloc(cuda, static_cast<int64_t>(needed),
                            &deviceRegion) != GNNRT_OK) {
      deviceRegion = nullptr;
      error = where + "cannot allocate the device arena of " +
              formatBytes(needed) + " on the GPU: " + cudaError();
      return false;
    }
    if (!Arena::createOver(deviceRegion, needed, *deviceArena, error)) {
      error = where + error;
      return false;
    }
  } else if (!Arena::create(budget, *deviceArena, error)) {
    error = where + error;
    return false;
  }
  Arena &arena = *deviceArena;
  auto alloc = [&](uint64_t bytes, const char *what) -> void * {
    // Nothing to hold takes nothing from the arena, as gnnrt/Footprint.h
    // (the planner's sum) counts it; a non-null address keeps the callers'
    // checks uniform. Nothing reads or writes through it.
    if (bytes == 0)
      return &emptyAllocation;
    void *p = arena.allocate(bytes, what, error);
    if (!p)
      error = where + error;
    return p;
  };

  // @M.prepare's arena (holding the graphs it builds) and its tensors,
  // first: they stay for the session, below the graph that may go.
  // Where a value with a host home gets its buffer: a block of the host
  // tier (homes live as long as the tiers), host memory on every target.
  auto home = [&](uint64_t bytes, const std::string &what) -> void * {
    if (bytes == 0)
      return &emptyAllocation;
    void *p = tiers->allocateHome(static_cast<int64_t>(bytes));
    if (!p)
      error = where + what + ": " + tiers->lastError();
    return p;
  };
  const gnnrt_function_desc *prep = desc.prepare;
  if (prep) {
    uint64_t arenaBytes = static_cast<uint64_t>(prep->arena_bytes);
    prepareArena =
        static_cast<char *>(graphsHome ? home(arenaBytes, "@M.prepare's graphs")
                                       : alloc(arenaBytes, "graph-derived"));
    if (!prepareArena)
      return false;
    preparedGraphs.assign(prep->num_results, gnnrt_graph{});
    prepared.clear();
    for (int32_t k = 0; k < prep->num_results; ++k) {
      const gnnrt_value_desc &r = prep->results[k];
      uint64_t bytes = 4 * static_cast<uint64_t>(elementCount(r));
      void *p = r.dtype == GNNRT_DTYPE_GRAPH
                    ? static_cast<void *>(&preparedGraphs[k])
                : preparedHome[k]
                    ? home(bytes, "@M.prepare's result " + std::to_string(k))
                    : alloc(bytes, "graph-derived");
      if (!p)
        return false;
      prepared.push_back(p);
    }
  }

  // The graph: both CSR views, as gnnrt_graph wants them.
  auto copyInts = [&](const std::vector<int32_t> &v,
                      const char *what) -> int32_t * {
    auto *p = static_cast<int32_t *>(alloc(4 * v.size(), what));
    if (p && !v.empty() && !copyIn(p, v.data(), 4 * v.size(), error)) {
      error = where + error;
      return nullptr;
    }
    return p;
  };
  // The host's copy of an array (never null).
  auto host = [](const std::vector<int32_t> &v) {
    static const int32_t none = 0;
    return v.empty() ? &none : v.data();
  };
  // With prepare's graphs in host memory the bound graph stays there too:
  // prepare reads the host's arrays (the CPU target only; create refuses
  // homes on CUDA), and nothing else does.
  auto graphInts = [&](const std::vector<int32_t> &v) -> const int32_t * {
    return graphsHome ? host(v) : copyInts(v, "graph");
  };
  graph.num_nodes = nodes;
  graph.num_edges = edges;
  graph.in.indptr = graphInts(inCsr.indptr);
  graph.in.src = graphInts(inCsr.indices);
  graph.in.edge_id = graphInts(inCsr.edgeIds);
  graph.out.indptr = graphInts(outCsr.indptr);
  graph.out.src = graphInts(outCsr.indices);
  graph.out.edge_id = graphInts(outCsr.edgeIds);
  if (!graph.in.indptr || !graph.in.src || !graph.in.edge_id ||
      !graph.out.indptr || !graph.out.src || !graph.out.edge_id)
    return false;
  // The check reads the arrays: on CUDA, the host's copies of them.
  gnnrt_graph hostGraph = graph;
  if (cuda) {
    hostGraph.in = {host(inCsr.indptr), host(inCsr.indices),
                    host(inCsr.edgeIds)};
    hostGraph.out = {host(outCsr.indptr), host(outCsr.indices),
                     host(outCsr.edgeIds)};
  }
  if (gnnrt_graph_check(&hostGraph) != GNNRT_OK) {
    error = where + "the graph failed the runtime's structural check";
    return false;
  }

  // The graph-derived values, once for this graph.
  if (prep) {
    std::vector<void *> args = {&graph};
    if (!call(*prep, args, prepared, error, prepareArena)) {
      error = where + error;
      return false;
    }
  }
  if (releaseGraph) {
    // Nothing reads the graph from here on: its place goes to the rest.
    // The struct is still passed (the ABI's argument list), with its counts
    // but no arrays, so that a stray read fails loudly. An empty array took
    // no arena bytes (alloc) and has nothing to release.
    for (const int32_t *array :
         {graph.in.indptr, graph.in.src, graph.in.edge_id, graph.out.indptr,
          graph.out.src, graph.out.edge_id})
      if (!graphsHome && array != static_cast<const void *>(&emptyAllocation) &&
          !arena.release(const_cast<int32_t *>(array))) {
        error = where + "releasing the graph: not an arena allocation";
        return false;
      }
    graph.in = {nullptr, nullptr, nullptr};
    graph.out = {nullptr, nullptr, nullptr};
    releasedGraph = true;
  }

  // A buffer of \p bytes filled by \p fill, through stageIn like every
  // buffer (homes exist on the CPU target only, where it fills in place).
  auto place = [&](uint64_t bytes, bool isHome, const char *what,
                   const std::function<bool(void *)> &fill) -> void * {
    void *p =
        isHome ? home(bytes, std::string("the ") + what) : alloc(bytes, what);
    if (!p)
      return nullptr;
    if (!stageIn(p, bytes, fill, error)) {
      error = where + error;
      return nullptr;
    }
    return p;
  };

  if (denseFeatures) {
    featureData = static_cast<float *>(
        place(4 * static_cast<uint64_t>(nodes * features), featureHome,
              "features", [&](void *p) {
                featureMatrix.writeDense(static_cast<float *>(p));
                return true;
              }));
    if (!featureData)
      return false;
  }
  if (csrFeatures) {
    auto build = [&](void *p) {
      if (gnnrt_cpu_csr_matrix_build(featureMatrix.indptr.data(),
                                     featureMatrix.indices.data(),
                                     featureMatrix.values.data(), nodes,
                                     features, featureNnz, p) == GNNRT_OK)
        return true;
      error = "the feature matrix is not a valid CSR matrix";
      return false;
    };
    featureCsr = place(static_cast<uint64_t>(
                           gnnrt_csr_matrix_bytes(nodes, features, featureNnz)),
                       featureHome, "features", build);
    if (!featureCsr)
      return false;
  }

  // Metrics read the labels and masks on the host; a function reads them
  // where the plan put them (its device buffer or its home), and only the
  // ones some function takes are there at all.
  hostLabels = data.labels;
  labelData = nullptr;
  std::fill(std::begin(maskData), std::end(maskData), nullptr);
  if (inputTaken[0]) {
    labelData = static_cast<int32_t *>(
        place(fp::labelBytes(nodes), inputHome[0], "labels", [&](void *p) {
          std::memcpy(p, hostLabels.data(), 4 * hostLabels.size());
          return true;
        }));
    if (!labelData)
      return false;
  }
  const std::vector<int32_t> *splits[3] = {&data.trainIdx, &data.valIdx,
                                           &data.testIdx};
  for (int k = 0; k < 3; ++k) {
    std::vector<uint8_t> &mask = hostMasks[k];
    mask.assign(static_cast<size_t>(nodes), 0);
    for (int32_t i : *splits[k])
      mask[static_cast<size_t>(i)] = 1;
    if (!inputTaken[k + 1])
      continue;
    maskData[k] = static_cast<uint8_t *>(
        place(fp::maskBytes(nodes), inputHome[k + 1], "masks", [&](void *p) {
          std::memcpy(p, mask.data(), mask.size());
          return true;
        }));
    if (!maskData[k])
      return false;
  }
  for (Slot &s : slots)
    for (float *&copy : s.copy)
      if (!(copy = static_cast<float *>(
                s.home ? home(4 * static_cast<uint64_t>(s.count),
                              s.role + " '" + s.param + "'")
                       : alloc(4 * static_cast<uint64_t>(s.count), "state"))))
        return false;
  lossData = static_cast<float *>(alloc(4, "loss"));
  workspace = static_cast<char *>(alloc(workspaceBytes, "step workspace"));
  if (!lossData || !workspace)
    return false;
  // Predict leaves the logits in its arena or after it (predictWorkspace);
  // the next step may overwrite them, by when the host has read them.
  logitsData = reinterpret_cast<float *>(
      workspace + fp::logitsOffset(static_cast<uint64_t>(predictFn.arena_bytes),
                                   logitsInArena));
  if (options.threads > 0)
    gnnrt_cpu_set_num_threads(options.threads);
  if (!buildCalls(error))
    return false;
  sampleDeviceMemory();
  return true;
}

bool Session::openCuda(std::string &error) {
  if (!loadCudaLibrary(error)) {
    error += std::string(" (model ") + desc.model +
             " was compiled for the CUDA target)";
    return false;
  }
  char message[1024] = "";
  cuda = cudaLibrary->open(-1, message, sizeof message);
  if (!cuda) {
    error = *message ? message : "no CUDA device: gnnrt_cuda_open failed";
    error += std::string(" (model ") + desc.model +
             " was compiled for the CUDA target)";
    return false;
  }
  gnnrt_cuda_device_info info{};
  if (cudaLibrary->info(cuda, &info) == GNNRT_OK)
    // sm 0: no compute capability, the CUDA emulator.
    device = std::string(info.name) +
             (info.sm > 0 ? " (sm_" + std::to_string(info.sm) + ")" : "");
  else
    device = "cuda";
  int64_t freeBytes = 0, totalBytes = 0;
  if (cudaLibrary->memInfo(cuda, &freeBytes, &totalBytes) == GNNRT_OK)
    deviceUsedBefore = totalBytes - freeBytes;
  return true;
}

void Session::sampleDeviceMemory() {
  int64_t freeBytes = 0, totalBytes = 0;
  if (!cuda || cudaLibrary->memInfo(cuda, &freeBytes, &totalBytes) != GNNRT_OK)
    return;
  int64_t used = totalBytes - freeBytes - deviceUsedBefore;
  if (used > 0)
    deviceUsedPeak = std::max(deviceUsedPeak, static_cast<uint64_t>(used));
}

bool Session::transfer(void *dst, const void *src, uint64_t bytes,
                       const char *direction, std::string &error) const {
  if (!cuda) {
    std::memcpy(dst, src, bytes);
    return true;
  }
  if (bytes == 0 || cudaLibrary->copy(cuda, dst, src,
                                      static_cast<int64_t>(bytes)) == GNNRT_OK)
    return true;
  error = "copying " + formatBytes(bytes) + " " + direction +
          " the GPU: " + cudaError();
  return false;
}

bool Session::copyIn(void *dst, const void *src, uint64_t bytes,
                     std::string &error) {
  return transfer(dst, src, bytes, "to", error);
}

bool Session::copyOut(void *dst, const void *src, uint64_t bytes,
                      std::string &error) const {
  return transfer(dst, src, bytes, "from", error);
}

bool Session::stageIn(void *dst, uint64_t bytes,
                      const std::function<bool(void *)> &fill,
                      std::string &error) {
  if (!cuda)
    return fill(dst);
  // The arena's alignment, which fill may rely on (a CSR matrix buffer).
  std::unique_ptr<void, decltype(&std::free)> staging(
      std::aligned_alloc(Arena::kAlignment,
                         align64(std::max<uint64_t>(bytes, 1))),
      &std::free);
  if (!staging) {
    error = "cannot allocate " + formatBytes(bytes) +
            " of host memory to stage a copy to the GPU";
    return false;
  }
  return fill(staging.get()) && copyIn(dst, staging.get(), bytes, error);
}

bool Session::arguments(const gnnrt_function_desc &fn, int k,
                        std::vector<void *> &args, std::string &error) {
  args.clear();
  for (int32_t i = 0; i < fn.num_args; ++i) {
    const gnnrt_value_desc &v = fn.args[i];
    std::string role = v.role;
    if (role == "graph")
      args.push_back(&graph);
    else if (role == "features")
      args.push_back(v.dtype == GNNRT_DTYPE_CSR_F32 ? featureCsr : featureData);
    else if (role == "labels")
      args.push_back(labelData);
    else if (role == "train_mask")
      args.push_back(maskData[0]);
    else if (role == "val_mask")
      args.push_back(maskData[1]);
    else if (role == "test_mask")
      args.push_back(maskData[2]);
    else if (role == "seed")
      args.push_back(&seed);
    else if (role == "step")
      args.push_back(&step);
    else if (role == "prepared")
      args.push_back(prepared[preparedIndex(v, desc.prepare)]); // checked
    else if (int s = slotOf(v); s >= 0)
      args.push_back(slots[s].copy[k]);
    else {
      error = std::string(fn.name) + ": argument " + std::to_string(i) +
              " has an unknown role '" + role + "'";
      return false;
    }
  }
  return true;
}

bool Session::buildCalls(std::string &error) {
  // Scalars go by address (`seed`, `step` are members), so these lists stay
  // valid for the session's life; only the state copy alternates.
  if (!arguments(*desc.init, 0, initArgs, error))
    return false;
  initResults.clear();
  for (Slot &s : slots)
    initResults.push_back(s.copy[0]);
  for (int k = 0; k < 2; ++k) {
    if (!arguments(*desc.step, k, stepArgs[k], error) ||
        !arguments(*desc.predict, k, predictArgs[k], error))
      return false;
    // Step reads copy k and writes the other.
    stepResults[k] = {lossData};
    for (int32_t r = 1; r < desc.step->num_results; ++r)
      stepResults[k].push_back(
          slots[slotOf(desc.step->results[r])].copy[1 - k]);
  }
  return true;
}

bool Session::call(const gnnrt_function_desc &fn,
                   const std::vector<void *> &args,
                   const std::vector<void *> &results, std::string &error,
                   char *arena) {
  gnnrt_cuda *previous = nullptr;
  if (cuda) {
    previous = cudaLibrary->current();
    cudaLibrary->setCurrent(cuda);
  }
  int status = fn.entry(args.data(), results.data(), arena ? arena : workspace,
                        tiers ? tiers->c() : nullptr);
  if (cuda) {
    // The kernels run asynchronously: wait for them, so that a failure is
    // this function's and the caller reads finished results (the step's
    // loss and predict's logits are copied right after, which waits
    // anyway).
    if (status == GNNRT_OK)
      status = cudaLibrary->synchronize(cuda);
    cudaLibrary->setCurrent(previous);
  }
  if (status == GNNRT_OK)
    return true;
  if (cuda && (status == GNNRT_ERR_CUDA || status == GNNRT_ERR_NO_DEVICE)) {
    error = std::string(fn.name) +
            " failed in a kernel: CUDA error: " + cudaError();
    return false;
  }
  if (status >= GNNRT_ERR_HOST_FULL && tiers) {
    error = std::string(fn.name) +
            " failed to move a tensor: " + gnnrt_offload_last_error(tiers->c());
    return false;
  }
  error = std::string(fn.name) +
          " failed in a kernel: " + gnnrt_status_string(status);
  return false;
}

bool Session::initialize(int64_t newSeed, std::string &error) {
  seed = newSeed;
  step = 0;
  current = 0;
  if (!call(*desc.init, initArgs, initResults, error))
    return false;
  ready = true;
  return true;
}

bool Session::trainStep(double &loss, std::string &error) {
  if (!ready) {
    error = "trainStep before initialize";
    return false;
  }
  ++step; // Adam counts updates from 1.
  if (!call(*desc.step, stepArgs[current], stepResults[current], error)) {
    --step;
    return false;
  }
  current = 1 - current;
  float stepLoss = 0;
  if (!copyOut(&stepLoss, lossData, sizeof stepLoss, error))
    return false;
  loss = stepLoss;
  if (!std::isfinite(loss)) {
    error = "the training loss is " + std::to_string(loss) + " at step " +
            std::to_string(step) + ": training diverged (try a smaller lr)";
    return false;
  }
  return true;
}

bool Session::forward(std::string &error) {
  if (!ready) {
    error = "predict before initialize";
    return false;
  }
  if (!call(*desc.predict, predictArgs[current], {logitsData}, error))
    return false;
  // Metrics and predict() read the logits on the host.
  if (cuda) {
    hostLogits.resize(static_cast<size_t>(nodes * classes));
    return copyOut(hostLogits.data(), logitsData,
                   4 * static_cast<uint64_t>(nodes * classes), error);
  }
  return true;
}

bool Session::metricsOf(Split split, gnnrt_metrics &out, std::string &error,
                        bool ranking) {
  const int k = static_cast<int>(split);
  int status = gnnrt_cpu_metrics_classification_select(
      cuda ? hostLogits.data() : logitsData, hostLabels.data(),
      hostMasks[k].data(), nodes, classes, ranking, &out);
  if (status != GNNRT_OK) {
    error = std::string("metrics: ") + gnnrt_status_string(status);
    return false;
  }
  return true;
}

bool Session::predict(std::vector<float> &logits, std::string &error) {
  if (!forward(error))
    return false;
  const float *host = cuda ? hostLogits.data() : logitsData;
  logits.assign(host, host + nodes * classes);
  return true;
}

bool Session::evaluate(Split split, gnnrt_metrics &out, std::string &error) {
  return forward(error) && metricsOf(split, out, error);
}

std::vector<std::pair<std::string, double>>
gnnrt::metricValues(uint32_t bits, const gnnrt_metrics &m) {
  std::vector<std::pair<std::string, double>> out;
  if (bits & GNNRT_METRIC_ACCURACY)
    out.push_back({"accuracy", m.accuracy});
  if (bits & GNNRT_METRIC_PRECISION)
    out.push_back({"precision", m.precision});
  if (bits & GNNRT_METRIC_RECALL)
    out.push_back({"recall", m.recall});
  if (bits & GNNRT_METRIC_F1)
    out.push_back({"f1", m.f1});
  if (bits & GNNRT_METRIC_AUC_ROC)
    out.push_back({"auc_roc", m.auroc});
  if (bits & GNNRT_METRIC_AUC_PR)
    out.push_back({"auc_pr", m.aupr});
  return out;
}

bool Session::train(const TrainOptions &options, TrainReport &report,
                    std::string &error) {
  report = TrainReport();
  report.model = desc.model;
  report.dataset = datasetName;
  report.source = desc.source;
  report.metrics =
      desc.metrics ? desc.metrics : uint32_t(GNNRT_METRIC_ACCURACY);
  report.threads = gnnrt_cpu_get_num_threads();
  report.target = cuda ? "cuda" : "cpu";
  report.device = device;
  report.seed = options.seed >= 0 ? options.seed : desc.seed;
  const int64_t epochs = options.epochs > 0 ? options.epochs : desc.epochs;
  const int64_t evalEvery = desc.eval_every > 0 ? desc.eval_every : 1;
  if (options.patience < 0) {
    error = "patience must be >= 0 (0: no early stopping), not " +
            std::to_string(options.patience);
    return false;
  }
  report.patience = options.patience;
  report.monitor = options.monitor;
  if ((options.fresh || !ready) && !initialize(report.seed, error))
    return false;

  // The best pass's weights, on the host: a copy per improvement, which
  // early in training is nearly every pass, but parameters are small next
  // to the activations the arena holds.
  std::vector<NamedTensor> keptWeights;
  int64_t passesWithoutProgress = 0;
  double highestAccuracy = 0, lowestLoss = 0; // AccuracyOrLoss's records.

  Progress progress(stderr, epochs, options.progress);
  for (int64_t epoch = 1; epoch <= epochs; ++epoch) {
    EpochStats stats;
    stats.epoch = epoch;
    auto start = std::chrono::steady_clock::now();
    if (!trainStep(stats.loss, error))
      return false;
    stats.seconds = seconds(start);
    sampleDeviceMemory();
    report.epochSeconds.push_back(stats.seconds);
    report.losses.push_back(stats.loss);
    std::vector<std::pair<std::string, double>> shown;
    if (epoch % evalEvery == 0 || epoch == epochs) {
      auto evalStart = std::chrono::steady_clock::now();
      // The ranking metrics sort every class's scores: per epoch, only
      // when the program shows them (the final report has them all).
      const bool ranking =
          report.metrics & (GNNRT_METRIC_AUC_ROC | GNNRT_METRIC_AUC_PR);
      if (!forward(error) ||
          !metricsOf(Split::Val, stats.val, error, ranking))
        return false;
      const bool first = report.bestValEpoch == 0;
      const bool best = first || stats.val.accuracy > report.bestVal.accuracy;
      if (best) {
        // The same forward pass gives the test split's logits.
        if (!metricsOf(Split::Test, report.testAtBestVal, error, ranking))
          return false;
        report.bestValEpoch = epoch;
        report.bestVal = stats.val;
      }
      bool progress = best, keep = best;
      if (options.monitor == TrainOptions::Monitor::AccuracyOrLoss) {
        const bool accuracyHeld =
            first || stats.val.accuracy >= highestAccuracy;
        const bool lossHeld = first || stats.val.cross_entropy <= lowestLoss;
        progress = accuracyHeld || lossHeld;
        keep = accuracyHeld && lossHeld;
        if (accuracyHeld)
          highestAccuracy = stats.val.accuracy;
        if (lossHeld)
          lowestLoss = stats.val.cross_entropy;
      }
      passesWithoutProgress = progress ? 0 : passesWithoutProgress + 1;
      if (keep) {
        report.keptEpoch = epoch;
        if (options.restoreBest && !readParameters(keptWeights, error))
          return false;
      }
      report.evalSeconds += seconds(evalStart);
      stats.evaluated = true;
      for (auto &[name, value] : metricValues(report.metrics, stats.val))
        shown.push_back({"val_" + name, value});
    }
    progress.update(epoch, stats.loss, shown);
    report.epochs = epoch;
    if (options.onEpoch && !options.onEpoch(stats))
      break;
    if (options.patience > 0 && passesWithoutProgress >= options.patience &&
        epoch < epochs) {
      report.stoppedEarly = true;
      break;
    }
  }
  progress.finish();
  if (options.restoreBest && report.keptEpoch > 0 &&
      report.keptEpoch != report.epochs) {
    if (!writeParameters(keptWeights, error))
      return false;
    report.restoredBest = true;
  }
  const std::vector<double> &times = report.epochSeconds;
  for (double t : times)
    report.totalSeconds += t;
  std::vector<double> steady(
      times.size() > 1 ? times.begin() + 1 : times.begin(), times.end());
  if (!steady.empty()) {
    std::nth_element(steady.begin(), steady.begin() + steady.size() / 2,
                     steady.end());
    report.medianEpochSeconds = steady[steady.size() / 2];
  }
  // One forward pass serves the three splits.
  if (!forward(error) || !metricsOf(Split::Train, report.train, error) ||
      !metricsOf(Split::Val, report.val, error) ||
      !metricsOf(Split::Test, report.test, error))
    return false;
  report.budgetBytes = budgetBytes;
  const gnnrt_plan_desc &plan = desc.plan;
  report.planPolicy = plan.policy ? plan.policy : "";
  report.plannedPeakBytes = static_cast<uint64_t>(plan.peak_device);
  report.plannedHostBytes = static_cast<uint64_t>(plan.peak_host);
  report.plannedDiskBytes = static_cast<uint64_t>(plan.peak_disk);
  report.predictedStepSeconds = plan.predicted_seconds;
  report.keepAllStepSeconds = plan.keep_all_seconds;
  if (tiers) {
    report.hostPeakBytes = tiers->hostHighWater();
    report.diskPeakBytes = tiers->diskHighWater();
  }
  report.arenaPeakBytes = deviceArena->highWater();
  report.arenaPeakEndBytes = deviceArena->highWaterEnd();
  report.arenaResidentBytes = deviceArena->residentBytes();
  sampleDeviceMemory();
  report.deviceUsedBytes = deviceUsedPeak;
  report.peakRssBytes = peakRssBytes();
  return true;
}

std::vector<NamedTensor> Session::parameters() const {
  std::vector<NamedTensor> out;
  std::string error;
  if (!readParameters(out, error))
    out.clear();
  return out;
}

bool Session::readParameters(std::vector<NamedTensor> &out,
                             std::string &error) const {
  // Into \p out's tensors where it has them already: restoreBest reads
  // the parameters at every improving validation pass.
  size_t k = 0;
  for (const Slot &s : slots) {
    if (s.role != "param")
      continue;
    if (k == out.size())
      out.emplace_back();
    NamedTensor &t = out[k++];
    t.name = s.param;
    t.shape = s.shape;
    t.data.resize(static_cast<size_t>(s.count));
    if (!copyOut(t.data.data(), s.copy[current],
                 4 * static_cast<uint64_t>(s.count), error)) {
      error = "parameter '" + s.param + "': " + error;
      return false;
    }
  }
  out.resize(k);
  return true;
}

bool Session::writeParameters(const std::vector<NamedTensor> &params,
                              std::string &error) {
  std::vector<std::pair<const NamedTensor *, const Slot *>> pairs;
  size_t k = 0;
  for (const Slot &s : slots) {
    if (s.role != "param")
      continue;
    if (k >= params.size() || params[k].name != s.param ||
        static_cast<int64_t>(params[k].data.size()) != s.count) {
      error = "parameter '" + s.param + "': no saved copy to restore";
      return false;
    }
    pairs.push_back({&params[k++], &s});
  }
  return copyParametersIn(pairs, error);
}

bool Session::copyParametersIn(
    const std::vector<std::pair<const NamedTensor *, const Slot *>> &pairs,
    std::string &error) {
  for (auto [t, s] : pairs)
    if (!copyIn(s->copy[current], t->data.data(), 4 * t->data.size(), error)) {
      error = "parameter '" + t->name + "': " + error;
      return false;
    }
  return true;
}

bool Session::setParameters(const std::vector<NamedTensor> &params,
                            std::string &error) {
  // Validate everything first: a mismatch leaves the session unchanged.
  size_t expected = 0;
  for (const Slot &s : slots)
    expected += s.role == "param";
  if (params.size() != expected) {
    error = std::string("model ") + desc.model + " has " +
            std::to_string(expected) + " parameter tensors, the weights " +
            std::to_string(params.size());
    return false;
  }
  std::vector<std::pair<const NamedTensor *, const Slot *>> pairs;
  for (const NamedTensor &t : params) {
    auto it = std::find_if(slots.begin(), slots.end(), [&](const Slot &s) {
      return s.role == "param" && s.param == t.name;
    });
    if (it == slots.end()) {
      error = std::string("model ") + desc.model + " has no parameter '" +
              t.name + "'";
      return false;
    }
    if (it->shape != t.shape ||
        static_cast<int64_t>(t.data.size()) != it->count) {
      error =
          "parameter '" + t.name + "': the weights have shape " +
          shapeString(t.shape.data(), static_cast<int32_t>(t.shape.size())) +
          ", the model " +
          shapeString(it->shape.data(), static_cast<int32_t>(it->shape.size()));
      return false;
    }
    pairs.push_back({&t, &*it});
  }
  // Fresh optimizer state: moments of another run mean nothing here.
  if (!initialize(ready ? seed : desc.seed, error))
    return false;
  return copyParametersIn(pairs, error);
}

bool Session::saveWeights(const std::string &path, std::string &error) const {
  if (!ready) {
    error = "no weights to save: the model is not initialised";
    return false;
  }
  std::vector<NamedTensor> params;
  if (!readParameters(params, error))
    return false;
  return writeWeights(path, desc.model, params, error);
}

bool Session::loadWeights(const std::string &path, std::string &error) {
  std::string model;
  std::vector<NamedTensor> params;
  if (!readWeights(path, model, params, error))
    return false;
  if (model != desc.model) {
    error = path + ": the weights are of model '" + model + "', not '" +
            desc.model + "'";
    return false;
  }
  if (!setParameters(params, error)) {
    error = path + ": " + error;
    return false;
  }
  return true;
}

bool gnnrt::loadModelData(const gnnrt_data_desc &data, const std::string &dir,
                          Dataset &out, std::string &note, std::string &error) {
  note.clear();
  DatasetError err;
  if (data.synthetic && dir.empty()) {
    SyntheticSpec spec;
    spec.nodes = data.nodes;
    spec.avgDegree = data.avg_degree;
    spec.features = data.features;
    spec.classes = data.classes;
    spec.seed = static_cast<uint64_t>(data.seed);
    if (!generateSynthetic(spec, out, err)) {
      error = err.str();
      return false;
    }
    return true;
  }
  std::string path = dir.empty() ? std::string(data.dir) : dir;
  if (path.empty()) {
    error = std::string("dataset '") + data.name +
            "': no directory (pass --data DIR)";
    return false;
  }
  LoadOptions options;
  options.missingFeatures = MissingFeatures::Synthesize;
  if (!loadDataset(path, options, out, err)) {
    error = err.str();
    return false;
  }
  if (out.featureSource == FeatureSource::RandomStandIn)
    note = "dataset '" + out.name +
           "' ships no features: training on seeded random stand-ins "
           "(timing only, accuracy is meaningless)";
  return true;
}

const char *gnnrt::monitorName(TrainOptions::Monitor m) {
  return m == TrainOptions::Monitor::Accuracy ? "accuracy" : "accuracy-or-loss";
}

bool gnnrt::parseMonitor(const char *name, TrainOptions::Monitor &out) {
  for (TrainOptions::Monitor m :
       {TrainOptions::Monitor::Accuracy, TrainOptions::Monitor::AccuracyOrLoss})
    if (std::strcmp(name, monitorName(m)) == 0) {
      out = m;
      return true;
    }
  return false;
}

void gnnrt::printReport(std::FILE *out, const TrainReport &r) {
  std::fprintf(out, "%s on %s: %lld epochs, seed %lld, %d thread%s\n",
               r.model.c_str(), r.dataset.c_str(),
               static_cast<long long>(r.epochs), static_cast<long long>(r.seed),
               r.threads, r.threads == 1 ? "" : "s");
  std::fprintf(out, "  final loss     %.4f\n",
               r.losses.empty() ? NAN : r.losses.back());
  for (auto [split, m] :
       {std::pair<const char *, const gnnrt_metrics *>{"train", &r.train},
        {"val", &r.val},
        {"test", &r.test}}) {
    std::fprintf(out, "  %-5s          ", split);
    for (auto &[name, value] : metricValues(r.metrics, *m))
      std::fprintf(out, "%s %.4f  ", name.c_str(), value);
    std::fprintf(out, "(%lld nodes)\n", static_cast<long long>(m->count));
  }
  if (r.bestValEpoch > 0) {
    std::fprintf(out, "  test @ best val ");
    for (auto &[name, value] : metricValues(r.metrics, r.testAtBestVal))
      std::fprintf(out, "%s %.4f  ", name.c_str(), value);
    std::fprintf(out, "(epoch %lld, val accuracy %.4f)\n",
                 static_cast<long long>(r.bestValEpoch), r.bestVal.accuracy);
  }
  const bool byLoss = r.monitor == TrainOptions::Monitor::AccuracyOrLoss;
  if (r.stoppedEarly)
    std::fprintf(out,
                 "  early stop     after epoch %lld: %lld validation passes "
                 "without a better %s\n",
                 static_cast<long long>(r.epochs),
                 static_cast<long long>(r.patience),
                 byLoss ? "accuracy or loss" : "accuracy");
  if (r.restoredBest)
    std::fprintf(out,
                 "  weights        epoch %lld's (%s), restored: train, val "
                 "and test above are theirs\n",
                 static_cast<long long>(r.keptEpoch),
                 byLoss ? "best validation accuracy and loss"
                        : "best validation");
  std::fprintf(out,
               "  time/epoch     %.3f ms (median, epoch 1 excluded); "
               "%.2f s training, %.2f s validation\n",
               1e3 * r.medianEpochSeconds, r.totalSeconds, r.evalSeconds);
  if (r.target == "cuda") {
    // The arena's pages are the GPU's: what the GPU says is in use stands
    // where the CPU prints the pages touched.
    std::fprintf(out, "  device         %s\n", r.device.c_str());
    std::fprintf(out,
                 "  device arena   peak %s of %s budget (%s of GPU memory "
                 "in use, measured)\n",
                 formatBytes(r.arenaPeakBytes).c_str(),
                 formatBytes(r.budgetBytes).c_str(),
                 formatBytes(r.deviceUsedBytes).c_str());
  } else {
    std::fprintf(out, "  device arena   peak %s of %s budget (%s touched)\n",
                 formatBytes(r.arenaPeakBytes).c_str(),
                 formatBytes(r.budgetBytes).c_str(),
                 formatBytes(r.arenaResidentBytes).c_str());
  }
  if (!r.planPolicy.empty()) {
    std::fprintf(out,
                 "  memory plan    %s: device %s planned, %s measured; host "
                 "%s planned, %s measured; disk %s planned, %s measured\n",
                 r.planPolicy.c_str(), formatBytes(r.plannedPeakBytes).c_str(),
                 formatBytes(r.arenaPeakBytes).c_str(),
                 formatBytes(r.plannedHostBytes).c_str(),
                 formatBytes(r.hostPeakBytes).c_str(),
                 formatBytes(r.plannedDiskBytes).c_str(),
                 formatBytes(r.diskPeakBytes).c_str());
    if (r.keepAllStepSeconds > 0)
      std::fprintf(out,
                   "  predicted step %.3f ms (keep all %.3f ms, +%.1f%%)\n",
                   1e3 * r.predictedStepSeconds, 1e3 * r.keepAllStepSeconds,
                   100 * (r.predictedStepSeconds / r.keepAllStepSeconds - 1));
  }
  std::fprintf(out, "  peak RSS       %s\n",
               formatBytes(r.peakRssBytes).c_str());
}

//===- Launch.cpp - Generated kernels on the CPU --------------------------===//
//
// gnnrt_cuda_launch compiles a unit's kernel source once per context with
// the host compiler (KernelSource.h), loads it, and runs a kernel's
// trampoline over the grid a GPU launch would have. The fatbin of an AOT
// build is ignored: the source is the same text nvcc compiled.
//
// The compiler is the one gnnc's JIT uses for the CPU target ($CXX, else the
// compiler this library was built with), with the CPU target's -O2
// -ffp-contract=off -std=c++17 (compiler/JIT/Toolchain.cpp):
// -ffp-contract=off is what nvcc's and NVRTC's --fmad=false do for the real
// kernels, so a multiply and an add round twice. The library does not use
// the compiler's JIT code (compiler/JIT): the runtime stays free of LLVM.
//
//===----------------------------------------------------------------------===//
#include "Emulator.h"
#include "KernelSource.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using namespace gnnrt::emu;

#ifndef GNNRT_EMU_CXX
#define GNNRT_EMU_CXX "c++"
#endif

namespace {

using Trampoline = void (*)(void **, long long);

std::string unitName(const gnnrt_cuda_kernels *unit) {
  return unit->name ? unit->name : "(unnamed unit)";
}

/// Runs \p args with stdout and stderr into \p log; 0 when it succeeded.
int runCompiler(const std::vector<std::string> &args, const std::string &log,
                std::string &error) {
  std::vector<char *> argv;
  for (const std::string &a : args)
    argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    error = "cannot run the host compiler '" + args[0] +
            "': " + std::strerror(rc) + " (set $CXX)";
    return -1;
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    std::string output = text.str();
    if (output.size() > 4000)
      output = "..." + output.substr(output.size() - 4000);
    error = "the host compiler failed:";
    for (const std::string &a : args)
      error += " " + a;
    error += "\n" + output;
    return -1;
  }
  return 0;
}

/// Compiles and loads \p unit's kernels.
int load(const gnnrt_cuda_kernels *unit, std::unique_ptr<KernelUnit> &out) {
  const std::string what =
      "gnnrt_cuda_launch: " + unitName(unit) + " (emulator): ";
  if (!unit->source)
    return fail(GNNRT_ERR_CUDA, what + "the unit has no kernel source");
  std::vector<KernelDecl> decls;
  std::string error;
  if (!parseKernels(unit->source, decls, error))
    return fail(GNNRT_ERR_CUDA, what + error);

  const char *tmp = std::getenv("TMPDIR");
  std::string dir =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/gnnrt-cuda-emu-XXXXXX";
  if (!mkdtemp(dir.data()))
    return fail(GNNRT_ERR_CUDA, what + "cannot create a directory " + dir +
                                    ": " + std::strerror(errno));
  const std::string source = dir + "/kernels.cpp", so = dir + "/kernels.so",
                    log = dir + "/compiler.log";
  {
    std::ofstream os(source);
    os << emulationSource(unit->source, decls);
    if (!os)
      return fail(GNNRT_ERR_CUDA, what + "cannot write " + source);
  }
  const char *cxx = std::getenv("CXX");
  std::vector<std::string> args = {cxx && *cxx ? cxx : GNNRT_EMU_CXX,
                                   "-std=c++17",
                                   "-O2",
                                   "-ffp-contract=off",
                                   "-fPIC",
                                   "-shared",
                                   "-w",
                                   source,
                                   "-o",
                                   so};
  if (runCompiler(args, log, error) != 0)
    return fail(GNNRT_ERR_CUDA,
                what + error + "\n(the files are kept in " + dir + ")");
  auto loaded = std::make_unique<KernelUnit>();
  loaded->handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!loaded->handle) {
    const char *why = dlerror();
    return fail(GNNRT_ERR_CUDA, what + "cannot load " + so + ": " +
                                    (why ? why : "unknown error"));
  }
  for (const KernelDecl &decl : decls) {
    auto run = reinterpret_cast<Trampoline>(
        dlsym(loaded->handle, (decl.name + "__emu").c_str()));
    if (!run) {
      dlclose(loaded->handle);
      return fail(GNNRT_ERR_CUDA,
                  what + "the compiled unit has no " + decl.name + "__emu");
    }
    KernelUnit::Kernel kernel{run, {}};
    for (const std::string &type : decl.paramTypes)
      kernel.isPointer.push_back(type.back() == '*');
    loaded->kernels.emplace(decl.name, std::move(kernel));
  }
  // Loaded: the files are no longer needed (the mapping stays valid).
  std::remove(source.c_str());
  std::remove(so.c_str());
  std::remove(log.c_str());
  rmdir(dir.c_str());
  out = std::move(loaded);
  return GNNRT_OK;
}

} // namespace

void gnnrt::emu::unloadUnits(gnnrt_cuda *ctx) {
  for (auto &[unit, loaded] : ctx->units)
    if (loaded->handle)
      dlclose(loaded->handle);
  ctx->units.clear();
}

extern "C" int gnnrt_cuda_launch(gnnrt_cuda *ctx,
                                 const gnnrt_cuda_kernels *unit,
                                 const char *kernel, int64_t threads,
                                 void **params) {
  if (!ctx || !unit || !kernel)
    return fail(GNNRT_ERR_NULL_POINTER, "gnnrt_cuda_launch: null argument");
  if (threads < 0)
    return fail(GNNRT_ERR_BAD_SIZE, "gnnrt_cuda_launch: " + unitName(unit) +
                                        ": " + kernel + " over " +
                                        std::to_string(threads) + " threads");
  std::lock_guard<std::mutex> lock(ctx->launchLock);
  auto found = ctx->units.find(unit);
  if (found == ctx->units.end()) {
    std::unique_ptr<KernelUnit> loaded;
    GNNRT_RETURN_IF_ERROR(load(unit, loaded));
    found = ctx->units.emplace(unit, std::move(loaded)).first;
  }
  auto k = found->second->kernels.find(kernel);
  if (k == found->second->kernels.end())
    return fail(GNNRT_ERR_BAD_ARGUMENT,
                std::string("gnnrt_cuda_launch: unit ") + unitName(unit) +
                    " has no kernel named '" + kernel + "'");
  if (threads == 0)
    return GNNRT_OK;
  if (!params && !k->second.isPointer.empty())
    return fail(GNNRT_ERR_NULL_POINTER,
                "gnnrt_cuda_launch: " + std::string(kernel) + ": null params");
  // A GPU kernel faults on a pointer that is not device memory (a host
  // buffer, a stale or shifted pointer); here it would silently work.
  for (size_t i = 0; i < k->second.isPointer.size(); ++i) {
    if (!k->second.isPointer[i])
      continue;
    const void *p =
        params[i] ? *static_cast<void *const *>(params[i]) : nullptr;
    if (!isDeviceMemory(ctx, p, 1))
      return fail(GNNRT_ERR_CUDA,
                  "gnnrt_cuda_launch: " + unitName(unit) + ": " + kernel +
                      ": argument " + std::to_string(i) +
                      " does not point into memory from gnnrt_cuda_malloc "
                      "(emulator; a GPU would fault)");
  }
  k->second.run(params, gridFor(threads));
  return GNNRT_OK;
}

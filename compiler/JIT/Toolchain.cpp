//===- Toolchain.cpp - Building generated C++ with the system compiler ----===//
//
// The compiler runs as a child process with its output captured, so a build
// failure (a compiler bug, a broken installation) is an error carrying the
// compiler's own message rather than text on the user's terminal. Shared
// objects are cached under a hash of everything that determines them, and
// written to a temporary name then renamed, so concurrent runs never load a
// half-written file.
//
//===----------------------------------------------------------------------===//
#include "compiler/JIT/Toolchain.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

using namespace gnnc::jit;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace {

/// The runtime of the install prefix \p prefix, if complete.
std::optional<Toolchain> fromPrefix(llvm::StringRef prefix) {
  Toolchain t;
  llvm::SmallString<256> p(prefix);
  path::append(p, "include");
  t.includeDir = p.str().str();
  llvm::SmallString<256> lib(prefix);
  path::append(lib, "lib", "gnnc");
  auto archive = [&](llvm::StringRef name) {
    llvm::SmallString<256> a(lib);
    path::append(a, name);
    return a.str().str();
  };
  t.rtCpu = archive("libGnncRtCpu.a");
  t.rtExec = archive("libGnncRtExec.a");
  t.rtData = archive("libGnncRtData.a");
  llvm::SmallString<256> cuda(prefix);
  path::append(cuda, "lib", "libgnnrt_cuda.so");
  t.rtCuda = cuda.str().str();
  llvm::SmallString<256> header(t.includeDir);
  path::append(header, "gnnrt", "Model.h");
  if (!fs::exists(header) || !fs::exists(t.rtCpu))
    return std::nullopt;
  return t;
}

llvm::SmallVector<llvm::StringRef> splitFlags(llvm::StringRef flags) {
  llvm::SmallVector<llvm::StringRef> out;
  llvm::SplitString(flags, out, " ;");
  return out;
}

/// Runs \p args; on failure the error holds the command and its output.
llvm::Error run(llvm::ArrayRef<std::string> args, bool verbose) {
  if (verbose) {
    for (const std::string &a : args)
      llvm::errs() << a << " ";
    llvm::errs() << "\n";
  }
  llvm::SmallString<128> log;
  if (std::error_code ec = fs::createTemporaryFile("gnnc-cxx", "log", log))
    return fail("cannot create a temporary file: " + ec.message());
  llvm::SmallVector<llvm::StringRef> argv(args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log.str(),
                                                log.str()};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(args[0], argv, std::nullopt, redirects,
                                     /*SecondsToWait=*/600, 0, &message);
  std::string output;
  if (auto buffer = llvm::MemoryBuffer::getFile(log))
    output = (*buffer)->getBuffer().str();
  fs::remove(log);
  if (rc == 0)
    return llvm::Error::success();
  std::string command;
  for (const std::string &a : args)
    command += a + " ";
  if (output.size() > 4000)
    output = "..." + output.substr(output.size() - 4000);
  return fail("building the generated code failed" +
              (message.empty() ? "" : " (" + message + ")") + ":\n  " +
              command + "\n" + output);
}

std::string cacheDirectory(const CompileOptions &options) {
  if (!options.cacheDir.empty())
    return options.cacheDir;
  if (auto env = llvm::sys::Process::GetEnv("GNNC_CACHE_DIR"))
    return *env;
  llvm::SmallString<256> dir;
  if (auto xdg = llvm::sys::Process::GetEnv("XDG_CACHE_HOME"))
    dir = *xdg;
  else if (!path::home_directory(dir))
    return "";
  else
    path::append(dir, ".cache");
  path::append(dir, "gnnc");
  return dir.str().str();
}

/// A fingerprint of a file: its size and modification time (a rebuilt
/// runtime gives a new cache key).
std::string stamp(const std::string &file) {
  fs::file_status st;
  if (fs::status(file, st))
    return "missing";
  return std::to_string(st.getSize()) + "@" +
         std::to_string(
             st.getLastModificationTime().time_since_epoch().count());
}

} // namespace

llvm::Expected<Toolchain> gnnc::jit::findToolchain() {
  std::optional<Toolchain> found;
  if (auto env = llvm::sys::Process::GetEnv("GNNC_RUNTIME_DIR")) {
    found = fromPrefix(*env);
    if (!found)
      return fail("$GNNC_RUNTIME_DIR=" + *env +
                  " has no gnnc runtime (include/gnnrt/Model.h and "
                  "lib/gnnc/libGnncRtCpu.a)");
    found->origin = "$GNNC_RUNTIME_DIR " + *env;
  }
  if (!found) {
    // Installed: <prefix>/bin/gnnc next to <prefix>/lib/gnnc.
    std::string exe = fs::getMainExecutable(
        nullptr, reinterpret_cast<void *>(&gnnc::jit::findToolchain));
    llvm::StringRef prefix = path::parent_path(path::parent_path(exe));
    if (!prefix.empty() && (found = fromPrefix(prefix)))
      found->origin = "install prefix " + prefix.str();
  }
  if (!found && fs::exists(GNNC_BUILD_RT_CPU)) {
    Toolchain t;
    t.includeDir = GNNC_BUILD_RT_INCLUDE;
    t.rtCpu = GNNC_BUILD_RT_CPU;
    t.rtExec = GNNC_BUILD_RT_EXEC;
    t.rtData = GNNC_BUILD_RT_DATA;
    t.rtCuda = GNNC_BUILD_RT_CUDA;
    t.origin = "build tree";
    found = t;
  }
  if (!found && (found = fromPrefix(GNNC_INSTALL_PREFIX)))
    found->origin = "install prefix " GNNC_INSTALL_PREFIX;
  if (!found)
    return fail("cannot find the gnnc runtime (looked in $GNNC_RUNTIME_DIR, "
                "next to this executable, in the build tree " GNNC_BUILD_RT_CPU
                " and under " GNNC_INSTALL_PREFIX ")");
  // The library the session will load ($GNNRT_CUDA_LIBRARY, e.g. the CUDA
  // emulator's) is the one generated code links: both must be the same
  // file, and with it (and its rpath) the code finds it on its own.
  if (auto env = llvm::sys::Process::GetEnv("GNNRT_CUDA_LIBRARY");
      env && !env->empty()) {
    if (!fs::exists(*env))
      return fail("$GNNRT_CUDA_LIBRARY=" + *env + " does not exist");
    found->rtCuda = *env;
  }
  if (auto env = llvm::sys::Process::GetEnv("NVCC"))
    found->nvcc = *env;
  else if (fs::can_execute(GNNC_NVCC))
    found->nvcc = GNNC_NVCC;
  else if (auto p = llvm::sys::findProgramByName("nvcc"))
    found->nvcc = *p;
  for (llvm::StringRef flag : splitFlags(GNNC_RT_LINK_FLAGS))
    found->linkFlags.push_back(flag.str());

  if (auto cxx = llvm::sys::Process::GetEnv("CXX"); cxx && !cxx->empty()) {
    auto p = llvm::sys::findProgramByName(*cxx);
    if (!p)
      return fail("$CXX=" + *cxx + " is not a program on PATH");
    found->cxx = *p;
  } else if (fs::can_execute(GNNC_CXX)) {
    found->cxx = GNNC_CXX;
  } else if (auto p = llvm::sys::findProgramByName("c++")) {
    found->cxx = *p;
  } else {
    return fail("no C++ compiler: install g++ (scripts/install-deps.sh) or "
                "set $CXX");
  }
  return *found;
}

/// Generated CUDA code calls libgnnrt_cuda.so (the session loads it only
/// for CUDA programs, so CPU builds do not link it); found at run time
/// through the rpath.
static std::vector<std::string> cudaLinkFlags(const Toolchain &toolchain) {
  return {toolchain.rtCuda,
          "-Wl,-rpath," + path::parent_path(toolchain.rtCuda).str(), "-ldl"};
}

llvm::Expected<BuildResult>
gnnc::jit::buildSharedObject(const Toolchain &toolchain, const std::string &cpp,
                             const CompileOptions &options) {
  // A CUDA unit is built the same way: its host part is plain C++17 (the
  // file is named .cpp), its kernels are compiled by NVRTC at run time.
  // -ffp-contract=off: a multiply and an add round twice, as in the runtime
  // library (GnncRtCpu) and the CUDA kernels (--fmad=false); GCC's default
  // would fuse them wherever the target has FMA (aarch64, -march=native).
  std::vector<std::string> flags = {
      "-O2",        "-ffp-contract=off",        "-fPIC", "-shared", "-w",
      "-std=c++17", "-I" + toolchain.includeDir};
  std::string key = cpp + "\n" + toolchain.cxx + "\n" + stamp(toolchain.cxx) +
                    "\n" + toolchain.rtCpu + "\n" + stamp(toolchain.rtCpu) +
                    "\n" + toolchain.rtExec + "\n" + stamp(toolchain.rtExec) +
                    "\n" + toolchain.rtCuda + "\n" + stamp(toolchain.rtCuda);
  for (const std::string &f : flags)
    key += " " + f;
  for (const std::string &f : toolchain.linkFlags)
    key += " " + f;
  std::string hash = llvm::utohexstr(llvm::xxh3_64bits(key), true, 16);

  std::string dir = options.useCache ? cacheDirectory(options) : "";
  bool cache = !dir.empty() && !fs::create_directories(dir);
  llvm::SmallString<256> workDir;
  if (cache) {
    workDir = dir;
  } else if (std::error_code ec =
                 fs::createUniqueDirectory("gnnc-jit", workDir)) {
    return fail("cannot create a temporary directory: " + ec.message());
  }
  llvm::SmallString<256> so(workDir), source(workDir);
  path::append(so, "gnnc-" + hash + ".so");
  path::append(source, "gnnc-" + hash + ".cpp");
  if (cache && fs::exists(so))
    return BuildResult{so.str().str(), true};

  // Unique names for this build; renamed into place when complete.
  llvm::SmallString<256> tmpSource, tmpSo;
  if (std::error_code ec =
          fs::createUniqueFile(workDir + "/gnnc-%%%%%%%%.cpp", tmpSource))
    return fail("cannot write to " + workDir + ": " + ec.message());
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(tmpSource, ec);
    if (ec)
      return fail("cannot write " + tmpSource + ": " + ec.message());
    os << cpp;
  }
  tmpSo = tmpSource;
  path::replace_extension(tmpSo, "so");
  std::vector<std::string> args = {toolchain.cxx};
  args.insert(args.end(), flags.begin(), flags.end());
  args.push_back(tmpSource.str().str());
  args.push_back("-o");
  args.push_back(tmpSo.str().str());
  // The offload tiers' C functions (gnnrt/Offload.h) live with the session
  // in the exec archive; only the objects the code calls are pulled in.
  args.push_back(toolchain.rtExec);
  args.push_back(toolchain.rtCpu);
  if (options.target == "cuda")
    llvm::append_range(args, cudaLinkFlags(toolchain));
  args.insert(args.end(), toolchain.linkFlags.begin(),
              toolchain.linkFlags.end());
  if (llvm::Error e = run(args, options.verbose)) {
    fs::remove(tmpSource);
    return std::move(e);
  }
  if (std::error_code ec = fs::rename(tmpSo, so))
    return fail("cannot move " + tmpSo + " to " + so + ": " + ec.message());
  // Kept beside the object for whoever wants to read what ran.
  if (fs::rename(tmpSource, source))
    fs::remove(tmpSource);
  return BuildResult{so.str().str(), false};
}

/// Writes \p bytes as the C array `gnnc_fatbin` into \p file.
static llvm::Error writeByteArray(llvm::StringRef bytes, llvm::StringRef file) {
  std::error_code ec;
  llvm::raw_fd_ostream os(file, ec);
  if (ec)
    return fail("cannot write " + file + ": " + ec.message());
  // 16-byte aligned: the loader reads the fatbin header in place.
  os << "alignas(16) static const unsigned char gnnc_fatbin[] = {";
  for (size_t i = 0; i < bytes.size(); ++i)
    os << (i % 16 ? "" : "\n")
       << static_cast<unsigned>(static_cast<unsigned char>(bytes[i])) << ",";
  os << "};\n";
  return llvm::Error::success();
}

llvm::Error gnnc::jit::buildExecutable(const Toolchain &toolchain,
                                       const std::string &cpp,
                                       const std::string &output, bool verbose,
                                       llvm::ArrayRef<std::string> cudaArchs) {
  llvm::SmallString<256> dir;
  if (std::error_code ec = fs::createUniqueDirectory("gnnc-prog", dir))
    return fail("cannot create a temporary directory: " + ec.message());
  auto cleanup = llvm::make_scope_exit([&] { fs::remove_directories(dir); });
  llvm::SmallString<256> source(dir);
  path::append(source, "prog.cpp");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(source, ec);
    if (ec)
      return fail("cannot write " + source + ": " + ec.message());
    os << cpp
       << "\n// The standalone driver: gnnrt/Standalone.h.\n"
          "#ifndef GNNC_CUDA_DEVICE_PASS\n"
          "#include \"gnnrt/Standalone.h\"\n\n"
          "int main(int argc, char **argv) {\n"
          "  int64_t count = 0;\n"
          "  const gnnrt_model_desc *const *models = gnnc_models(&count);\n"
          "  return gnnrt_standalone_main(models, count, argc, argv);\n"
          "}\n"
          "#endif\n";
  }
  std::vector<std::string> args = {
      toolchain.cxx, "-O2",        "-ffp-contract=off",
      "-w",          "-std=c++17", "-I" + toolchain.includeDir};
  if (!cudaArchs.empty()) {
    // The device part, for every architecture asked for, with the same
    // exact arithmetic as NVRTC's (--fmad=false, gnnrt_cuda_compile).
    if (toolchain.nvcc.empty())
      return fail("gnnc compile --target=cuda needs nvcc: install the CUDA "
                  "toolkit or set $NVCC");
    llvm::SmallString<256> fatbin(dir), include(dir);
    path::append(fatbin, "prog.fatbin");
    path::append(include, "prog_fatbin.inc");
    std::vector<std::string> nvcc = {toolchain.nvcc, "-x",
                                     "cu",           "-DGNNC_CUDA_DEVICE_PASS",
                                     "--fatbin",     "--fmad=false"};
    for (const std::string &arch : cudaArchs)
      nvcc.push_back("-gencode=arch=compute_" + arch + ",code=sm_" + arch);
    nvcc.insert(nvcc.end(), {source.str().str(), "-o", fatbin.str().str()});
    if (llvm::Error e = run(nvcc, verbose))
      return e;
    auto bytes = llvm::MemoryBuffer::getFile(fatbin, /*IsText=*/false);
    if (!bytes)
      return fail("cannot read " + fatbin + ": " + bytes.getError().message());
    if (llvm::Error e = writeByteArray((*bytes)->getBuffer(), include))
      return e;
    args.push_back("-DGNNC_CUDA_FATBIN=\"" + include.str().str() + "\"");
  }
  args.insert(args.end(), {source.str().str(), "-o", output, toolchain.rtExec,
                           toolchain.rtData, toolchain.rtCpu});
  if (!cudaArchs.empty())
    llvm::append_range(args, cudaLinkFlags(toolchain));
  args.insert(args.end(), toolchain.linkFlags.begin(),
              toolchain.linkFlags.end());
  return run(args, verbose);
}

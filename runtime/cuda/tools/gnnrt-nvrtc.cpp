//===- gnnrt-nvrtc.cpp - Compile a CUDA file as the runtime's JIT does ----===//
//
// `gnnrt-nvrtc FILE.cu --arch=sm_90 [-o OUT.cubin]` compiles FILE.cu with
// gnnrt_cuda_compile, the NVRTC path gnnrt_cuda_launch takes for a unit
// without an image, and reports the CUBIN's size or NVRTC's log. It checks
// that generated device code compiles for a device this machine may not
// have. NVRTC defines __CUDACC_RTC__, under which generated files hide
// their host part.
//
// It links only libgnnrt_cuda, not LLVM, so it parses its three options by
// hand.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Cuda.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

namespace {

constexpr const char *kUsage =
    "usage: gnnrt-nvrtc FILE.cu --arch=sm_NN [-o OUT.cubin]\n"
    "  Compiles FILE.cu to a CUBIN for sm_NN with NVRTC (no GPU needed).\n";

int usageError(const std::string &message) {
  std::fprintf(stderr, "gnnrt-nvrtc: %s\n%s", message.c_str(), kUsage);
  return 2;
}

/// The NN of "sm_NN", or 0 if \p text is not of that form.
int parseArch(const std::string &text) {
  if (text.size() < 4 || text.compare(0, 3, "sm_") != 0)
    return 0;
  int sm = 0;
  for (size_t i = 3; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9' || sm > 100)
      return 0;
    sm = sm * 10 + (text[i] - '0');
  }
  return sm;
}

} // namespace

int main(int argc, char **argv) {
  std::string input, output, archText;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg.compare(0, 7, "--arch=") == 0) {
      if (!archText.empty())
        return usageError("--arch given twice");
      archText = arg.substr(7);
      if (archText.empty())
        return usageError("--arch= needs a value such as sm_90");
    } else if (arg == "-o") {
      if (i + 1 >= argc)
        return usageError("-o needs a file name");
      if (!output.empty())
        return usageError("-o given twice");
      output = argv[++i];
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usageError("unknown option '" + arg + "'");
    } else {
      if (!input.empty())
        return usageError("more than one input file ('" + input + "', '" + arg +
                          "')");
      input = arg;
    }
  }
  if (input.empty())
    return usageError("no input file");
  if (archText.empty())
    return usageError("no --arch=sm_NN");
  int sm = parseArch(archText);
  if (sm == 0)
    return usageError("--arch=" + archText + ": expected sm_NN, e.g. sm_90");

  std::ifstream in(input, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "gnnrt-nvrtc: cannot read %s: %s\n", input.c_str(),
                 std::strerror(errno));
    return 1;
  }
  std::string source((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());

  void *image = nullptr;
  int64_t bytes = 0;
  if (gnnrt_cuda_compile(source.c_str(), input.c_str(), sm, &image, &bytes) !=
      GNNRT_OK) {
    std::fprintf(stderr, "%s\n", gnnrt_cuda_last_error());
    return 1;
  }
  int status = 0;
  if (!output.empty()) {
    std::ofstream out(output, std::ios::binary);
    out.write(static_cast<const char *>(image),
              static_cast<std::streamsize>(bytes));
    out.close();
    if (!out) {
      std::fprintf(stderr, "gnnrt-nvrtc: cannot write %s\n", output.c_str());
      status = 1;
    }
  }
  std::free(image);
  if (status == 0)
    std::printf("%s: %lld bytes of CUBIN for sm_%d\n", input.c_str(),
                static_cast<long long>(bytes), sm);
  return status;
}

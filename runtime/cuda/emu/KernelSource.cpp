//===- KernelSource.cpp - Generated kernels as host C++ -------------------===//
//
// Only what the generated kernels need is emulated: a 1-D grid, grid-stride
// loops, float and double math from <math.h>, __int_as_float. Threads run one
// after another, which is a valid schedule only for kernels whose threads do
// not talk to each other; __shared__, __syncthreads and warp intrinsics are
// therefore left undefined, so a kernel using them fails to compile here
// instead of running wrongly.
//
//===----------------------------------------------------------------------===//
#include "KernelSource.h"

#include <cctype>
#include <set>

using namespace gnnrt::emu;

namespace {

/// \p source without its comments (generated kernels have no string
/// literals, so no comment marker hides inside one).
std::string stripComments(const std::string &source) {
  std::string out;
  out.reserve(source.size());
  for (size_t i = 0; i < source.size();) {
    if (source.compare(i, 2, "//") == 0) {
      i = source.find('\n', i);
      if (i == std::string::npos)
        break;
    } else if (source.compare(i, 2, "/*") == 0) {
      size_t end = source.find("*/", i + 2);
      i = end == std::string::npos ? source.size() : end + 2;
      out += ' ';
    } else {
      out += source[i++];
    }
  }
  return out;
}

bool isIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/// Splits a parameter into identifiers and '*'; false on anything else
/// (references, arrays, templates, default arguments...).
bool tokenize(const std::string &text, std::vector<std::string> &tokens) {
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '*') {
      tokens.emplace_back("*");
      ++i;
    } else if (isIdentifierChar(c)) {
      size_t start = i;
      while (i < text.size() && isIdentifierChar(text[i]))
        ++i;
      tokens.push_back(text.substr(start, i - start));
    } else {
      return false;
    }
  }
  return true;
}

/// The types a trampoline can read from a params slot as written. Pointers
/// are read as pointers whatever they point to, but only element types
/// generated code uses are accepted, so that a new kind of parameter is
/// looked at before it is trusted.
bool supportedType(const std::string &type) {
  static const std::set<std::string> scalars = {
      "int",           "unsigned int", "long long", "unsigned long long",
      "unsigned char", "float",        "double"};
  static const std::set<std::string> pointees = {
      "float", "double", "int", "long long", "unsigned char", "unsigned short"};
  if (scalars.count(type))
    return true;
  if (type.size() < 2 || type.compare(type.size() - 2, 2, " *") != 0)
    return false;
  std::string pointee = type.substr(0, type.size() - 2);
  if (pointee.compare(0, 6, "const ") == 0)
    pointee = pointee.substr(6);
  return pointees.count(pointee) != 0;
}

} // namespace

bool gnnrt::emu::parseKernels(const std::string &source,
                              std::vector<KernelDecl> &kernels,
                              std::string &error) {
  const std::string text = stripComments(source);
  const std::string marker = "__global__";
  for (size_t at = text.find(marker); at != std::string::npos;
       at = text.find(marker, at + marker.size())) {
    if ((at > 0 && isIdentifierChar(text[at - 1])) ||
        isIdentifierChar(text[at + marker.size()]))
      continue;
    size_t open = text.find('(', at);
    size_t close = open == std::string::npos ? open : text.find(')', open);
    if (close == std::string::npos) {
      error = "a __global__ declaration without a parameter list";
      return false;
    }
    std::vector<std::string> head;
    if (!tokenize(text.substr(at + marker.size(), open - at - marker.size()),
                  head) ||
        head.size() != 2 || head[0] != "void" || head[1] == "*") {
      error = "cannot read the kernel declaration '" +
              text.substr(at, open - at) + "' (expected __global__ void NAME)";
      return false;
    }
    KernelDecl kernel;
    kernel.name = head[1];
    std::string params = text.substr(open + 1, close - open - 1);
    if (params.find('(') != std::string::npos) {
      error = "kernel " + kernel.name + ": cannot read its parameters '" +
              params + "'";
      return false;
    }
    std::vector<std::string> list;
    for (size_t start = 0;;) {
      size_t comma = params.find(',', start);
      list.push_back(params.substr(start, comma - start));
      if (comma == std::string::npos)
        break;
      start = comma + 1;
    }
    // f() and f(void) take nothing.
    std::vector<std::string> only;
    if (list.size() == 1 && tokenize(list[0], only) &&
        (only.empty() || (only.size() == 1 && only[0] == "void")))
      list.clear();
    for (const std::string &param : list) {
      std::vector<std::string> tokens;
      if (!tokenize(param, tokens) || tokens.size() < 2 ||
          tokens.back() == "*") {
        error = "kernel " + kernel.name + ": cannot read the parameter '" +
                param + "' (expected TYPE NAME)";
        return false;
      }
      std::string type;
      for (size_t k = 0; k + 1 < tokens.size(); ++k)
        type += (k ? " " : "") + tokens[k];
      if (!supportedType(type)) {
        error = "kernel " + kernel.name + ": parameter '" + tokens.back() +
                "' has type '" + type +
                "', which the emulator does not unpack (integers, float, "
                "double and pointers to them)";
        return false;
      }
      kernel.paramTypes.push_back(type);
    }
    kernels.push_back(std::move(kernel));
  }
  if (kernels.empty()) {
    error = "the unit's source has no __global__ kernel";
    return false;
  }
  return true;
}

std::string
gnnrt::emu::emulationSource(const std::string &source,
                            const std::vector<KernelDecl> &kernels) {
  // The index variables are plain globals: the emulator runs one launch at
  // a time (it holds a lock), and thread-local ones would cost a TLS lookup
  // per thread of every launch.
  std::string out =
      R"(// gnnc CUDA emulator: generated kernels compiled for the CPU.
#include <math.h>
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#include <string.h>
// The CUDA intrinsic the generated kernels use for infinities and NaN
// (NVRTC has no <math.h>): the float with the bits of \p i.
static inline float __int_as_float(int i) {
  float f;
  memcpy(&f, &i, sizeof f);
  return f;
}
struct gnnc_emu_dim3 { unsigned int x, y, z; };
static gnnc_emu_dim3 threadIdx, blockIdx, blockDim, gridDim;

// ---- the unit's kernels, as generated ----
)";
  out += source;
  out +=
      "\n// ---- trampolines: cudaLaunchKernel's params, then the grid ----\n";
  // Threads run from the last to the first. A GPU promises no order, and
  // the CPU target's loops go up: an output lying partly below an input
  // its kernel still reads (a fusion the emitter should have cut) is then
  // read after it was written here, and gives other bytes than the CPU's,
  // where going up would have hidden it.
  const std::string threads = std::to_string(kThreadsPerBlock);
  for (const KernelDecl &kernel : kernels) {
    out += "extern \"C\" void " + kernel.name +
           "__emu(void **params, long long blocks) {\n";
    std::string args;
    for (size_t k = 0; k < kernel.paramTypes.size(); ++k) {
      const std::string a = "a" + std::to_string(k);
      out += "  " + kernel.paramTypes[k] + " " + a + " = *(" +
             kernel.paramTypes[k] + " *)params[" + std::to_string(k) + "];\n";
      args += (k ? ", " : "") + a;
    }
    out += "  blockDim.x = " + threads +
           "; blockDim.y = blockDim.z = 1;\n"
           "  gridDim.x = (unsigned int)blocks; gridDim.y = gridDim.z = 1;\n"
           "  blockIdx.y = blockIdx.z = threadIdx.y = threadIdx.z = 0;\n"
           "  for (long long b = blocks - 1; b >= 0; --b) {\n"
           "    blockIdx.x = (unsigned int)b;\n"
           "    for (int t = " +
           threads +
           " - 1; t >= 0; --t) {\n"
           "      threadIdx.x = (unsigned int)t;\n"
           "      " +
           kernel.name + "(" + args +
           ");\n"
           "    }\n"
           "  }\n"
           "}\n";
  }
  return out;
}

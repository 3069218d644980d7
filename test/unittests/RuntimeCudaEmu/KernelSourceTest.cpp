//===- KernelSourceTest.cpp - The emulator's kernel-signature parser ------===//
//
// A trampoline reads each launch parameter by the type the parser found, so
// a signature it misreads would run a kernel on wrong arguments: anything
// it does not know must be refused with a message instead.
//
//===----------------------------------------------------------------------===//
#include "KernelSource.h"

#include <gtest/gtest.h>

using namespace gnnrt::emu;

namespace {

std::vector<KernelDecl> parseOk(const std::string &source) {
  std::vector<KernelDecl> kernels;
  std::string error;
  EXPECT_TRUE(parseKernels(source, kernels, error)) << error;
  return kernels;
}

std::string parseError(const std::string &source) {
  std::vector<KernelDecl> kernels;
  std::string error;
  EXPECT_FALSE(parseKernels(source, kernels, error));
  return error;
}

TEST(KernelSource, ReadsGeneratedSignatures) {
  auto kernels = parseOk(
      "// zeros: a comment naming __global__ is not a kernel\n"
      "extern \"C\" __global__ void gnnc_k0(long long n, long long cols, "
      "const float *in0, float *out0) {\n  out0[0] = in0[0];\n}\n"
      "/* fill */ extern \"C\" __global__ void gnnc_k1(long long n, "
      "unsigned char value,\n    unsigned char* out) {}\n"
      "extern \"C\" __global__ void gnnc_k2(int n, double d, const int *p) {}\n"
      "extern \"C\" __global__ void gnnc_k3(void) {}\n");
  ASSERT_EQ(kernels.size(), 4u);
  EXPECT_EQ(kernels[0].name, "gnnc_k0");
  EXPECT_EQ(kernels[0].paramTypes,
            (std::vector<std::string>{"long long", "long long", "const float *",
                                      "float *"}));
  EXPECT_EQ(kernels[1].paramTypes,
            (std::vector<std::string>{"long long", "unsigned char",
                                      "unsigned char *"}));
  EXPECT_EQ(kernels[2].paramTypes,
            (std::vector<std::string>{"int", "double", "const int *"}));
  EXPECT_TRUE(kernels[3].paramTypes.empty());
}

TEST(KernelSource, RefusesWhatItCannotUnpack) {
  EXPECT_EQ(parseError("__global__ void k(long long n, float4 *x) {}"),
            "kernel k: parameter 'x' has type 'float4 *', which the emulator "
            "does not unpack (integers, float, double and pointers to them)");
  EXPECT_EQ(parseError("__global__ void k(float &x) {}"),
            "kernel k: cannot read the parameter 'float &x' (expected TYPE "
            "NAME)");
  EXPECT_EQ(parseError("__global__ void k(float *) {}"),
            "kernel k: cannot read the parameter 'float *' (expected TYPE "
            "NAME)");
  EXPECT_EQ(parseError("__global__ void k(float **x) {}"),
            "kernel k: parameter 'x' has type 'float * *', which the emulator "
            "does not unpack (integers, float, double and pointers to them)");
  EXPECT_NE(parseError("__global__ int k(int n) {}")
                .find("expected "
                      "__global__ void "
                      "NAME"),
            std::string::npos);
  EXPECT_EQ(parseError("__global__ void k(int n"),
            "a __global__ declaration without a parameter list");
  EXPECT_EQ(parseError("// no kernels\nint f(int x) { return x; }\n"),
            "the unit's source has no __global__ kernel");
}

TEST(KernelSource, TrampolineUnpacksEachParameterByItsType) {
  auto kernels = parseOk("__global__ void k(long long n, const float *x, "
                         "float *y) {}");
  std::string text = emulationSource("SOURCE", kernels);
  EXPECT_NE(text.find("\nSOURCE\n"), std::string::npos);
  EXPECT_NE(text.find("extern \"C\" void k__emu(void **params, long long "
                      "blocks) {\n"
                      "  long long a0 = *(long long *)params[0];\n"
                      "  const float * a1 = *(const float * *)params[1];\n"
                      "  float * a2 = *(float * *)params[2];\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("k(a0, a1, a2);"), std::string::npos);
}

} // namespace

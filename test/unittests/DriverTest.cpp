//===- DriverTest.cpp - The compilation pipeline as a library -------------===//
#include "compiler/Driver/Driver.h"

#include "lang/Basic/Diagnostics.h"
#include "lang/Sema/Sema.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

using namespace gnnc;

namespace {

const std::string kExample =
    std::string(GNNC_SOURCE_DIR) + "/examples/cora_gcn.gnn";

const char *kTwoModels = R"(model A(hidden = 16) {
  return gcn_conv(relu(gcn_conv(x, out = hidden)), out = classes);
}
model B() {
  return linear(x, out = classes);
}
train A on dataset("cora") {
  loss = cross_entropy();
  optimizer = adam(lr = 0.01);
  epochs = 10;
}
train B on dataset("citeseer") {
  loss = cross_entropy();
  optimizer = sgd(lr = 0.1);
  epochs = 5;
}
train A(hidden = 64) on dataset("citeseer") {
  loss = cross_entropy();
  optimizer = adamw();
  epochs = 20;
}
)";

/// A fresh temporary directory, removed with everything in it.
class DriverTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> path;
    ASSERT_FALSE(
        llvm::sys::fs::createUniqueDirectory("gnnc-driver-test", path));
    tmp = std::string(path);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(tmp); }

  std::string write(const std::string &name, const std::string &text) {
    std::string path = tmp + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  DriverOptions options(const std::string &input) {
    DriverOptions o;
    o.inputFile = input;
    o.dataDirs = {GNNC_TEST_DATA_DIR};
    return o;
  }

  std::string tmp;
  std::string diagText;
  llvm::raw_string_ostream diagOS{diagText};
};

TEST_F(DriverTest, FrontendOnExample) {
  Compilation c(options(kExample), diagOS);
  ASSERT_TRUE(c.runFrontend()) << diagText;
  EXPECT_EQ(diagText, "") << "a clean program prints nothing";
  ASSERT_NE(c.getDiags(), nullptr);
  EXPECT_FALSE(c.getDiags()->hasErrors());
  EXPECT_EQ(c.getAST().filename, kExample);
  EXPECT_EQ(c.getAST().decls.size(), 2u);
  const sema::CheckedProgram &p = c.getChecked();
  ASSERT_EQ(p.trains.size(), 1u);
  EXPECT_EQ(p.trains[0].model.name, "GCN");
  EXPECT_EQ(p.trains[0].data.name, "cora");
  EXPECT_EQ(p.trains[0].data.nodes, 2708);
  EXPECT_EQ(p.trains[0].config.epochs, 200);
  EXPECT_EQ(p.trains[0].config.memory, 256ull << 20);
}

TEST_F(DriverTest, FrontendFindsShippedDataWithoutDataDirs) {
  // The datasets that ship with gnnc are on the default search path.
  DriverOptions o;
  o.inputFile = kExample;
  Compilation c(o, diagOS);
  ASSERT_TRUE(c.runFrontend()) << diagText;
  EXPECT_EQ(c.getChecked().trains.size(), 1u);
}

TEST_F(DriverTest, MissingInputFile) {
  std::string missing = tmp + "/does-not-exist.gnn";
  Compilation c(options(missing), diagOS);
  EXPECT_FALSE(c.runFrontend());
  EXPECT_EQ(c.getDiags(), nullptr) << "no source, no diagnostics engine";
  EXPECT_NE(diagText.find("gnnc: error: cannot read '" + missing + "'"),
            std::string::npos)
      << diagText;
  EXPECT_NE(diagText.find("No such file or directory"), std::string::npos)
      << diagText;
}

TEST_F(DriverTest, SyntaxErrorStopsBeforeSema) {
  std::string path = write("bad.gnn", "model M() {\n"
                                      "  h = relu(x)\n"
                                      "  return h;\n"
                                      "}\n"
                                      "train Nope on dataset(\"cora\") { }\n");
  Compilation c(options(path), diagOS);
  EXPECT_FALSE(c.runFrontend());
  ASSERT_NE(c.getDiags(), nullptr);
  EXPECT_EQ(c.getDiags()->errorCount(), 1u) << diagText;
  EXPECT_NE(diagText.find(path + ":2:14: error: expected ';'"),
            std::string::npos)
      << diagText;
  EXPECT_NE(diagText.find("  h = relu(x)\n             ^"), std::string::npos)
      << "the line and a caret\n"
      << diagText;
  EXPECT_EQ(diagText.find("unknown model"), std::string::npos)
      << "Sema does not run after syntax errors";
  EXPECT_TRUE(c.getChecked().trains.empty());
}

TEST_F(DriverTest, SemaErrorsAreReported) {
  std::string path =
      write("sema.gnn", "model M() { return linear(x, out = classes); }\n"
                        "train N on dataset(\"cora\") {\n"
                        "  loss = cross_entropy();\n"
                        "  optimizer = adam();\n"
                        "  epochs = 1;\n"
                        "}\n");
  Compilation c(options(path), diagOS);
  EXPECT_FALSE(c.runFrontend());
  EXPECT_NE(diagText.find(path + ":2:7: error: train of unknown model 'N'; "
                                 "did you mean 'M'?"),
            std::string::npos)
      << diagText;
}

TEST_F(DriverTest, RelativeDatasetPathIsRelativeToTheSourceFile) {
  ASSERT_FALSE(llvm::sys::fs::create_directory(tmp + "/data"));
  ASSERT_FALSE(llvm::sys::fs::create_link(
      std::string(GNNC_TEST_DATA_DIR) + "/citeseer", tmp + "/data/cs"));
  std::string path =
      write("rel.gnn", "model M() { return linear(x, out = classes); }\n"
                       "train M on dataset(\"data/cs\") {\n"
                       "  loss = cross_entropy();\n"
                       "  optimizer = adam();\n"
                       "  epochs = 1;\n"
                       "}\n");
  DriverOptions o = options(path);
  o.dataDirs.clear();
  Compilation c(o, diagOS);
  ASSERT_TRUE(c.runFrontend()) << diagText;
  EXPECT_EQ(c.getChecked().trains[0].data.classes, 6);
}

TEST_F(DriverTest, OnlyKeepsTheNamedModelsTrains) {
  std::string path = write("two.gnn", kTwoModels);
  {
    Compilation all(options(path), diagOS);
    ASSERT_TRUE(all.runFrontend()) << diagText;
    ASSERT_EQ(all.getChecked().trains.size(), 3u);
  }
  {
    DriverOptions o = options(path);
    o.only = "A";
    Compilation c(o, diagOS);
    ASSERT_TRUE(c.runFrontend()) << diagText;
    const auto &trains = c.getChecked().trains;
    ASSERT_EQ(trains.size(), 2u);
    EXPECT_EQ(trains[0].model.name, "A");
    EXPECT_EQ(trains[0].data.name, "cora");
    EXPECT_EQ(trains[1].model.name, "A");
    EXPECT_EQ(trains[1].data.name, "citeseer") << "file order is kept";
    EXPECT_EQ(trains[1].model.args[0].value.i, 64);
  }
  {
    DriverOptions o = options(path);
    o.only = "B";
    Compilation c(o, diagOS);
    ASSERT_TRUE(c.runFrontend()) << diagText;
    ASSERT_EQ(c.getChecked().trains.size(), 1u);
    EXPECT_EQ(c.getChecked().trains[0].model.name, "B");
    EXPECT_EQ(c.getChecked().trains[0].config.optimizer.kind,
              sema::OptimizerConfig::Kind::SGD);
  }
  EXPECT_EQ(diagText, "");
}

TEST_F(DriverTest, OnlyUnknownModel) {
  std::string path = write("two.gnn", kTwoModels);
  DriverOptions o = options(path);
  o.only = "C";
  Compilation c(o, diagOS);
  EXPECT_FALSE(c.runFrontend());
  EXPECT_NE(diagText.find("gnnc: error: --only C: no train block trains "
                          "model 'C'"),
            std::string::npos)
      << diagText;

  diagText.clear();
  o.only = "b";
  Compilation d(o, diagOS);
  EXPECT_FALSE(d.runFrontend());
  EXPECT_NE(diagText.find("did you mean 'B'?"), std::string::npos) << diagText;
}

TEST_F(DriverTest, EmitAst) {
  Compilation c(options(kExample), diagOS);
  ASSERT_TRUE(c.runFrontend()) << diagText;
  std::string out;
  llvm::raw_string_ostream os(out);
  EXPECT_TRUE(c.emit(Stage::AST, os));
  os.flush();
  EXPECT_EQ(out.rfind("Program \"" + kExample + "\"", 0), 0u) << out;
  // The model's line in the example, wherever its comments put it.
  std::ifstream source(kExample);
  std::string line;
  int modelLine = 0;
  for (int i = 1; std::getline(source, line); ++i)
    if (line.rfind("model GCN", 0) == 0) {
      modelLine = i;
      break;
    }
  ASSERT_GT(modelLine, 0);
  EXPECT_NE(out.find("Model GCN @" + std::to_string(modelLine) + ":1"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("gcn_conv_1"), std::string::npos) << out;
  EXPECT_EQ(diagText, "");
}

// Stage cuda prints the same functions as stage cpp, for the CUDA target:
// device kernels, then the host part calling gnnrt/Cuda.h.
TEST_F(DriverTest, EmitCudaPrintsTheCudaUnit) {
  Compilation c(options(kExample), diagOS);
  ASSERT_TRUE(c.runFrontend()) << diagText;
  std::string out;
  llvm::raw_string_ostream os(out);
  ASSERT_TRUE(c.emit(Stage::Cuda, os)) << diagText;
  os.flush();
  size_t device = out.find("extern \"C\" __global__ void gnnc_k0(");
  size_t host = out.find("#else // host part");
  ASSERT_NE(device, std::string::npos) << out;
  ASSERT_NE(host, std::string::npos) << out;
  EXPECT_LT(device, host);
  EXPECT_NE(out.find("GNNC_CALL(gnnrt_cuda_", host), std::string::npos);
  EXPECT_EQ(out.find("gnnrt_cpu_", host), std::string::npos)
      << "the CUDA unit calls no CPU kernel";
  EXPECT_NE(out.find("GNNRT_TARGET_CUDA"), std::string::npos);
}

// Stage plan prints the step with its memory plan.
TEST_F(DriverTest, EmitPlanPrintsTheMemoryPlan) {
  Compilation c(options(kExample), diagOS);
  ASSERT_TRUE(c.runFrontend()) << diagText;
  std::string out;
  llvm::raw_string_ostream os(out);
  ASSERT_TRUE(c.emit(Stage::Plan, os)) << diagText;
  EXPECT_NE(out.find("mem.plan = #mem.plan<"), std::string::npos) << out;
}

TEST_F(DriverTest, EmitCppPrintsTheCpuTranslationUnit) {
  Compilation c(options(kExample), diagOS);
  ASSERT_TRUE(c.runFrontend()) << diagText;
  std::string out;
  llvm::raw_string_ostream os(out);
  EXPECT_TRUE(c.emit(Stage::Cpp, os)) << diagText;
  os.flush();
  EXPECT_NE(out.find("#include \"gnnrt/Kernels.h\""), std::string::npos);
  EXPECT_NE(out.find("extern \"C\" int gnnc_"), std::string::npos) << out;
  EXPECT_NE(out.find("_arena_bytes(void)"), std::string::npos) << out;
  EXPECT_EQ(diagText, "");
}

TEST(DriverStageTest, ParseStage) {
  EXPECT_EQ(parseStage("ast"), Stage::AST);
  EXPECT_EQ(parseStage("gnn"), Stage::GNN);
  EXPECT_EQ(parseStage("decomposed"), Stage::Decomposed);
  EXPECT_EQ(parseStage("train"), Stage::Train);
  EXPECT_EQ(parseStage("plan"), Stage::Plan);
  EXPECT_EQ(parseStage("cpp"), Stage::Cpp);
  EXPECT_EQ(parseStage("cuda"), Stage::Cuda);
  EXPECT_EQ(parseStage(""), std::nullopt);
  EXPECT_EQ(parseStage("AST"), std::nullopt);
  EXPECT_EQ(parseStage("llvm"), std::nullopt);
  EXPECT_EQ(parseStage("ast "), std::nullopt);
}

TEST(DriverStageTest, StageNamesRoundTrip) {
  for (Stage s : {Stage::AST, Stage::GNN, Stage::Decomposed, Stage::Train,
                  Stage::Plan, Stage::Cpp, Stage::Cuda})
    EXPECT_EQ(parseStage(stageName(s)), s) << stageName(s).str();
}

TEST(DriverStageTest, StageListInPipelineOrder) {
  EXPECT_EQ(stageList(), "ast, gnn, decomposed, train, plan, cpp, cuda");
}

TEST(DriverStageTest, VersionString) {
  std::string v = versionString();
  EXPECT_EQ(v.rfind("gnnc version ", 0), 0u) << v;
  EXPECT_NE(v.find("(language v1, LLVM 19"), std::string::npos) << v;
}

TEST(DriverStageTest, ReportToolError) {
  std::string text;
  llvm::raw_string_ostream os(text);
  reportToolError(os, "something broke");
  os.flush();
  EXPECT_EQ(text, "gnnc: error: something broke\n");
}

TEST(DriverStageTest, DefaultDataSearchPath) {
  const char *old = std::getenv("GNNC_DATA_PATH");
  std::string saved = old ? old : "";
  ::setenv("GNNC_DATA_PATH", "/b::/c", 1);
  std::vector<std::string> path = defaultDataSearchPath({"/a"});
  if (old)
    ::setenv("GNNC_DATA_PATH", saved.c_str(), 1);
  else
    ::unsetenv("GNNC_DATA_PATH");
  ASSERT_EQ(path.size(), 4u);
  EXPECT_EQ(path[0], "/a");
  EXPECT_EQ(path[1], "/b");
  EXPECT_EQ(path[2], "/c");
  EXPECT_EQ(path[3], GNNC_TEST_DATA_DIR) << "the shipped datasets come last";
}

} // namespace

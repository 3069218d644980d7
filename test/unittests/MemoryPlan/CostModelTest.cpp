//===- CostModelTest.cpp - The planner's prices and machine profiles ------===//
//
// * FLOPs and bytes of hand-built ops against the formulas of
//   docs/CostModel.md, written out here as numbers (a changed formula must
//   change this test), and the seconds they give under a known profile;
// * transfers and conversions;
// * every op of every shipped example's step gets a finite estimate;
// * profiles: the default loads, write -> parse is the identity, every
//   validation error names the file and the field, the resolution order;
// * calibration on tiny sizes: every rate positive and finite.
//
//===----------------------------------------------------------------------===//
#include "passes/MemoryPlan/CostModel.h"

#include "compiler/Driver/Driver.h"
#include "dialects/Gnn/RowSets.h"
#include "passes/Pipeline/Pipeline.h"
#include "test/unittests/ExampleFiles.h"

#include "gnnrt/Calibrate.h"
#include "gnnrt/Kernels.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>

using namespace mlir;
using namespace mlir::gnn;

namespace {

/// A profile with round rates, so expected seconds are easy to write.
MachineProfile testProfile() {
  MachineProfile p;
  p.name = "test";
  p.target = "cpu";
  p.gemmFlopsPerSecond = 1e9;
  p.memBytesPerSecond = 1e9;
  p.randomValuesPerSecond = 2e8;
  p.sparseBytesPerSecond = 1e8;
  p.hostLinkBytesPerSecond = 2e9;
  p.diskWriteBytesPerSecond = 1e8;
  p.diskReadBytesPerSecond = 2e8;
  p.hostTransferOverlap = 0.25;
  p.diskTransferOverlap = 0.5;
  p.secondsPerOp = 1e-6;
  return p;
}

class CostModelTest : public ::testing::Test {
protected:
  CostModelTest() { loadGnncDialects(context); }

  /// Parses \p source and indexes its ops by the SSA name their line
  /// defines ("%s1 = ..." -> "s1"; the first of several results), or by op
  /// name for ops that define nothing ("func.return").
  void parse(const std::string &source) {
    module = parseSourceString<ModuleOp>(source, &context);
    ASSERT_TRUE(module) << source;
    std::map<unsigned, std::string> lineNames;
    std::istringstream lines(source);
    std::string line;
    for (unsigned number = 1; std::getline(lines, line); ++number) {
      size_t start = line.find_first_not_of(' ');
      if (start == std::string::npos || line[start] != '%' ||
          line.find(" = ") == std::string::npos)
        continue;
      size_t end = line.find_first_of(" ,:=", start);
      lineNames[number] = line.substr(start + 1, end - start - 1);
    }
    ops.clear();
    module->walk([&](Operation *op) {
      auto loc = dyn_cast<FileLineColLoc>(op->getLoc());
      if (op->getNumResults() != 0 && loc && lineNames.count(loc.getLine()))
        ops[lineNames[loc.getLine()]] = op;
      else
        ops[op->getName().getStringRef().str()] = op;
    });
  }
  Operation *op(const std::string &name) {
    auto it = ops.find(name);
    EXPECT_NE(it, ops.end()) << name;
    return it == ops.end() ? nullptr : it->second;
  }
  OpCost cost(const std::string &name) {
    Operation *o = op(name);
    return o ? estimateOpCost(o, profile) : OpCost();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::map<std::string, Operation *> ops;
  MachineProfile profile = testProfile();
};

const char *kKernels = R"mlir(
func.func @f(%g: !gnn.graph<100x1000>, %x: tensor<100x16xf32>,
             %w: tensor<1000xf32>, %wh: tensor<1000x4xf32>,
             %a: tensor<100x32xf32>, %b: tensor<32x16xf32>, %seed: i64,
             %step: i64, %labels: tensor<100xi32>, %mask: tensor<100xi1>,
             %v: tensor<16xf32>)
    -> (tensor<100x16xf32>, tensor<f32>, tensor<100x16xf32>, tensor<100x16xf32>) {
  %key = gnn.rng_key %seed, %step
  %t = gnn.transpose %g : <100x1000>
  %one = arith.constant dense<1.000000e+00> : tensor<f32>
  %i = arith.constant 3 : i64
  %s1 = gnn.spmm sum %g, %x, %w : (!gnn.graph<100x1000>, tensor<100x16xf32>, tensor<1000xf32>) -> tensor<100x16xf32>
  %s2 = gnn.spmm sum %t, %x : (!gnn.graph<100x1000>, tensor<100x16xf32>) -> tensor<100x16xf32>
  %s3 = gnn.spmm sum %g, %x, %wh : (!gnn.graph<100x1000>, tensor<100x16xf32>, tensor<1000x4xf32>) -> tensor<100x16xf32>
  %s4 = gnn.spmm mean %g, %x : (!gnn.graph<100x1000>, tensor<100x16xf32>) -> tensor<100x16xf32>
  %m = gnn.matmul %a, %b : (tensor<100x32xf32>, tensor<32x16xf32>) -> tensor<100x16xf32>
  %mt = gnn.matmul %a, %m {transpose_a} : (tensor<100x32xf32>, tensor<100x16xf32>) -> tensor<32x16xf32>
  %d = gnn.dropout %m, %key {p = 5.000000e-01 : f64, stream = 0 : i64} : tensor<100x16xf32>
  %r = gnn.activation relu %d : tensor<100x16xf32>
  %y = gnn.add %r, %s1 : tensor<100x16xf32>
  %bb = gnn.bias_add %y, %v : (tensor<100x16xf32>, tensor<16xf32>) -> tensor<100x16xf32>
  %e = gnn.sddmm %g, %x, %x {heads = 1 : i64} : (!gnn.graph<100x1000>, tensor<100x16xf32>, tensor<100x16xf32>) -> tensor<1000x1xf32>
  %sm = gnn.edge_softmax %g, %e : (!gnn.graph<100x1000>, tensor<1000x1xf32>) -> tensor<1000x1xf32>
  %ga = gnn.gather src %g, %x : (!gnn.graph<100x1000>, tensor<100x16xf32>) -> tensor<1000x16xf32>
  %sc = gnn.scatter dst %g, %ga : (!gnn.graph<100x1000>, tensor<1000x16xf32>) -> tensor<100x16xf32>
  %ea = gnn.edge_add %g, %x, %x : (!gnn.graph<100x1000>, tensor<100x16xf32>, tensor<100x16xf32>) -> tensor<1000x16xf32>
  %red = gnn.reduce sum %bb {dim = 0 : i64} : tensor<100x16xf32> -> tensor<16xf32>
  %z = gnn.zeros : tensor<16xf32>
  %l = train.cross_entropy %bb, %labels, %mask : (tensor<100x16xf32>, tensor<100xi32>, tensor<100xi1>) -> tensor<f32>
  %w1, %m1, %v1 = train.adam %v, %red, %z, %z, %step {lr = 1.0e-02 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-08 : f64, weight_decay = 0.0 : f64} : tensor<16xf32>
  return %bb, %l, %x, %bb : tensor<100x16xf32>, tensor<f32>, tensor<100x16xf32>, tensor<100x16xf32>
}
)mlir";

TEST_F(CostModelTest, MatmulFlopsAreTwoMNK) {
  parse(kKernels);
  OpCost m = cost("m");
  EXPECT_EQ(m.flops, 2.0 * 100 * 16 * 32);
  EXPECT_EQ(m.bytes, 4.0 * (100 * 32 + 32 * 16 + 100 * 16));
  EXPECT_EQ(m.rate, CostRate::Gemm);
  // a^T m: [32, 100] x [100, 16], so K is a's row count.
  OpCost mt = cost("mt");
  EXPECT_EQ(mt.flops, 2.0 * 32 * 16 * 100);
  EXPECT_EQ(mt.bytes, 4.0 * (32 * 100 + 100 * 16 + 32 * 16));
  // secondsPerOp + max(FLOPs / 1e9, bytes / 1e9): the FLOPs bound.
  EXPECT_DOUBLE_EQ(m.seconds, 1e-6 + 102400 / 1e9);
}

TEST_F(CostModelTest, SpmmBytesFollowTheFormula) {
  parse(kKernels);
  // indptr (N + 1) and src (E) as int32, edge_id (E) when weighted, one
  // gathered row per edge (E d), the weights (E h), the output (N d).
  const double n = 100, e = 1000, d = 16;
  OpCost weighted = cost("s1");
  EXPECT_EQ(weighted.bytes,
            4 * (n + 1) + 4 * e + 4 * e + 4 * e * d + 4 * e + 4 * n * d);
  EXPECT_EQ(weighted.bytes, 82804);
  EXPECT_EQ(weighted.flops, 2 * e * d);
  EXPECT_EQ(weighted.rate, CostRate::Sparse);
  // Bound by the sparse bandwidth (1e8 B/s), not by FLOPs.
  EXPECT_DOUBLE_EQ(weighted.seconds, 1e-6 + 82804 / 1e8);

  OpCost plain = cost("s2"); // over the transposed view: same sizes
  EXPECT_EQ(plain.bytes, 4 * (n + 1) + 4 * e + 4 * e * d + 4 * n * d);
  EXPECT_EQ(plain.flops, e * d);

  OpCost heads = cost("s3");
  EXPECT_EQ(heads.bytes,
            4 * (n + 1) + 8 * e + 4 * e * d + 4 * e * 4 + 4 * n * d);

  OpCost mean = cost("s4"); // the division by the degree: N d FLOPs more
  EXPECT_EQ(mean.flops, e * d + n * d);
  EXPECT_EQ(mean.bytes, plain.bytes);
}

TEST_F(CostModelTest, OtherKernels) {
  parse(kKernels);
  const double n = 100, e = 1000, d = 16;
  EXPECT_EQ(cost("y").bytes, 3 * 4 * n * d);
  EXPECT_EQ(cost("y").flops, n * d);
  EXPECT_EQ(cost("y").rate, CostRate::Memory);
  EXPECT_EQ(cost("r").bytes, 2 * 4 * n * d);
  EXPECT_EQ(cost("d").bytes, 2 * 4 * n * d);
  EXPECT_EQ(cost("bb").bytes, 4 * (2 * n * d + d));
  EXPECT_EQ(cost("red").bytes, 4 * (n * d + d));
  EXPECT_EQ(cost("z").bytes, 4 * d);
  // sddmm: indptr, src, edge_id; lhs once per row, rhs once per edge, y.
  EXPECT_EQ(cost("e").bytes, 4 * (n + 1 + 2 * e) + 4 * (n * d + e * d + e * 1));
  EXPECT_EQ(cost("e").flops, 2 * e * d);
  EXPECT_EQ(cost("sm").bytes, 4 * (n + 1 + e) + 4 * 2 * e);
  EXPECT_EQ(cost("ga").bytes, 4 * (n + 1 + 2 * e) + 4 * 2 * e * d);
  EXPECT_EQ(cost("sc").bytes, 4 * (n + 1 + e) + 4 * (e * d + n * d));
  // edge_add: a row of one operand per edge, of the other per destination
  // row, the result; less than the two gathers and the add it replaces.
  EXPECT_EQ(cost("ea").bytes, 4 * (n + 1 + 2 * e) + 4 * (2 * e * d + n * d));
  EXPECT_EQ(cost("ea").flops, e * d);
  EXPECT_LT(cost("ea").bytes, 2 * cost("ga").bytes + 3 * 4 * e * d);
  // Logits, int32 labels, byte mask.
  EXPECT_EQ(cost("l").bytes, 4 * n * d + 4 * n + n);
  // Adam reads param, grad, m, v and writes param, m, v.
  EXPECT_EQ(cost("w1").bytes, 7 * 4 * d);
  for (const char *name : {"sm", "ga", "sc", "ea", "e"})
    EXPECT_EQ(cost(name).rate, CostRate::Sparse) << name;
}

// Dropout is priced by its random values (randomValuesPerSecond), not by
// its bytes or FLOPs: on the CPU a value costs more than the 8 bytes it
// moves (1.4e9 values/s against 3e10 B/s on the default profile's box).
TEST_F(CostModelTest, DropoutIsBoundByItsRandomValues) {
  parse(kKernels);
  const double n = 100, d = 16;
  // 1600 values at 2e8/s (8 us) against 12800 bytes at 1e9 B/s (12.8 us):
  // the test profile's bytes bind; a slower generator then binds instead.
  EXPECT_DOUBLE_EQ(cost("d").seconds, 1e-6 + 2 * 4 * n * d / 1e9);
  profile.randomValuesPerSecond = 1e8;
  EXPECT_DOUBLE_EQ(cost("d").seconds, 1e-6 + n * d / 1e8);
}

// A CSR dropout reads and writes its buffer (the pattern copied) and draws
// a Philox block, four values' worth, for each stored value.
TEST_F(CostModelTest, CsrDropoutDrawsABlockPerStoredValue) {
  parse(R"mlir(
func.func @f(%x: tensor<100x50xf32, #gnn.csr<nnz = 300>>, %seed: i64,
             %step: i64) -> tensor<100x50xf32, #gnn.csr<nnz = 300>> {
  %key = gnn.rng_key %seed, %step
  %d = gnn.dropout %x, %key {p = 5.000000e-01 : f64, stream = 0 : i64} : tensor<100x50xf32, #gnn.csr<nnz = 300>>
  return %d : tensor<100x50xf32, #gnn.csr<nnz = 300>>
}
)mlir");
  ASSERT_TRUE(op("d"));
  const double bytes = 2.0 * gnnrt_csr_matrix_bytes(100, 50, 300);
  EXPECT_EQ(cost("d").bytes, bytes);
  EXPECT_EQ(cost("d").randomValues, 4 * 300);
  EXPECT_DOUBLE_EQ(cost("d").seconds, 1e-6 + std::max(bytes / 1e9, 1200 / 2e8));
}

// A step restricted to the rows of a 10-node training mask on a graph of
// 1000 nodes and 8000 edges (8 per node, self loops included): R_1 is
// estimated at 1000 (1 - 0.99^8) = 77.255 rows, R_2 at 1000 (1 - (1 -
// 0.077255)^8) = 473.9.
const char *kRestricted = R"mlir(
func.func @step(%g: !gnn.graph<1000x8000>, %x: tensor<1000x16xf32>,
                %mask: tensor<1000xi1> {gnn.input = "train_mask"},
                %b: tensor<16x16xf32>, %seed: i64, %step: i64)
    -> (tensor<1000x16xf32>, tensor<1000x16xf32>, tensor<1000x16xf32>, tensor<16x16xf32>, tensor<1000x16xf32>, tensor<1000x16xf32>, tensor<1000x16xf32>)
    attributes {train.config = {train_nodes = 10 : i64}} {
  %r = gnn.receptive_rows %g, %mask {hops = 2 : i64} : (!gnn.graph<1000x8000>, tensor<1000xi1>) -> tensor<1253xi32>
  %s = gnn.spmm sum %g, %x : (!gnn.graph<1000x8000>, tensor<1000x16xf32>) -> tensor<1000x16xf32>
  %s1 = gnn.spmm sum %g, %x rows %r {level = 1 : i64} : (!gnn.graph<1000x8000>, tensor<1000x16xf32>, tensor<1253xi32>) -> tensor<1000x16xf32>
  %s2 = gnn.spmm sum %g, %x rows %r {gnn.rest_unread, level = 2 : i64} : (!gnn.graph<1000x8000>, tensor<1000x16xf32>, tensor<1253xi32>) -> tensor<1000x16xf32>
  %m = gnn.matmul %x, %b : (tensor<1000x16xf32>, tensor<16x16xf32>) -> tensor<1000x16xf32>
  %m0 = gnn.matmul %x, %b rows %r {gnn.rest_unread, level = 0 : i64} : (tensor<1000x16xf32>, tensor<16x16xf32>, tensor<1253xi32>) -> tensor<1000x16xf32>
  %mt = gnn.matmul %x, %s1 rows %r {level = 1 : i64, transpose_a} : (tensor<1000x16xf32>, tensor<1000x16xf32>, tensor<1253xi32>) -> tensor<16x16xf32>
  %key = gnn.rng_key %seed, %step
  %d = gnn.dropout %x, %key {p = 5.000000e-01 : f64, stream = 0 : i64} : tensor<1000x16xf32>
  %d1 = gnn.dropout %x, %key rows %r : tensor<1253xi32> {gnn.rest_unread, level = 1 : i64, p = 5.000000e-01 : f64, stream = 0 : i64} : tensor<1000x16xf32>
  return %s1, %s2, %m0, %mt, %s, %d, %d1 : tensor<1000x16xf32>, tensor<1000x16xf32>, tensor<1000x16xf32>, tensor<16x16xf32>, tensor<1000x16xf32>, tensor<1000x16xf32>, tensor<1000x16xf32>
}
)mlir";

TEST_F(CostModelTest, RestrictedOpsCostTheirRows) {
  parse(kRestricted);
  Operation *sets = op("r");
  ASSERT_TRUE(sets);
  const double r1 = 1000 * (1 - std::pow(0.99, 8.0));
  const double r2 = 1000 * (1 - std::pow(1 - r1 / 1000, 8.0));
  EXPECT_EQ(estimateSetRows(sets, 0), 10.0);
  ASSERT_TRUE(estimateSetRows(sets, 1));
  EXPECT_DOUBLE_EQ(*estimateSetRows(sets, 1), r1);
  EXPECT_DOUBLE_EQ(*estimateSetRows(sets, 2), r2);
  EXPECT_FALSE(estimateSetRows(sets, 3)) << "beyond the sets' hops";
  EXPECT_FALSE(estimateSetRows(op("s"), 1)) << "not a receptive_rows";

  // The whole op's FLOPs and bytes times |R_level| / N, plus the writes
  // that clear the other rows unless no one reads them (gnn.rest_unread).
  const OpCost whole = cost("s"), s1 = cost("s1"), s2 = cost("s2");
  const double resultBytes = 4.0 * 1000 * 16;
  EXPECT_DOUBLE_EQ(s1.flops, whole.flops * r1 / 1000);
  EXPECT_DOUBLE_EQ(s1.bytes,
                   whole.bytes * r1 / 1000 + (1 - r1 / 1000) * resultBytes);
  EXPECT_EQ(s1.rate, CostRate::Sparse);
  EXPECT_DOUBLE_EQ(s1.seconds, 1e-6 + s1.bytes / 1e8);
  EXPECT_DOUBLE_EQ(s2.bytes, whole.bytes * r2 / 1000);
  EXPECT_LT(s1.seconds, whole.seconds);

  const OpCost m = cost("m"), m0 = cost("m0"), mt = cost("mt");
  EXPECT_DOUBLE_EQ(m0.flops, m.flops * 10 / 1000);
  EXPECT_DOUBLE_EQ(m0.bytes, m.bytes * 10 / 1000);
  EXPECT_EQ(m0.rate, CostRate::Gemm);
  // x^T s1 over R_1: the contraction shrinks; nothing to clear in a
  // [16, 16] result.
  EXPECT_DOUBLE_EQ(mt.flops, 2.0 * 16 * 16 * 1000 * r1 / 1000);

  // A restricted dropout draws the values of its rows only, still at the
  // random rate.
  const OpCost d = cost("d"), d1 = cost("d1");
  EXPECT_EQ(d.randomValues, 1000.0 * 16);
  EXPECT_DOUBLE_EQ(d1.randomValues, d.randomValues * r1 / 1000);
  EXPECT_DOUBLE_EQ(d1.seconds,
                   1e-6 + std::max(d1.randomValues / 2e8, d1.bytes / 1e9));

  // The sets themselves: a search over the CSR, the mask, the result.
  const OpCost search = cost("r");
  EXPECT_EQ(search.rate, CostRate::Sparse);
  EXPECT_EQ(search.bytes, 4.0 * (1000 + 1 + 8000) + 1000 + 4.0 * 1253);
}

TEST_F(CostModelTest, RestrictedOpsAreWholeWithoutATrainingSetSize) {
  // Hand-written IR without `train_nodes`, or a mask that is not the
  // training mask: the size is unknown, and the op is priced whole.
  std::string source = kRestricted;
  source.replace(source.find("train_nodes"), 11, "other_count");
  parse(source);
  EXPECT_FALSE(estimateSetRows(op("r"), 1));
  EXPECT_EQ(cost("s1").bytes, cost("s").bytes);
  std::string other = kRestricted;
  other.replace(other.find("\"train_mask\""), 12, "\"val_mask\"");
  parse(other);
  EXPECT_FALSE(estimateSetRows(op("r"), 1));
}

TEST_F(CostModelTest, ViewsKeysAndScalarsAreFree) {
  parse(kKernels);
  for (const char *name : {"key", "t", "i"}) {
    OpCost c = cost(name);
    EXPECT_EQ(c.seconds, 0) << name;
    EXPECT_EQ(c.bytes, 0) << name;
    EXPECT_EQ(c.rate, CostRate::None) << name;
  }
  // A 4-byte constant is written inline: no kernel call.
  OpCost one = cost("one");
  EXPECT_EQ(one.bytes, 4);
  EXPECT_DOUBLE_EQ(one.seconds, 4 / 1e9);
  // The return copies the argument %x and the second %bb (read + write).
  OpCost ret = cost("func.return");
  EXPECT_EQ(ret.bytes, 2 * (4 * 100 * 16 + 4 * 100 * 16));
}

TEST_F(CostModelTest, MemOpsCostTheirTransfers) {
  parse(R"mlir(
func.func @m(%x: tensor<100x16xf32>) -> tensor<100x16xf32> {
  %h = mem.offload %x to host : tensor<100x16xf32> -> !mem.offloaded<host, tensor<100x16xf32>>
  %y = mem.prefetch %h : !mem.offloaded<host, tensor<100x16xf32>> -> tensor<100x16xf32>
  mem.free %h : !mem.offloaded<host, tensor<100x16xf32>>
  %dh = mem.offload %y to disk : tensor<100x16xf32> -> !mem.offloaded<disk, tensor<100x16xf32>>
  %z = mem.prefetch %dh : !mem.offloaded<disk, tensor<100x16xf32>> -> tensor<100x16xf32>
  %s = mem.store_as %z : tensor<100x16xf32> -> tensor<100x16xbf16>
  %u = mem.load_as %s : tensor<100x16xbf16> -> tensor<100x16xf32>
  %rc = mem.recompute (%u) : (tensor<100x16xf32>) -> tensor<100x16xf32> {
  ^bb0(%u0: tensor<100x16xf32>):
    %a = gnn.activation relu %u0 : tensor<100x16xf32>
    %b = gnn.scale %a {factor = 2.0 : f64} : tensor<100x16xf32>
    mem.yield %b : tensor<100x16xf32>
  }
  return %rc : tensor<100x16xf32>
}
)mlir");
  const int64_t bytes = 4 * 100 * 16;
  EXPECT_DOUBLE_EQ(cost("h").seconds,
                   transferSeconds(bytes, TransferTier::Host, false, profile));
  EXPECT_EQ(cost("h").rate, CostRate::HostLink);
  EXPECT_DOUBLE_EQ(cost("y").seconds,
                   transferSeconds(bytes, TransferTier::Host, true, profile));
  EXPECT_DOUBLE_EQ(cost("dh").seconds,
                   transferSeconds(bytes, TransferTier::Disk, false, profile));
  EXPECT_EQ(cost("dh").rate, CostRate::DiskWrite);
  EXPECT_DOUBLE_EQ(cost("z").seconds,
                   transferSeconds(bytes, TransferTier::Disk, true, profile));
  EXPECT_EQ(cost("z").rate, CostRate::DiskRead);
  EXPECT_DOUBLE_EQ(cost("s").seconds, convertSeconds(100 * 16, profile));
  EXPECT_EQ(cost("s").bytes, 100 * 16 * (4 + 2));
  EXPECT_DOUBLE_EQ(cost("u").seconds, convertSeconds(100 * 16, profile));
  EXPECT_EQ(cost("mem.free").seconds, 0);
  // A recompute costs the kernels of its region.
  OpCost inner = cost("a");
  inner += cost("b");
  OpCost rc = cost("rc");
  EXPECT_DOUBLE_EQ(rc.seconds, inner.seconds);
  EXPECT_EQ(rc.bytes, 2 * (2 * bytes));
  EXPECT_EQ(rc.rate, CostRate::Memory);
}

// A product reading its CSR matrix from host memory in tiles pays the tiles'
// copies on top of its kernel: a piece record per output row (the rows of
// A b, the columns of A^T b) and 8 bytes per stored value; the prefetch and
// the load for tiles copy nothing themselves.
TEST_F(CostModelTest, CsrProductsInTilesPayTheirCopies) {
  parse(R"mlir(
func.func @m(%a: tensor<100x30xf32, #gnn.csr<nnz = 400>>, %f: tensor<100x30xf32, #gnn.csr<nnz = 400>> {mem.home = "host"}, %a2: tensor<100x30xf32, #gnn.csr<nnz = 400>>, %w: tensor<30x16xf32>, %g: tensor<100x16xf32>) -> (tensor<100x16xf32>, tensor<30x16xf32>, tensor<100x16xf32>, tensor<100x16xf32>) {
  %h = mem.offload %a to host : tensor<100x30xf32, #gnn.csr<nnz = 400>> -> !mem.offloaded<host, tensor<100x30xf32, #gnn.csr<nnz = 400>>>
  %t = mem.prefetch %h {tile_bytes = 2800 : i64} : !mem.offloaded<host, tensor<100x30xf32, #gnn.csr<nnz = 400>>> -> tensor<100x30xf32, #gnn.csr<nnz = 400>>
  %y = gnn.matmul %t, %w : (tensor<100x30xf32, #gnn.csr<nnz = 400>>, tensor<30x16xf32>) -> tensor<100x16xf32>
  %t2 = mem.prefetch %h {tile_bytes = 2800 : i64} : !mem.offloaded<host, tensor<100x30xf32, #gnn.csr<nnz = 400>>> -> tensor<100x30xf32, #gnn.csr<nnz = 400>>
  %dw = gnn.matmul %t2, %g {transpose_a} : (tensor<100x30xf32, #gnn.csr<nnz = 400>>, tensor<100x16xf32>) -> tensor<30x16xf32>
  mem.free %h : !mem.offloaded<host, tensor<100x30xf32, #gnn.csr<nnz = 400>>>
  %f0 = mem.load_home %f {tile_bytes = 2800 : i64} : tensor<100x30xf32, #gnn.csr<nnz = 400>>
  %z = gnn.matmul %f0, %w : (tensor<100x30xf32, #gnn.csr<nnz = 400>>, tensor<30x16xf32>) -> tensor<100x16xf32>
  %whole = gnn.matmul %a2, %w : (tensor<100x30xf32, #gnn.csr<nnz = 400>>, tensor<30x16xf32>) -> tensor<100x16xf32>
  return %y, %dw, %z, %whole : tensor<100x16xf32>, tensor<30x16xf32>, tensor<100x16xf32>, tensor<100x16xf32>
}
)mlir");
  EXPECT_EQ(cost("t").seconds, 0);
  EXPECT_EQ(cost("f0").seconds, 0);
  // 2800 bytes are 100 slots: 4 tiles of the 400 stored values.
  const OpCost kernel = cost("whole");
  const double forward =
      tiledReadSeconds(100, 400, /*weightHeads=*/0, 100, profile);
  EXPECT_DOUBLE_EQ(forward, 4 * profile.secondsPerOp +
                                (20.0 * 100 + 8.0 * 400) /
                                    profile.hostLinkBytesPerSecond);
  EXPECT_DOUBLE_EQ(cost("y").seconds, kernel.seconds + forward);
  EXPECT_DOUBLE_EQ(cost("z").seconds, kernel.seconds + forward);
  EXPECT_DOUBLE_EQ(cost("y").bytes, kernel.bytes + 20.0 * 100 + 8.0 * 400);
  // A^T b: a piece per column of A.
  EXPECT_DOUBLE_EQ(tiledProductReads(op("dw"), 2800, profile).seconds,
                   tiledReadSeconds(30, 400, 0, 100, profile));
  EXPECT_EQ(tiledProductReads(op("dw"), 2800, profile).rate,
            CostRate::HostLink);
}

TEST(CostModel, TransferAndConvertFormulas) {
  MachineProfile p = testProfile();
  // Host: (1 - 0.25) of the copy at 2e9 B/s.
  EXPECT_DOUBLE_EQ(transferSeconds(1000000, TransferTier::Host, false, p),
                   1e-6 + 0.75 * 1e6 / 2e9);
  EXPECT_DOUBLE_EQ(transferSeconds(1000000, TransferTier::Host, true, p),
                   1e-6 + 0.75 * 1e6 / 2e9);
  // To disk: the staging copy, then half of the write hidden.
  EXPECT_DOUBLE_EQ(transferSeconds(1000000, TransferTier::Disk, false, p),
                   1e-6 + 1e6 / 2e9 + 0.5 * 1e6 / 1e8);
  // From disk: a synchronous read.
  EXPECT_DOUBLE_EQ(transferSeconds(1000000, TransferTier::Disk, true, p),
                   1e-6 + 1e6 / 2e8);
  EXPECT_EQ(transferSeconds(0, TransferTier::Disk, true, p), 0);
  // f32 <-> bf16: 4 + 2 bytes per element at the streaming rate.
  EXPECT_DOUBLE_EQ(convertSeconds(1000, p), 1e-6 + 6000 / 1e9);
  EXPECT_EQ(convertSeconds(0, p), 0);
  EXPECT_DOUBLE_EQ(kernelSeconds(3e9, 1e9, CostRate::Sparse, p), 1e-6 + 10);
  EXPECT_EQ(kernelSeconds(3e9, 1e9, CostRate::None, p), 0);
}

// A step within the cache: the rates price lines fetched from memory, so a
// session peak of at most half the cache saves its result bytes at the
// cold-write rate and its read bytes at the cold-read rate; between half
// and all of the cache a linear part of that; from the cache's size on, or
// for a profile that has no cache or no cold rates, nothing.
TEST(CostModel, StepsWithinTheCacheSaveTheirColdLines) {
  MachineProfile p = testProfile();
  p.cacheBytes = 32 << 20;
  p.coldWriteBytesPerSecond = 4e10;
  p.coldReadBytesPerSecond = 8e10;
  EXPECT_EQ(cachedArenaBytes(p), 16 << 20);
  EXPECT_EQ(cachedFraction(16 << 20, p), 1);
  EXPECT_DOUBLE_EQ(cachedFraction(24 << 20, p), 0.5);
  EXPECT_DOUBLE_EQ(cachedFraction(28 << 20, p), 0.25);
  EXPECT_EQ(cachedFraction(32 << 20, p), 0);
  EXPECT_EQ(cachedFraction(int64_t(1) << 40, p), 0);
  const double whole = 1e8 / 4e10 + 2e8 / 8e10;
  EXPECT_DOUBLE_EQ(cachedSavings(1e8, 2e8, 16 << 20, p), whole);
  EXPECT_DOUBLE_EQ(cachedSavings(1e8, 2e8, 24 << 20, p), whole / 2);
  EXPECT_EQ(cachedSavings(1e8, 2e8, 32 << 20, p), 0);
  MachineProfile noCache = p;
  noCache.cacheBytes = 0;
  EXPECT_EQ(cachedArenaBytes(noCache), 0);
  EXPECT_EQ(cachedFraction(1024, noCache), 0);
  EXPECT_EQ(cachedSavings(1e8, 2e8, 1024, noCache), 0);
  MachineProfile noRates = p;
  noRates.coldWriteBytesPerSecond = 0;
  noRates.coldReadBytesPerSecond = 0;
  EXPECT_EQ(cachedSavings(1e8, 2e8, 1024, noRates), 0);
  MachineProfile readsOnly = noRates;
  readsOnly.coldReadBytesPerSecond = 8e10;
  EXPECT_DOUBLE_EQ(cachedSavings(1e8, 2e8, 1024, readsOnly), 2e8 / 8e10);
}

// Host copies of a step within the cache: the solver priced them at the
// host link; the cached part of the step copies at the cached rate.
TEST(CostModel, CopiesWithinTheCacheRunAtTheCachedRate) {
  MachineProfile p = testProfile();
  p.cacheBytes = 32 << 20;
  p.hostLinkBytesPerSecond = 1e10;
  p.cachedHostLinkBytesPerSecond = 2e10;
  EXPECT_DOUBLE_EQ(cachedCopySeconds(1.0, 16 << 20, p), 0.5);
  EXPECT_DOUBLE_EQ(cachedCopySeconds(1.0, 24 << 20, p), 0.75);
  EXPECT_DOUBLE_EQ(cachedCopySeconds(1.0, 32 << 20, p), 1.0);
  // No faster cached rate: the solver's seconds stand.
  MachineProfile slower = p;
  slower.cachedHostLinkBytesPerSecond = 5e9;
  EXPECT_DOUBLE_EQ(cachedCopySeconds(1.0, 16 << 20, slower), 1.0);
}

/// Every op of every function of every shipped example, at the stage the
/// planner sees (decomposed, differentiated, sized): a finite,
/// non-negative estimate, and every kernel call at least secondsPerOp.
class ExampleCosts : public ::testing::TestWithParam<std::string> {};

TEST_P(ExampleCosts, EveryOpHasAFiniteEstimate) {
  if (!llvm::sys::fs::is_directory(GNNC_TEST_DATA_DIR))
    GTEST_SKIP() << "no shipped datasets at " GNNC_TEST_DATA_DIR;
  std::string path = std::string(GNNC_SOURCE_DIR) + "/examples/" + GetParam();
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::stringstream text;
  text << in.rdbuf();
  std::string diags;
  llvm::raw_string_ostream diagOS(diags);
  gnnc::DriverOptions options;
  options.inputFile = path;
  options.dataDirs = {GNNC_TEST_DATA_DIR};
  gnnc::Compilation compilation(options, diagOS);
  ASSERT_TRUE(
      compilation.runFrontendOn(gnnc::test::withoutLaterSettings(text.str())))
      << diags;
  OwningOpRef<ModuleOp> module = compilation.lowerTo(gnnc::Stage::Cpp);
  ASSERT_TRUE(module) << diags;
  const MachineProfile &profile = getDefaultProfile();
  double stepSeconds = 0;
  int64_t kernels = 0;
  module->walk([&](func::FuncOp func) {
    for (Operation &op : func.getBody().front()) {
      OpCost c = estimateOpCost(&op, profile);
      ASSERT_TRUE(std::isfinite(c.seconds) && c.seconds >= 0)
          << func.getSymName().str() << ": "
          << op.getName().getStringRef().str();
      ASSERT_TRUE(std::isfinite(c.flops) && c.flops >= 0);
      ASSERT_TRUE(std::isfinite(c.bytes) && c.bytes >= 0);
      // Every op with a tensor result but a constant calls a kernel, except
      // a home read in tiles (`tile_bytes`): its readers copy the tiles and
      // pay for them (CsrProductsInTilesPayTheirCopies); and a packed
      // mem.load_sign, whose gradients read the bits.
      bool tensorResult = llvm::any_of(
          op.getResultTypes(), [](Type t) { return isa<RankedTensorType>(t); });
      if (tensorResult && op.getName().getStringRef() != "arith.constant" &&
          !op.hasAttr("tile_bytes") && !op.hasAttr("packed")) {
        EXPECT_GE(c.seconds, profile.secondsPerOp)
            << op.getName().getStringRef().str();
        EXPECT_GT(c.bytes, 0) << op.getName().getStringRef().str();
        ++kernels;
      }
      if (func.getSymName().ends_with(".step"))
        stepSeconds += c.seconds;
    }
  });
  EXPECT_GT(kernels, 0);
  EXPECT_GT(stepSeconds, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Shipped, ExampleCosts,
    ::testing::ValuesIn(gnnc::test::shippedExamples(GNNC_SOURCE_DIR)),
    [](const ::testing::TestParamInfo<std::string> &info) {
      std::string name = info.param.substr(0, info.param.find('.'));
      for (char &c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)))
          c = '_';
      return name;
    });

//===----------------------------------------------------------------------===//
// Profiles
//===----------------------------------------------------------------------===//

std::string profileText(const MachineProfile &profile) {
  std::string text;
  llvm::raw_string_ostream os(text);
  writeProfile(profile, os);
  return text;
}

/// The message of a failed parse of \p json as "p.json", or "" on success.
std::string parseError(const std::string &json) {
  llvm::Expected<MachineProfile> parsed = parseProfile(json, "p.json");
  if (parsed)
    return "";
  return llvm::toString(parsed.takeError());
}

/// The test profile's text with \p key's value replaced by \p value (the
/// JSON text), or the field dropped when \p value is empty.
std::string withField(const std::string &key, const std::string &value) {
  std::string text = profileText(testProfile());
  std::string pattern = "\"" + key + "\": ";
  size_t at = text.find(pattern);
  EXPECT_NE(at, std::string::npos) << key;
  size_t end = text.find_first_of(",\n", at);
  // Dropping the last field would leave the comma before it.
  EXPECT_FALSE(value.empty() && text[end] == '\n') << key;
  if (value.empty())
    return text.erase(at, end + 1 - at);
  return text.replace(at + pattern.size(), end - at - pattern.size(), value);
}

TEST(Profile, DefaultLoads) {
  const MachineProfile &p = getDefaultProfile();
  EXPECT_EQ(p.name, "cpu-default");
  EXPECT_EQ(p.target, "cpu");
  EXPECT_GT(p.gemmFlopsPerSecond, p.memBytesPerSecond / 4)
      << "a CPU computes more FLOPs than it streams floats";
  EXPECT_GT(p.memBytesPerSecond, p.diskWriteBytesPerSecond);
  EXPECT_EQ(p.hostTransferOverlap, 0);
  llvm::Expected<MachineProfile> again =
      parseProfile(getDefaultProfileJson(), "cpu-default.json");
  ASSERT_TRUE(static_cast<bool>(again)) << llvm::toString(again.takeError());
  EXPECT_EQ(*again, p);
}

TEST(Profile, ShippedCudaProfileLoads) {
  const MachineProfile *p = getShippedProfile("cuda");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->name, "cuda-default");
  EXPECT_EQ(p->target, "cuda");
  // The GPU's memory has no cache in the model (its arena is device
  // memory, not a CPU's), and it streams faster than the CPU's.
  EXPECT_EQ(p->cacheBytes, 0);
  EXPECT_GT(p->memBytesPerSecond, getDefaultProfile().memBytesPerSecond);
  EXPECT_GT(p->sparseBytesPerSecond, getDefaultProfile().sparseBytesPerSecond);
  // The host link is slower than the device's memory by far: offloading
  // is priced as the expensive fate it is on a GPU.
  EXPECT_LT(p->hostLinkBytesPerSecond * 10, p->memBytesPerSecond);
  llvm::Expected<MachineProfile> again =
      parseProfile(getDefaultProfileJson("cuda"), "cuda-default.json");
  ASSERT_TRUE(static_cast<bool>(again)) << llvm::toString(again.takeError());
  EXPECT_EQ(*again, *p);
  // gnn-plan-memory's `profile` option names the shipped profiles.
  EXPECT_EQ(shippedProfileTarget("cuda-default"), "cuda");
  EXPECT_EQ(shippedProfileTarget("cpu-default"), "cpu");
  EXPECT_EQ(shippedProfileTarget("cuda-default.json"), "");
  EXPECT_EQ(getShippedProfile("rocm"), nullptr);
  EXPECT_EQ(getDefaultProfileJson("rocm"), "");
}

TEST(Profile, WriteThenParseIsTheIdentity) {
  MachineProfile p = testProfile();
  p.gemmFlopsPerSecond = 1.0 / 3.0 * 1e11; // not a short decimal
  p.diskTransferOverlap = 0.1 + 0.2;
  p.secondsPerOp = 0;
  p.threads = 16;
  p.comment = "a \"quoted\" comment";
  llvm::Expected<MachineProfile> back =
      parseProfile(profileText(p), "round-trip");
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(*back, p);
  MachineProfile other = p;
  other.secondsPerOp = 1e-9;
  EXPECT_NE(*back, other);
}

TEST(Profile, ValidationErrorsNameFileAndField) {
  EXPECT_EQ(parseError(profileText(testProfile())), "");
  EXPECT_EQ(parseError("{ \"version\": 1,"),
            "p.json: invalid JSON: [1:15, byte=15]: Expected object key");
  EXPECT_EQ(parseError("[1, 2]"),
            "p.json: a profile must be a JSON object, got [1,2]");
  EXPECT_EQ(parseError(withField("disk_read_bytes_per_second", "")),
            "p.json: missing field 'disk_read_bytes_per_second'");
  EXPECT_EQ(parseError(withField("name", "")), "p.json: missing field 'name'");
  EXPECT_EQ(parseError(withField("sparse_bytes_per_second", "-1")),
            "p.json: field 'sparse_bytes_per_second': must be a positive "
            "finite number, got -1");
  EXPECT_EQ(parseError(withField("gemm_flops_per_second", "0")),
            "p.json: field 'gemm_flops_per_second': must be a positive "
            "finite number, got 0");
  EXPECT_EQ(parseError(withField("mem_bytes_per_second", "\"fast\"")),
            "p.json: field 'mem_bytes_per_second': must be a positive "
            "finite number, got \"fast\"");
  EXPECT_EQ(parseError(withField("disk_transfer_overlap", "1.5")),
            "p.json: field 'disk_transfer_overlap': must be a number "
            "between 0 and 1, got 1.5");
  EXPECT_EQ(parseError(withField("seconds_per_op", "-1e-06")),
            "p.json: field 'seconds_per_op': must be a finite number >= 0, "
            "got -9.9999999999999995e-07");
  EXPECT_EQ(parseError(withField("version", "2")),
            "p.json: field 'version': this gnnc reads version 1, got 2");
  EXPECT_EQ(parseError(withField("target", "\"tpu\"")),
            "p.json: field 'target': must be \"cpu\" or \"cuda\", got \"tpu\"");
  EXPECT_EQ(parseError(withField("name", "\"\"")),
            "p.json: field 'name': must not be empty");
  EXPECT_EQ(parseError(withField("threads", "-2")),
            "p.json: field 'threads': must be an integer >= 0, got -2");
  std::string unknown = profileText(testProfile());
  unknown.insert(unknown.find('{') + 1, "\n  \"gemm_flops\": 5,");
  EXPECT_EQ(parseError(unknown),
            "p.json: unknown field 'gemm_flops' (a profile has: version, "
            "name, target, threads, comment, gemm_flops_per_second, "
            "mem_bytes_per_second, random_values_per_second, "
            "sparse_bytes_per_second, "
            "host_link_bytes_per_second, disk_write_bytes_per_second, "
            "disk_read_bytes_per_second, host_transfer_overlap, "
            "disk_transfer_overlap, seconds_per_op, cache_bytes, "
            "cold_write_bytes_per_second, cold_read_bytes_per_second, "
            "cached_host_link_bytes_per_second)");
}

/// A temporary directory removed at the end of the test, and an
/// environment variable set for the test's duration.
struct TempDir {
  TempDir() {
    llvm::SmallString<128> p;
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("gnnc-cost", p));
    path = std::string(p);
  }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string file(const std::string &name) const { return path + "/" + name; }
  std::string path;
};

struct ScopedEnv {
  ScopedEnv(const char *name, const std::string &value) : name(name) {
    if (const char *old = std::getenv(name))
      saved = old;
    if (value.empty())
      ::unsetenv(name);
    else
      ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (saved)
      ::setenv(name, saved->c_str(), 1);
    else
      ::unsetenv(name);
  }
  const char *name;
  std::optional<std::string> saved;
};

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream out(path);
  out << text;
}

// Profiles written before random_values_per_second keep their prices: a
// random value at ten GEMM FLOPs.
TEST(Profile, RandomRateIsOptional) {
  llvm::Expected<MachineProfile> old =
      parseProfile(withField("random_values_per_second", ""), "old.json");
  ASSERT_TRUE(static_cast<bool>(old)) << llvm::toString(old.takeError());
  EXPECT_EQ(old->randomValuesPerSecond, testProfile().gemmFlopsPerSecond / 10);
  EXPECT_EQ(parseError(withField("random_values_per_second", "0")),
            "p.json: field 'random_values_per_second': must be a positive "
            "finite number, got 0");
}

// The cache fields came later: a profile without them has no cache term
// (0), and present they must be finite and >= 0.
TEST(Profile, CacheFieldsAreOptional) {
  // They are the last four fields writeProfile writes.
  std::string text = profileText(testProfile());
  size_t from = text.find(",\n  \"cache_bytes\"");
  ASSERT_NE(from, std::string::npos) << text;
  text.erase(from, text.rfind("\n}") - from);
  EXPECT_EQ(text.find("cache"), std::string::npos) << text;
  llvm::Expected<MachineProfile> old = parseProfile(text, "old.json");
  ASSERT_TRUE(static_cast<bool>(old)) << llvm::toString(old.takeError());
  EXPECT_EQ(old->cacheBytes, 0);
  EXPECT_EQ(old->coldWriteBytesPerSecond, 0);
  EXPECT_EQ(old->coldReadBytesPerSecond, 0);
  EXPECT_EQ(old->cachedHostLinkBytesPerSecond, 0);
  EXPECT_EQ(parseError(withField("cache_bytes", "-1")),
            "p.json: field 'cache_bytes': must be a finite number >= 0, got "
            "-1");
  EXPECT_EQ(parseError(withField("cold_write_bytes_per_second", "\"x\"")),
            "p.json: field 'cold_write_bytes_per_second': must be a finite "
            "number >= 0, got \"x\"");
  EXPECT_EQ(parseError(withField("cold_read_bytes_per_second", "-2")),
            "p.json: field 'cold_read_bytes_per_second': must be a finite "
            "number >= 0, got -2");
  const MachineProfile &def = getDefaultProfile();
  EXPECT_GT(def.cacheBytes, 0);
  EXPECT_GT(def.cachedHostLinkBytesPerSecond, def.hostLinkBytesPerSecond);
}

TEST(Profile, ReadErrorsNameTheFile) {
  TempDir dir;
  llvm::Expected<MachineProfile> missing = readProfile(dir.file("none.json"));
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_EQ(llvm::toString(missing.takeError()),
            "cannot read the profile '" + dir.file("none.json") +
                "': No such file or directory");
  writeFile(dir.file("bad.json"),
            withField("host_link_bytes_per_second", "-5"));
  llvm::Expected<MachineProfile> bad = readProfile(dir.file("bad.json"));
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            dir.file("bad.json") + ": field 'host_link_bytes_per_second': "
                                   "must be a positive finite number, got -5");
}

TEST(Profile, ResolutionOrder) {
  TempDir dir;
  ScopedEnv xdg("XDG_CONFIG_HOME", dir.path);
  ScopedEnv env("GNNC_PROFILE", "");
  std::string source;

  // Nothing anywhere: the default.
  llvm::Expected<MachineProfile> p = resolveProfile("", "cpu", &source);
  ASSERT_TRUE(static_cast<bool>(p)) << llvm::toString(p.takeError());
  EXPECT_EQ(*p, getDefaultProfile());
  EXPECT_EQ(source, "cpu-default (built in)");

  // The calibrate output, where calibrate writes it.
  std::string calibrated = getCalibratedProfilePath("cpu");
  EXPECT_EQ(calibrated, dir.path + "/gnnc/profile-cpu.json");
  ASSERT_FALSE(llvm::sys::fs::create_directories(dir.path + "/gnnc"));
  MachineProfile measured = testProfile();
  measured.name = "calibrated";
  writeFile(calibrated, profileText(measured));
  p = resolveProfile("", "cpu", &source);
  ASSERT_TRUE(static_cast<bool>(p)) << llvm::toString(p.takeError());
  EXPECT_EQ(p->name, "calibrated");
  EXPECT_EQ(source, calibrated);

  // $GNNC_PROFILE before it.
  MachineProfile fromEnv = testProfile();
  fromEnv.name = "env";
  writeFile(dir.file("env.json"), profileText(fromEnv));
  {
    ScopedEnv named("GNNC_PROFILE", dir.file("env.json"));
    p = resolveProfile("", "cpu", &source);
    ASSERT_TRUE(static_cast<bool>(p)) << llvm::toString(p.takeError());
    EXPECT_EQ(p->name, "env");
    EXPECT_EQ(source, dir.file("env.json"));

    // An explicit path before everything.
    MachineProfile explicitOne = testProfile();
    explicitOne.name = "explicit";
    writeFile(dir.file("explicit.json"), profileText(explicitOne));
    p = resolveProfile(dir.file("explicit.json"), "cpu", &source);
    ASSERT_TRUE(static_cast<bool>(p)) << llvm::toString(p.takeError());
    EXPECT_EQ(p->name, "explicit");
  }

  // A named file that is broken is an error, not a fall-back.
  writeFile(calibrated, "{");
  p = resolveProfile("", "cpu", &source);
  ASSERT_FALSE(static_cast<bool>(p));
  EXPECT_NE(llvm::toString(p.takeError()).find(calibrated + ": invalid JSON"),
            std::string::npos);

  // A profile for another target is refused; cuda's default is its own
  // shipped profile, and a target with none fails.
  p = resolveProfile(dir.file("env.json"), "cuda", &source);
  ASSERT_FALSE(static_cast<bool>(p));
  EXPECT_EQ(llvm::toString(p.takeError()),
            dir.file("env.json") +
                ": the profile is for target 'cpu', not 'cuda'");
  p = resolveProfile("", "cuda", &source);
  ASSERT_TRUE(static_cast<bool>(p)) << llvm::toString(p.takeError());
  EXPECT_EQ(*p, *getShippedProfile("cuda"));
  EXPECT_EQ(source, "cuda-default (built in)");
  p = resolveProfile("", "rocm", &source);
  ASSERT_FALSE(static_cast<bool>(p));
  EXPECT_EQ(llvm::toString(p.takeError()),
            "no machine profile for target 'rocm': run 'gnnc calibrate' or "
            "name one with $GNNC_PROFILE");

  // Without XDG_CONFIG_HOME: ~/.config.
  ScopedEnv noXdg("XDG_CONFIG_HOME", "");
  ScopedEnv home("HOME", "/home/someone");
  EXPECT_EQ(getCalibratedProfilePath("cpu"),
            "/home/someone/.config/gnnc/profile-cpu.json");
}

//===----------------------------------------------------------------------===//
// Calibration (the runtime's measurements)
//===----------------------------------------------------------------------===//

gnnrt::CalibrationSizes tinySizes() {
  gnnrt::CalibrationSizes s;
  s.gemmM = 64;
  s.gemmN = 16;
  s.gemmK = 32;
  s.streamElements = 4096;
  s.spmmNodes = 256;
  s.spmmDegree = 4;
  s.spmmWidth = 8;
  s.copyBytes = 1 << 16;
  s.diskBytes = 1 << 16;
  s.diskChunkBytes = 1 << 14;
  s.coldWriteSliceBytes = 1 << 14;
  s.coldWriteRegionBytes = 1 << 18;
  s.minSeconds = 0;
  s.minRepetitions = 2;
  return s;
}

TEST(Calibrate, EveryRateIsPositiveAndFinite) {
  TempDir dir;
  gnnrt::CalibrationOptions options;
  options.sizes = tinySizes();
  options.spillDir = dir.path;
  std::vector<std::string> lines;
  options.progress = [&](const std::string &line) { lines.push_back(line); };
  gnnrt::CalibrationResult result;
  std::string error;
  ASSERT_TRUE(gnnrt::calibrate(options, result, error)) << error;
  for (double rate :
       {result.gemmFlopsPerSecond, result.memBytesPerSecond,
        result.randomValuesPerSecond, result.sparseBytesPerSecond,
        result.hostLinkBytesPerSecond, result.diskWriteBytesPerSecond,
        result.diskReadBytesPerSecond, result.secondsPerOp}) {
    EXPECT_TRUE(std::isfinite(rate));
    EXPECT_GT(rate, 0);
  }
  EXPECT_GE(result.diskTransferOverlap, 0);
  EXPECT_LE(result.diskTransferOverlap, 1);
  EXPECT_EQ(result.hostTransferOverlap, 0);
  // The cache may be unknown and cold writes and reads may cost nothing (0
  // each), but never less; the cached copies always run.
  for (double value : {result.cacheBytes, result.coldWriteBytesPerSecond,
                       result.coldReadBytesPerSecond}) {
    EXPECT_TRUE(std::isfinite(value));
    EXPECT_GE(value, 0);
  }
  EXPECT_TRUE(std::isfinite(result.cachedHostLinkBytesPerSecond));
  EXPECT_GT(result.cachedHostLinkBytesPerSecond, 0);
  EXPECT_GE(result.threads, 1);
  EXPECT_GE(lines.size(), 6u);
  // One row per rate; the spill file is gone.
  std::string table = gnnrt::formatCalibrationTable(result);
  for (const char *row :
       {"gemm", "stream", "dropout", "spmm", "host copy", "host overlap",
        "cold write", "cached copy", "cache", "cold read", "kernel call",
        "disk write", "disk read", "disk overlap"})
    EXPECT_NE(table.find(row), std::string::npos) << row << "\n" << table;
  std::error_code ec;
  llvm::sys::fs::directory_iterator it(dir.path, ec);
  EXPECT_EQ(it, llvm::sys::fs::directory_iterator()) << it->path();

  // The profile it makes is valid.
  MachineProfile profile =
      profileFromCalibration(result, "tiny-host", "unit test");
  llvm::Expected<MachineProfile> back =
      parseProfile(profileText(profile), "calibrated");
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(*back, profile);
  EXPECT_EQ(back->threads, result.threads);
}

TEST(Calibrate, MissingSpillDirectoryIsAClearError) {
  gnnrt::CalibrationOptions options;
  options.sizes = tinySizes();
  options.spillDir = "/nonexistent-gnnc-dir/spill";
  gnnrt::CalibrationResult result;
  std::string error;
  EXPECT_FALSE(gnnrt::calibrate(options, result, error));
  EXPECT_EQ(error, "cannot create a file in the spill directory "
                   "'/nonexistent-gnnc-dir/spill': No such file or directory");
}

TEST(Calibrate, FormatRate) {
  EXPECT_EQ(gnnrt::formatRate(1.234e9, "B/s"), "1.23 GB/s");
  EXPECT_EQ(gnnrt::formatRate(174e9, "FLOP/s"), "174 GFLOP/s");
  EXPECT_EQ(gnnrt::formatRate(2.1e-6, "s"), "2.10 us");
  EXPECT_EQ(gnnrt::formatRate(0.85, "fraction"), "0.85");
}

} // namespace

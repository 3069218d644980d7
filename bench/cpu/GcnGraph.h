//===- GcnGraph.h - A dataset's graph as gcn_conv sees it -------*- C++ -*-===//
//
// The CPU micro-benchmarks time kernels on a real graph with self loops and
// GCN's symmetric edge weights, loaded by the runtime's own loader (which
// checks every file) and CSR builder; one loader for all of them.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_BENCH_CPU_GCNGRAPH_H
#define GNNC_BENCH_CPU_GCNGRAPH_H

#include "gnnrt/Dataset.h"
#include "gnnrt/Graph.h"
#include "gnnrt/Kernels.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace gnnc::bench {

/// Prints `TOOL: error: MESSAGE` and exits with status 1.
[[noreturn]] inline void fail(const char *tool, const std::string &message) {
  std::fprintf(stderr, "%s: error: %s\n", tool, message.c_str());
  std::exit(1);
}

/// The dataset directory a micro-benchmark reads: its one argument, else
/// $GNNC_DATA_PATH/facebook, else ../shared/data/facebook. A second
/// argument or an option prints the usage and exits with status 2.
inline std::string datasetDir(int argc, char **argv, const char *tool) {
  if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
    std::fprintf(stderr, "usage: %s [DATASET_DIR]\n", tool);
    std::exit(2);
  }
  if (argc == 2)
    return argv[1];
  if (const char *path = std::getenv("GNNC_DATA_PATH"))
    return std::string(path) + "/facebook";
  return "../shared/data/facebook";
}

/// A + I with its symmetric normalisation weights, and the training mask
/// (1 at the training nodes). Owns the arrays the views point into; any
/// failure ends the program with \p tool's name.
struct GcnGraph {
  gnnrt::CompressedEdges in;
  std::vector<int32_t> loopStorage;
  gnnrt_graph looped{};
  std::vector<float> weights;
  std::vector<uint8_t> trainMask;

  GcnGraph(const std::string &dir, const char *tool) {
    gnnrt::Dataset data;
    gnnrt::DatasetError error;
    gnnrt::LoadOptions options;
    options.missingFeatures = gnnrt::MissingFeatures::Omit;
    if (!gnnrt::loadDataset(dir, options, data, error))
      fail(tool, error.str());
    std::string message;
    if (!gnnrt::buildInCsr(data.graph, in, message))
      fail(tool, message);
    gnnrt_graph raw{};
    raw.num_nodes = data.numNodes();
    raw.num_edges = data.numEdges();
    raw.in = {in.indptr.data(), in.indices.data(), in.edgeIds.data()};
    loopStorage.resize(static_cast<size_t>(
        gnnrt_cpu_add_self_loops_storage(raw.num_nodes, raw.num_edges)));
    if (gnnrt_cpu_add_self_loops(&raw, loopStorage.data(), &looped) != GNNRT_OK)
      fail(tool, "gnnrt_cpu_add_self_loops failed");
    weights.resize(static_cast<size_t>(looped.num_edges));
    if (gnnrt_cpu_edge_norm(&looped, GNNRT_NORM_SYMMETRIC, weights.data()) !=
        GNNRT_OK)
      fail(tool, "gnnrt_cpu_edge_norm failed");
    trainMask.assign(static_cast<size_t>(raw.num_nodes), 0);
    for (int32_t i : data.trainIdx)
      trainMask[static_cast<size_t>(i)] = 1;
  }
};

} // namespace gnnc::bench

#endif // GNNC_BENCH_CPU_GCNGRAPH_H

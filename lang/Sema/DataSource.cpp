//===- DataSource.cpp - Finding datasets at compile time ------------------===//
#include "lang/Sema/DataSource.h"

#include "gnnrt/DatasetMeta.h"
#include "lang/Basic/Diagnostics.h"
#include "lang/Basic/Suggest.h"
#include "lang/Sema/Sema.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace gnnc;
using namespace gnnc::sema;

#ifndef GNNC_DEFAULT_DATA_DIR
#define GNNC_DEFAULT_DATA_DIR ""
#endif

std::vector<std::string>
gnnc::defaultDataSearchPath(const std::vector<std::string> &extraDirs) {
  std::vector<std::string> path(extraDirs.begin(), extraDirs.end());
  if (const char *env = std::getenv("GNNC_DATA_PATH")) {
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(env).split(parts, ':', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef p : parts)
      path.push_back(p.str());
  }
  if (*GNNC_DEFAULT_DATA_DIR)
    path.push_back(GNNC_DEFAULT_DATA_DIR);
  return path;
}

/// Dataset names found in \p dirs, for "did you mean".
static std::vector<std::string>
knownDatasets(const std::vector<std::string> &dirs) {
  std::vector<std::string> names;
  for (const std::string &dir : dirs) {
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
         it.increment(ec)) {
      if (gnnrt::isDatasetDir(it->path()))
        names.push_back(llvm::sys::path::filename(it->path()).str());
    }
  }
  return names;
}

void gnnc::resolveDataset(DataSource &data, Location loc,
                          const SemaOptions &options, DiagnosticEngine &diags) {
  std::vector<std::string> candidates;
  bool isPath = data.name.find('/') != std::string::npos;
  if (isPath) {
    if (llvm::sys::path::is_absolute(data.name)) {
      candidates.push_back(data.name);
    } else {
      if (!options.sourceDir.empty()) {
        llvm::SmallString<256> p(options.sourceDir);
        llvm::sys::path::append(p, data.name);
        candidates.push_back(std::string(p));
      }
      candidates.push_back(data.name);
    }
  } else {
    for (const std::string &dir : options.dataSearchPath) {
      llvm::SmallString<256> p(dir);
      llvm::sys::path::append(p, data.name);
      candidates.push_back(std::string(p));
    }
  }

  for (const std::string &dir : candidates) {
    if (!llvm::sys::fs::is_directory(dir))
      continue;
    gnnrt::DatasetMeta meta;
    gnnrt::DatasetError err;
    if (!gnnrt::readDatasetMeta(dir, meta, err)) {
      diags.error(loc,
                  "dataset '" + data.name + "' is malformed: " + err.str());
      return;
    }
    data.dir = dir;
    data.nodes = meta.numNodes;
    data.edges = meta.numEdges;
    data.features = meta.numFeatures;
    data.classes = meta.numClasses;
    data.hasFeatures = meta.hasFeatures;
    data.featureNnz = meta.hasFeatures ? meta.featureNnz : -1;
    data.trainNodes = meta.numTrain;
    data.resolved = true;
    return;
  }

  std::string hint;
  if (!isPath) {
    std::vector<std::string> known = knownDatasets(options.dataSearchPath);
    std::vector<llvm::StringRef> refs(known.begin(), known.end());
    hint = didYouMean(data.name, refs);
  }
  diags.error(loc, "dataset '" + data.name + "' not found" + hint);
  if (candidates.empty()) {
    diags.note(loc, "no data directories to search: set $GNNC_DATA_PATH or "
                    "pass --data DIR");
    return;
  }
  diags.note(loc, "looked for " + llvm::join(candidates, ", ") +
                      (isPath ? ""
                              : "; set $GNNC_DATA_PATH or pass --data "
                                "DIR to search elsewhere"));
}

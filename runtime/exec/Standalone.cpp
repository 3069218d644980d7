//===- Standalone.cpp - main() of executables built by gnnc compile -------===//
//
// Option parsing by hand: the runtime has no dependency beyond the C++
// library, and the options are few. They mirror `gnnc run`'s.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Standalone.h"

#include "gnnrt/Session.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace gnnrt;

namespace {

void usage(const char *argv0, std::FILE *out) {
  std::fprintf(
      out,
      "usage: %s [options]\n"
      "Trains the model(s) compiled into this program (gnnc compile).\n\n"
      "  --data DIR           bind this dataset directory instead of the one\n"
      "                       the program was compiled for (same shapes)\n"
      "  --epochs N           override the program's epochs\n"
      "  --seed S             override the program's seed\n"
      "  --patience N         stop early once N validation passes in a row\n"
      "                       bring no better validation accuracy\n"
      "  --restore-best       end with the best validation pass's weights\n"
      "  --monitor accuracy|accuracy-or-loss\n"
      "                       what those two watch (default: accuracy)\n"
      "  --threads T          kernel threads (default: all cores)\n"
      "  --only MODEL         train only this model's train blocks\n"
      "  --quiet              no progress line\n"
      "  --save-weights FILE  write the trained parameters\n"
      "  --load-weights FILE  start from these parameters\n"
      "  --help               this text\n",
      argv0);
}

bool parseInt(const char *text, int64_t &out) {
  char *end = nullptr;
  long long v = std::strtoll(text, &end, 10);
  if (!*text || *end)
    return false;
  out = v;
  return true;
}

} // namespace

extern "C" int gnnrt_standalone_main(const gnnrt_model_desc *const *models,
                                     int64_t count, int argc, char **argv) {
  std::string dataDir, only, saveTo, loadFrom;
  int64_t epochs = -1, seed = -1, threads = 0, patience = 0;
  bool quiet = false, restoreBest = false;
  TrainOptions::Monitor monitor = TrainOptions::Monitor::Accuracy;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *&out) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s: error: %s needs a value\n", argv[0],
                     arg.c_str());
        return false;
      }
      out = argv[++i];
      return true;
    };
    const char *v = nullptr;
    if (arg == "--help" || arg == "-h") {
      usage(argv[0], stdout);
      return 0;
    }
    if (arg == "--quiet") {
      quiet = true;
    } else if (arg == "--restore-best") {
      restoreBest = true;
    } else if (arg == "--monitor") {
      if (!value(v))
        return 2;
      if (!parseMonitor(v, monitor)) {
        std::fprintf(stderr,
                     "%s: error: --monitor: '%s' is not accuracy or "
                     "accuracy-or-loss\n",
                     argv[0], v);
        return 2;
      }
    } else if (arg == "--data" || arg == "--only" || arg == "--save-weights" ||
               arg == "--load-weights") {
      if (!value(v))
        return 2;
      (arg == "--data"           ? dataDir
       : arg == "--only"         ? only
       : arg == "--save-weights" ? saveTo
                                 : loadFrom) = v;
    } else if (arg == "--epochs" || arg == "--seed" || arg == "--threads" ||
               arg == "--patience") {
      int64_t n = 0;
      if (!value(v))
        return 2;
      const bool zeroOk = arg == "--seed" || arg == "--patience";
      if (!parseInt(v, n) || n < (zeroOk ? 0 : 1)) {
        std::fprintf(stderr, "%s: error: %s: '%s' is not a valid value\n",
                     argv[0], arg.c_str(), v);
        return 2;
      }
      (arg == "--epochs"    ? epochs
       : arg == "--seed"    ? seed
       : arg == "--threads" ? threads
                            : patience) = n;
    } else {
      std::fprintf(stderr, "%s: error: unknown option '%s'\n", argv[0],
                   arg.c_str());
      usage(argv[0], stderr);
      return 2;
    }
  }

  int trained = 0;
  for (int64_t k = 0; k < count; ++k) {
    const gnnrt_model_desc &desc = *models[k];
    if (!only.empty() && only != desc.model)
      continue;
    ++trained;
    Dataset data;
    std::string note, error;
    if (!loadModelData(desc.data, dataDir, data, note, error)) {
      std::fprintf(stderr, "%s: error: %s\n", argv[0], error.c_str());
      return 1;
    }
    if (!note.empty())
      std::fprintf(stderr, "%s: note: %s\n", argv[0], note.c_str());
    SessionOptions sessionOptions;
    sessionOptions.threads = static_cast<int>(threads);
    std::unique_ptr<Session> session =
        Session::create(desc, data, sessionOptions, error);
    if (!session) {
      std::fprintf(stderr, "%s: error: %s\n", argv[0], error.c_str());
      return 1;
    }
    TrainOptions options;
    options.epochs = epochs;
    options.seed = seed;
    options.patience = patience;
    options.restoreBest = restoreBest;
    options.monitor = monitor;
    options.progress.enabled = !quiet;
    options.progress.interactive = Progress::stderrIsTerminal();
    TrainReport report;
    bool ok = true;
    if (!loadFrom.empty()) {
      ok = session->loadWeights(loadFrom, error);
      options.fresh = false;
    }
    if (!ok || !session->train(options, report, error)) {
      std::fprintf(stderr, "%s: error: %s\n", argv[0], error.c_str());
      return 1;
    }
    printReport(stdout, report);
    if (!saveTo.empty() && !session->saveWeights(saveTo, error)) {
      std::fprintf(stderr, "%s: error: %s\n", argv[0], error.c_str());
      return 1;
    }
  }
  if (trained == 0) {
    std::fprintf(stderr, "%s: error: no model named '%s' in this program\n",
                 argv[0], only.c_str());
    return 2;
  }
  return 0;
}

/*===- Standalone.h - main() of executables built by gnnc compile -*- C -*-===//
//
// `gnnc compile --target=cpu prog.gnn -o prog` links the generated code with
// the runtime and a main() that calls this: the same training run, options
// and report as `gnnc run`, without the compiler.
//
//===----------------------------------------------------------------------===*/
#ifndef GNNRT_STANDALONE_H
#define GNNRT_STANDALONE_H

#include "gnnrt/Model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parses argv (--data DIR, --epochs N, --seed S, --patience N,
   --restore-best, --monitor M, --threads T, --only MODEL, --quiet,
   --save-weights FILE,
   --load-weights FILE, --help), trains each of
   the \p count models in turn and prints their reports. Returns the process
   exit code: 0, 1 on a runtime error, 2 on bad usage. */
int gnnrt_standalone_main(const gnnrt_model_desc *const *models, int64_t count,
                          int argc, char **argv);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GNNRT_STANDALONE_H */

/*===- Model.h - What generated code tells the runtime about itself -*- C
-*-===//
//
// A compiled program (generated C++ loaded by the JIT, or linked into a
// standalone executable by `gnnc compile`) exports one table per `train`
// block: its functions (init, step, predict) with the role, dtype and shape
// of every argument and result, and the train block's settings. The runtime
// binds a dataset and runs the training loop from this table alone, so it
// needs nothing from the compiler.
//
// Why roles rather than positions: the step's signature is the autodiff
// pass's contract (docs/Dialects/Train.md) and grows with the optimizer; the
// runtime matches arguments to results by (role, param) instead of assuming
// an order, and checks every shape against the bound data.
//
// Entry point exported by generated code:
//   const gnnrt_model_desc *const *gnnc_models(int64_t *count);
//
//===----------------------------------------------------------------------===*/
#ifndef GNNRT_MODEL_H
#define GNNRT_MODEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a struct below changes; the runtime refuses a table of
   another version (a program compiled by another gnnc). */
#define GNNRT_MODEL_ABI_VERSION 7

typedef enum gnnrt_dtype {
  GNNRT_DTYPE_F32 = 0,    /* float */
  GNNRT_DTYPE_I32 = 1,    /* int32_t (labels) */
  GNNRT_DTYPE_BOOL = 2,   /* uint8_t per element (masks) */
  GNNRT_DTYPE_I64 = 3,    /* one int64_t scalar (seed, step) */
  GNNRT_DTYPE_GRAPH = 4,  /* a gnnrt_graph (Kernels.h) with both CSR views */
  GNNRT_DTYPE_CSR_F32 = 5 /* a gnnrt_csr_matrix buffer (Kernels.h) */
} gnnrt_dtype;

/* One argument or result. `role` is the `gnn.input` of an input ("graph",
   "features", "labels", "train_mask", "seed", "step") or the `train.role`
   of a state value ("param", "adam.m", "adam.v", "sgd.momentum", "grad"),
   "loss" for the step's first result and "logits" for predict's. `param`
   names the parameter a state value belongs to ("gcn_conv_0.weight"), else
   "". For graphs, shape is {num_nodes, num_edges}; for CSR matrices (input
   features stored sparse, ABI version 2), {rows, cols, nnz}. `flags`
   (ABI version 6) are gnnrt_value_flags bits. */
typedef struct gnnrt_value_desc {
  const char *role;
  const char *param;
  int32_t dtype;
  int32_t rank;
  const int64_t *shape;
  uint32_t flags;
  int64_t arena_offset; /* GNNRT_VALUE_IN_ARENA: the result's byte offset in
                           the function's arena (ABI version 7) */
} gnnrt_value_desc;

/* What the memory plan decided about where a value lives between calls. */
typedef enum gnnrt_value_flags {
  /* An argument the function never reads. When no function but prepare
     reads the graph (and no prepare result is GNNRT_VALUE_VIEWS_GRAPH), the
     session frees it once prepare has run. */
  GNNRT_VALUE_UNUSED = 1,
  /* The value's home is host memory, not the device (gnn-plan-memory's
     `host` fate for a parameter, an optimizer state, the features, the
     labels or a mask): the
     caller passes a buffer of the host tier (gnnrt_offload_alloc_home) and
     the function copies it in (gnnrt_home_load) or out (gnnrt_home_store)
     where its plan says. Every function taking or returning the same
     (role, param) carries the same bit. */
  GNNRT_VALUE_HOME_HOST = 2,
  /* A graph result whose arrays are an argument's: the argument itself or a
     view of it (prepare returning the bound graph's transpose). Such a
     result keeps the bound graph alive, so the session does not free it
     after prepare even when every other graph argument is UNUSED. */
  GNNRT_VALUE_VIEWS_GRAPH = 4,
  /* A result the function leaves in its own arena, at arena_offset, instead
     of writing results[k] (which it ignores): @M.predict's logits. The
     caller reads it right after the call, before the arena is written
     again (ABI version 7). */
  GNNRT_VALUE_IN_ARENA = 8
} gnnrt_value_flags;

struct gnnrt_offload;

/* The ABI of every generated function (EmitCpp.h): args[i] and results[k]
   point at the values, arena at arena_bytes bytes aligned to 64, tiers at
   the host and disk tiers (gnnrt/Offload.h) of a function whose memory plan
   offloads (num_offload_handles > 0; NULL is fine otherwise; ABI version
   4). Returns a gnnrt_status; GNNRT_ERR_HOST_FULL and up come from the
   tiers, whose gnnrt_offload_last_error says more. */
typedef int (*gnnrt_entry_fn)(void *const *args, void *const *results,
                              char *arena, struct gnnrt_offload *tiers);

typedef struct gnnrt_function_desc {
  const char *name; /* "GCN.step" */
  gnnrt_entry_fn entry;
  int64_t arena_bytes;
  int32_t num_args;
  const gnnrt_value_desc *args;
  int32_t num_results;
  const gnnrt_value_desc *results;
  /* Offload handles the function's memory plan uses (mem.handle 0..n-1). */
  int64_t num_offload_handles;
} gnnrt_function_desc;

/* What gnn-plan-memory decided for the step (#mem.plan), for the report
   to print next to what the run measured, and the tiers it may use. */
typedef struct gnnrt_plan_desc {
  const char *policy;  /* "auto", "keep_all", ...; "" without a plan */
  int64_t budget;      /* device bytes the plan was made for, 0: none */
  int64_t peak_device; /* predicted session device peak (the arena's) */
  int64_t peak_host, peak_disk;
  double predicted_seconds, keep_all_seconds; /* per step, cost model */
  int64_t host_memory;   /* the `host_memory` setting, -1 when unset */
  const char *spill_dir; /* `disk = spill(dir, size)`, "" when unset */
  int64_t spill_bytes;
} gnnrt_plan_desc;

/* The metrics setting, one bit each. */
typedef enum gnnrt_metric_bits {
  GNNRT_METRIC_ACCURACY = 1,
  GNNRT_METRIC_PRECISION = 2,
  GNNRT_METRIC_RECALL = 4,
  GNNRT_METRIC_F1 = 8,
  GNNRT_METRIC_AUC_ROC = 16,
  GNNRT_METRIC_AUC_PR = 32
} gnnrt_metric_bits;

/* The data a train block names: a dataset directory (resolved when the
   program was compiled; `gnnc run --data` or the host may bind another with
   the same shapes) or the synthetic(...) generator's arguments. */
typedef struct gnnrt_data_desc {
  int32_t synthetic; /* 0: dataset, 1: synthetic */
  const char *name;  /* as written: "cora", a path, or "synthetic" */
  const char *dir;   /* resolved directory, "" for synthetic */
  int64_t nodes, features, classes, seed;
  double avg_degree;
  /* 1: divide each feature row by its sum after loading, whatever data is
     bound (`normalize_features = true`); 0: the features as stored. */
  int32_t normalize_features;
} gnnrt_data_desc;

typedef struct gnnrt_model_desc {
  int32_t abi_version; /* GNNRT_MODEL_ABI_VERSION */
  const char *model;   /* "GCN" */
  const char *source;  /* the .gnn file it was compiled from */
  gnnrt_data_desc data;
  int64_t epochs, seed, eval_every;
  int64_t memory;       /* the `memory` budget in bytes; -1 when unset */
  uint32_t metrics;     /* gnnrt_metric_bits */
  const char *settings; /* every setting, "name = value" lines, for
                           reports */
  const gnnrt_function_desc *init;    /* (seed) -> state */
  const gnnrt_function_desc *step;    /* (inputs, state) -> (loss, state) */
  const gnnrt_function_desc *predict; /* (graph, features, params) ->
                                         logits */
  /* (graph) -> prepared values, or NULL: the graph-derived values of
     gnn-hoist-graph-prep (the graph with self loops, edge weights, ...),
     computed once per bound graph (ABI version 3). Results with dtype
     GRAPH are written as gnnrt_graph structs whose arrays point into the
     arena of this call, which the caller keeps as long as it uses them.
     The other functions take result k as an argument with role "prepared"
     and param "k". */
  const gnnrt_function_desc *prepare;
  gnnrt_plan_desc plan; /* ABI version 4 */
  /* Where the functions run (ABI version 5): GNNRT_TARGET_CPU, their
     pointers host memory; or GNNRT_TARGET_CUDA, every tensor and graph
     array a device pointer and the functions using gnnrt_cuda_current()
     (gnnrt/Cuda.h). */
  int32_t target;
} gnnrt_model_desc;

typedef enum gnnrt_target {
  GNNRT_TARGET_CPU = 0,
  GNNRT_TARGET_CUDA = 1
} gnnrt_target;

typedef const gnnrt_model_desc *const *(*gnnrt_models_fn)(int64_t *count);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GNNRT_MODEL_H */

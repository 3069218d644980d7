//===- MemBase.td - mem dialect, types and attributes ------*- tablegen -*-===//
//
// Explicit memory decisions of a planned training step: where a tensor's
// bytes live between their definition and their last use (device, host,
// disk), whether they are re-derived instead of kept, and at which
// precision they are stored. gnn-plan-memory writes this dialect; the
// emitters only print it.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_MEM_BASE
#define GNNC_MEM_BASE

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"

def Mem_Dialect : Dialect {
  let name = "mem";
  let cppNamespace = "::mlir::mem";
  let summary = "Explicit memory decisions: offload, prefetch, recompute, "
                "storage precision, free";
  let description = [{
    The `mem` dialect makes every memory decision of a planned training step
    an op, so that the decisions can be printed, checked and emitted without
    re-deriving them. A tensor that must survive from the forward to the
    backward pass gets one fate:

    * keep: nothing is inserted; the tensor stays in the device arena;
    * offload: `mem.offload` copies it to pinned host memory or to a disk
      spill file on a copy stream, and `mem.prefetch` brings it back before
      its first later use;
    * recompute: `mem.recompute` re-derives it from explicitly listed kept
      inputs right before it is needed (bit-exact, because dropout masks are
      functions of their counter-based key);
    * lower-precision storage: `mem.store_as` narrows it (e.g. f32 to bf16)
      and `mem.load_as` widens it back;

    and `mem.free` marks where a device buffer is released. The plan as a
    whole (budget, predicted peaks per tier, predicted and keep-all time,
    policy) is the `mem.plan` attribute of the step function.

    Every op except `mem.yield` has a memory effect on the plan's own
    resource (`mem::PlanResource`), so generic passes (canonicalize, CSE)
    neither erase, merge nor reorder the decisions: the planner's peak
    prediction is only valid for the order it planned.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  // `mem.home` on function arguments and results.
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  // `mem.plan` on a function; the generated PlanAttrHelper names it once.
  let discardableAttrs = (ins "::mlir::mem::PlanAttr":$plan);
}

//===----------------------------------------------------------------------===//
// Tiers
//===----------------------------------------------------------------------===//

def Mem_Tier : I32EnumAttr<"Tier", "a storage tier", [
    I32EnumAttrCase<"device", 0>, I32EnumAttrCase<"host", 1>,
    I32EnumAttrCase<"disk", 2>]> {
  let cppNamespace = "::mlir::mem";
  let genSpecializedAttr = 0;
}

def Mem_TierAttr : EnumAttr<Mem_Dialect, Mem_Tier, "tier"> {
  let summary = "a storage tier: device, host or disk";
  let description = [{
    Where a tensor's bytes live. `device` is the budgeted device arena (the
    default home of every tensor, named so that reports and the plan can
    speak about all three tiers); `host` is pinned host memory; `disk` is a
    spill file. Offloading targets `host` or `disk` only.

    Example: `#mem.tier<host>`
  }];
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

class Mem_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Mem_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Mem_OffloadedType : Mem_Type<"Offloaded", "offloaded"> {
  let summary = "a tensor whose bytes live off the device";
  let description = [{
    The handle `mem.offload` returns: the bytes of a tensor of type
    `tensorType` held in tier `tier` (`host` or `disk`, never `device`).
    Nothing computes on it; `mem.prefetch` turns it back into a tensor on the
    device. Keeping the tensor type in the handle lets the planner and the
    emitter size the transfer without looking back at the offload.

    Example: `!mem.offloaded<host, tensor<2708x16xf32>>`
  }];
  let parameters = (ins EnumParameter<Mem_Tier>:$tier,
      TypeParameter<"::mlir::RankedTensorType",
                    "the tensor whose bytes are held">:$tensorType);
  let assemblyFormat = "`<` $tier `,` $tensorType `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// The plan attribute
//===----------------------------------------------------------------------===//

class Mem_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Mem_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// A time in seconds. Held as an IEEE double APFloat (rather than a C++
// double) because attribute storage is uniqued by hash and llvm::hash_value
// has no double overload; printed and parsed as a bare float literal.
class Mem_SecondsParameter<string desc> : APFloatParameter<desc> {
  let parser = [{[&]() -> ::mlir::FailureOr<::llvm::APFloat> {
    ::llvm::APFloat value(0.0);
    if (::mlir::failed($_parser.parseFloat(::llvm::APFloat::IEEEdouble(),
                                           value)))
      return ::mlir::failure();
    return value;
  }()}];
  let printer = "$_printer.printFloat($_self)";
}

def Mem_PlanAttr : Mem_Attr<"Plan", "plan"> {
  let summary = "the memory plan a step function was rewritten for";
  let description = [{
    Attached by gnn-plan-memory to the step function as the discardable
    attribute `mem.plan`; reports, `gnnc plan` and the runtime's
    measured-vs-planned line read it from there.

    * `budget`: the device-memory budget in bytes the plan was made for;
    * `peak_device`, `peak_host`, `peak_disk`: the predicted high-water mark
      of each tier in bytes (the device peak is the arena size after
      gnn-assign-buffers);
    * `predicted_seconds`: the cost model's time for one step under this
      plan; `keep_all_seconds`: the same model's time with every tensor kept,
      so the overhead of the plan reads off the attribute;
    * `policy`: how the fates were chosen (`auto`, or a forced simple policy
      such as `keep_all`, `recompute_all`, `offload_all`).

    The attribute checks only that it is self-consistent (sizes and times are
    non-negative and finite, the policy is named); whether the plan fits its
    budget is a contract of the layer and is checked by a verifier pass.

    Example:
    ```mlir
    func.func @step(...) attributes {mem.plan = #mem.plan<budget = 268435456,
        peak_device = 201326592, peak_host = 67108864, peak_disk = 0,
        predicted_seconds = 1.5e-3, keep_all_seconds = 1.2e-3, policy = "auto">}
    ```
  }];
  let parameters = (ins
      AttrParameter<"int64_t", "device-memory budget in bytes">:$budget,
      AttrParameter<"int64_t", "predicted device peak in bytes">:$peak_device,
      AttrParameter<"int64_t", "predicted host peak in bytes">:$peak_host,
      AttrParameter<"int64_t", "predicted disk peak in bytes">:$peak_disk,
      Mem_SecondsParameter<"predicted step time in seconds">:$predicted_seconds,
      Mem_SecondsParameter<"keep-all step time in seconds">:$keep_all_seconds,
      StringRefParameter<"the policy that chose the fates">:$policy);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "int64_t":$budget, "int64_t":$peakDevice,
                     "int64_t":$peakHost, "int64_t":$peakDisk,
                     "double":$predictedSeconds, "double":$keepAllSeconds,
                     "::llvm::StringRef":$policy), [{
      return $_get($_ctxt, budget, peakDevice, peakHost, peakDisk,
                   ::llvm::APFloat(predictedSeconds),
                   ::llvm::APFloat(keepAllSeconds), policy);
    }]>
  ];
  let extraClassDeclaration = [{
    double getPredictedSecondsAsDouble() const {
      return getPredictedSeconds().convertToDouble();
    }
    double getKeepAllSecondsAsDouble() const {
      return getKeepAllSeconds().convertToDouble();
    }
  }];
}

#endif // GNNC_MEM_BASE

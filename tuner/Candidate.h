// Candidate: one point of a Space lowered for the target — the lowered function to measure and
// its features (Features.h, from the IR after the common function passes) — or the reason it
// cannot be lowered. A configuration the schedule rejects (a UserError: a split factor larger
// than its loop, a vectorized loop that is not innermost, ...) is invalid at this cost, without a
// measurement.
#pragma once
#include "backends/vdla/VdlaConfig.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/Function.h"
#include "ir/Op.h"
#include "ir/TargetProperties.h"
#include "lower/schedule/TensorizeFallback.h"
#include "tuner/Features.h"
#include "tuner/Space.h"

namespace texc {

struct Candidate {
  uint64_t index = 0;
  KnobConfig config;
  bool valid = false;
  std::string invalid_reason;  // the diagnostic's message when !valid
  LoweredFunc func;            // the final lowered function (valid only)
  std::vector<float> features; // kFeatureLength numbers (valid only)
};

struct LowerSettings {
  std::string target;
  std::string arch;            // cuda, cuda-interp: the --arch candidates are checked against (empty: sm_80)
  bool no_fuse = false;
  KnobConfig fixed;            // --knob values: always applied
  CacheSizes caches;
  vdla::VdlaConfig vdla_config;  // vdla: a candidate whose program does not fit it is invalid
  /// x86, arm: the CPU's features; a candidate that tensorizes with an instruction the CPU lacks
  /// is invalid (lower/schedule/TensorizeFallback.h: the configuration sets every knob).
  CpuFeatureQuery cpu_features;
  std::optional<TargetProperties> target_properties;  // target.vector_bits etc. (lower/Lower.h)
  std::vector<IntrinsicDef> builtin_intrinsics;  // the target's, for its configuration (lower/Lower.h)
  /// --allow-tf32: a candidate whose kernel multiplies in TF32 (lower/gpu/MmaIntrinsics.h
  /// input_unit_roundoff) is explored; without it such a candidate is invalid, so that tuning never
  /// trades an f32 op's accuracy for speed unasked (cuBLAS and PyTorch leave TF32 off by default).
  bool allow_tf32 = false;
};

/// Lowers configuration `index` of `space` for the op. Never throws for a user error. For vdla it
/// also generates the program (unless `features_only`), so a tile that does not fit a buffer is
/// invalid, not measured. The explorer's predictions ask for features only: generating a VDLA
/// program for every point the annealing visits cost seconds each, for a check the batch repeats.
Candidate lower_candidate(const OpDef& op, const Space& space, uint64_t index, const LowerSettings& settings,
                          bool features_only = false);

}  // namespace texc

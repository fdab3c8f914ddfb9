// choose_schedule_blocks: the schedule blocks lower_op applies, and the knob configuration of each,
// on a CPU that may lack the instruction of a tensorize (docs/language.md "Tensorize").
//
// A `lower llvm` intrinsic states the CPU features its instruction needs
// (`lower llvm "llvm.x86.avx512.vpdpbusd.512" requires "avx512vnni"`). On x86 and arm the driver
// tells the lowering which of them the target CPU lacks (CpuFeatureQuery; the LLVM backend answers
// from the resolved target machine). A selected block (select_schedule_blocks) whose instantiated
// steps tensorize with such an intrinsic of this target is replaced, in this order, by
//   1. the same block with one knob the configuration does not set given another of its values,
//      the first (in declaration order, then value order) whose steps tensorize with nothing
//      missing (`knob D8X_VNNI in [true, false]`: false);
//   2. for a block carried from an imported op that the configuration sets no knob of: the op's
//      portable blocks, those of the target's family (`schedule cpu`) of the same origin, or none
//      (the op's default loops) when it has none;
// each with a remark at the tensorize that says what the CPU lacks and what runs instead. Else the
// user chose the instruction (their own op's schedule, or a knob they set: --knob, records, the
// tuner's configuration) and it is an error at the tensorize naming the missing features.
// Without a CpuFeatureQuery (interp, cuda, vdla, tests) every block is kept as selected, and an
// intrinsic without `requires` is assumed available (LLVM reports it if it is not).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ir/Op.h"
#include "ir/Remark.h"
#include "ir/Schedule.h"

namespace texc {

/// What the target CPU has, for the lowering: a description for messages ("x86 --mcpu x86-64-v3",
/// "x86 (host CPU znver3)") and the features among a list (LLVM names) that it lacks.
struct CpuFeatureQuery {
  std::string description;
  std::function<std::vector<std::string>(const std::vector<std::string>& features)> missing;
};

/// One block to apply and the knob configuration to instantiate it with.
struct ChosenBlock {
  const ScheduleBlock* block;
  KnobConfig knobs;
};

/// The blocks for `target` (select_schedule_blocks), each with `knobs` or the fallback described
/// above; remarks for the fallbacks are appended to `remarks`. Throws UserError
/// (TensorizeMissingCpuFeature) where the user chose an instruction the CPU lacks.
std::vector<ChosenBlock> choose_schedule_blocks(const OpDef& op, const std::string& target, const KnobConfig& knobs,
                                                const CpuFeatureQuery* cpu, std::vector<Remark>& remarks);

}  // namespace texc

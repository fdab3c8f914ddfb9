// ScheduleGenerator: random legal schedules for an op, as ir::SchedPrimitive lists and as .tex text.
//
// The generator keeps its own lower/schedule ScheduleState and builds each schedule one primitive
// at a time: it reads the current loop AST, picks a primitive whose legality it can establish from
// what it sees (split with any positive factor, including non-dividing ones and ones larger than
// the extent, or nparts; tile of two perfectly nested loops; reorder of a chain of perfectly nested
// loops; fuse of a loop with the only loop in its body; compute_at of an intermediate stage that
// is still computed by its own unscheduled nest into a loop enclosing every reader; inline of an
// elementwise intermediate; cache_read of a tensor for one of its readers and cache_write of a
// stage still at its unscheduled top-level nest, both in local memory; vectorize and unroll of
// constant-extent loops (vectorize: innermost spatial loops); parallel of a spatial loop with no
// parallel loop around or inside it; rfactor of a reduction stage whose reduction loops are
// innermost, serial and perfectly nested, mostly over a loop of a fresh split of one of them, and
// then often a reorder that moves the factored loop of the new stage innermost), and applies it
// to its state. A primitive the state rejects
// with a UserError is a legality the generator failed to model: it is counted (rejections) and
// dropped, and the schedule goes on from the previous state.
//
// Automatic fusion: with `no_fuse` the schedule is lowered with --no-fuse. Otherwise the generator
// first chooses the stages its schedule will name (ScheduleState::user_named), lets
// inline_injective_stages inline the others as lower_op will, touches only the named stages, and
// names each of them at least once (a trailing compute_root, which changes nothing for a stage
// at the top level, for a chosen stage the primitives did not mention).
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ir/Op.h"
#include "ir/Schedule.h"

namespace texc {

struct GeneratedSchedule {
  std::vector<SchedPrimitive> primitives;
  bool no_fuse = true;
  int attempted = 0;                    // primitives tried on the state
  std::vector<std::string> rejections;  // the state's messages for the primitives it rejected
  std::string target = "cpu";           // the schedule block's target: "cpu", or "cuda" (GpuScheduleGenerator.h)

  /// `schedule cpu { ... }` (or cuda), one primitive per line, indented by `indent`.
  std::string text(const std::string& indent = "  ") const;
  /// The schedule as a block lower_op applies (target "cpu" or "cuda").
  ScheduleBlock block() const;
};

struct GeneratorOptions {
  int max_primitives = 10;   // structural primitives per schedule (1..max), annotations come on top
  double no_fuse_probability = 0.5;
};

GeneratedSchedule generate_schedule(const OpDef& op, std::mt19937_64& rng, const GeneratorOptions& options = {});

/// The source of an op file with `schedule_text` inserted before the op's closing brace (the last
/// '}' of the file), so that a failing case can be written out and compiled as it is.
std::string insert_schedule(const std::string& op_source, const std::string& schedule_text);

}  // namespace texc

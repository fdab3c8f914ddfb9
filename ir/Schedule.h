// The schedule language, as data: blocks of primitive applications, knobs and ifs, kept exactly as
// written (with source locations) so the tuner can enumerate knob spaces and lower/ can apply
// the primitives in order. Nothing here knows loops; lower/schedule/ gives the primitives meaning.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ir/IR.h"
#include "ir/SourceLoc.h"

namespace texc {

/// One argument of a primitive application.
///   split(C.i, 32)            -> {Name "C.i"}, {Value 32}
///   split(C.j, nparts = P)    -> {Name "C.j"}, {keyword "nparts", Value P}
///   cache_read(A, shared, C)  -> {Name "A"}, {Name "shared"}, {Name "C"}
///   bind(io, blockIdx.x)      -> {Name "io"}, {Name "blockIdx.x"}
/// An integer argument is an Expr over knob variables (params are already substituted).
struct SchedArg {
  std::string keyword;           // "" for positional
  std::string name;              // a dotted name, when the argument is a name
  Expr value;                    // an integer/bool expression, when the argument is a value
  SourceLoc loc;
  bool is_name() const { return !name.empty(); }
};

struct SchedPrimitive {
  std::vector<std::string> results;  // names bound on the left: `io, ii = split(...)`
  std::vector<SourceLoc> result_locs;
  std::string primitive;             // "split", "tile", ...
  std::vector<SchedArg> args;
  SourceLoc loc;                     // of the primitive's name
  /// When this application came from an imported op's schedule: the stage renaming applied to it
  /// (callee stage name -> caller stage name).
  std::map<std::string, std::string> stage_renames;
};

/// knob NAME in [v1, v2, ...] (ints or bools; factors(N) is expanded by the front end).
struct SchedKnob {
  std::string name;
  Var var;                           // the variable that stands for the knob in SchedArg values
  std::vector<int64_t> values;
  bool is_bool = false;
  SourceLoc loc;
};

struct SchedIf;
using SchedItem = std::variant<SchedPrimitive, SchedKnob, std::shared_ptr<SchedIf>>;

/// if COND { ... } else { ... }; COND is a bool Expr over knob variables.
struct SchedIf {
  Expr cond;
  std::vector<SchedItem> then_items;
  std::vector<SchedItem> else_items;
  SourceLoc loc;
};

struct ScheduleBlock {
  std::string target;                // "cpu", "x86", "arm", "cuda", "vdla"
  std::vector<SchedItem> items;
  SourceLoc loc;
  /// "" for the op's own blocks; for blocks carried from an imported op's definition, the name
  /// the caller gave the call's result (blocks are chosen per origin: the most specific win).
  std::string origin;
  /// For a carried block: the caller's names of the stages the call made (all of them, with those
  /// of deeper calls), so that lowering can tell an imported injective op (AutoFuse.h).
  std::vector<std::string> call_stages;
};

/// A choice of value for every knob, by name. Missing knobs take their first value.
using KnobConfig = std::map<std::string, int64_t>;

/// A primitive with its integer arguments evaluated under a knob configuration.
struct SchedStep {
  SchedPrimitive prim;
  std::vector<std::optional<int64_t>> int_args;  // per arg: the value if it is a value argument
};

/// Does a block written for `block_target` apply when compiling for `target`?
/// ("cpu" applies to x86, arm and interp; a block naming the target exactly is more specific.)
bool schedule_applies(const std::string& block_target, const std::string& target);
/// Specificity of a block for a target: 2 for an exact match, 1 for "cpu" on a CPU target, 0 if
/// it does not apply. The most specific blocks win.
int schedule_specificity(const std::string& block_target, const std::string& target);

/// The blocks that apply to `target`: for each origin, the blocks of the highest specificity. On a
/// GPU target (one kernel per op), the blocks carried from calls are dropped when they come from
/// two or more calls: their stages run with the op's own blocks, or the default GPU schedule.
std::vector<const ScheduleBlock*> select_schedule_blocks(const std::vector<ScheduleBlock>& blocks,
                                                         const std::string& target);

/// Every knob declared in the blocks (in order of declaration, each once).
std::vector<SchedKnob> collect_knobs(const std::vector<const ScheduleBlock*>& blocks);

/// Flattens blocks under a configuration: evaluates ifs and integer arguments.
std::vector<SchedStep> instantiate_schedule(const std::vector<const ScheduleBlock*>& blocks,
                                            const KnobConfig& config);

}  // namespace texc

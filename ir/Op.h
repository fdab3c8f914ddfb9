// The tensor-expression level: an op is a DAG of stages, each defining one tensor in index
// notation. This is what the front end produces (after imports, calls and params are resolved)
// and what the reference interpreter evaluates directly. lower/ turns it into a loop AST.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/Function.h"
#include "ir/IR.h"
#include "ir/Schedule.h"

namespace texc {

/// One tensor definition: buffer[axes...] = body. `body` may contain Reduce nodes; the common
/// case is a Reduce at the top. Every Load in body reads an op input or an earlier stage.
struct Stage {
  std::string name;              // the tensor's name, which is also the stage's name
  Buffer buffer;                 // shape = extents of axes
  std::vector<IterVar> axes;     // spatial index variables, one per dimension, min 0
  Expr body;                     // scalar of buffer->dtype
  SourceLoc loc;
  /// The call that created this stage when it came from an imported op ("" for the op's own).
  std::string origin_call;
  /// The result name of the op's own call that created this stage ("" for the op's own stages): the
  /// stages of one call share it, whatever op was called (lower/graph/PartitionGraph.h).
  std::string call_site;
};

/// A declared tensor intrinsic (language.md "intrinsics"): its compute pattern and its lowering.
struct IntrinsicDef {
  std::string name;
  std::vector<Buffer> inputs;
  std::vector<Buffer> outputs;
  std::vector<Stage> stages;     // the pattern (usually one stage)
  std::string lower_kind;        // "extern" (a C symbol) or a backend intrinsic name
  std::string symbol;            // the C symbol for "extern", the LLVM intrinsic for "llvm"
  /// "llvm": the CPU features its instruction needs (LLVM names, `requires "avx512vnni"`); a
  /// target without one of them does not tensorize with it (lower/schedule/CpuFeatureFallback.h).
  std::vector<std::string> requires_features;
  SourceLoc requires_loc;        // of the `requires` string
  SourceLoc loc;
};

/// A fully elaborated op, ready to lower: every dimension is a constant.
struct OpDef {
  std::string name;
  std::vector<Buffer> inputs;    // role Input, in parameter order
  std::vector<Buffer> outputs;   // role Output, in `->` order
  std::vector<Stage> stages;     // every non-input tensor, in a topological order (outputs included)
  std::vector<ScheduleBlock> schedules;          // every block, for every target, in source order
  std::map<std::string, IntrinsicDef> intrinsics;  // intrinsics visible to this op's schedules
  SourceLoc loc;
  /// The inputs declared `const` (the same values on every call): the stages computed from them
  /// alone run once, in the op's prepare function (lower/SplitPrepare.h). Entry ops only.
  std::set<std::string> const_inputs;
  /// When this op is one half of an op split by split_prepare: the stages of the whole op that the
  /// other half computes. The schedule's steps that name them are not applied here.
  std::set<std::string> elided_stages;
  /// The main half of an op split by split_prepare, and each kernel of its graph (lower/graph/GraphOps.h):
  /// the name of the prepare function that computes its elided prepared stages (`<op>_prepare`,
  /// the whole op's); "" otherwise. The remark of a schedule step left out for naming one says it.
  std::string prepare_function;
  /// The values each input is defined for, by input name: [lo, hi) as declared `X: f32[N] in LO..HI`
  /// (integers: LO to HI - 1), or inherited from the op it is passed to whole. `texc run` and
  /// `texc tune` draw random inputs there (language.md "Input domains").
  std::map<std::string, std::pair<double, double>> input_domains;
  /// The values the op's attributes were elaborated with, in parameter order (entry ops: defaults or
  /// -D; called ops: the call's).
  std::vector<AttributeValue> attributes;

  const Stage* find_stage(const std::string& name) const;
};

/// A stage whose body holds reductions but is not one (`A[i] = sum(X[i, k] for k in 0..K) / 9.0`)
/// gets a hidden stage per outermost reduction when it is lowered (lower/SplitNestedReductions.h):
/// the i-th, from left to right, is named `<stage>_red` (i = 0), then `<stage>_red1`, ... Schedules
/// may name them.
std::string hidden_reduction_stage_name(const std::string& stage, int i);
/// The reductions of a stage body that become hidden stages: none when the body is one Reduce,
/// else every Reduce not inside another, from left to right.
std::vector<const Reduce*> hidden_reductions(const Expr& body);

/// Counts multiply-adds as 2 flops: the floating-point/integer arithmetic of one evaluation of
/// every stage over its whole domain (used for GFLOP/s figures).
double count_flops(const OpDef& op);

}  // namespace texc

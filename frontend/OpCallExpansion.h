// Op-call expansion: the callee's stages and schedule blocks instantiated at a call site.
//
// A call `Y = conv2d(X, W, pad = 1)` is first elaborated (OpElaborator) into the callee's OpDef,
// with its dimension variables bound by the arguments' shapes and the caller's tensors as its
// inputs. Expansion then makes the caller's copy of it:
//  - names: the callee's outputs take the call's result names; its intermediates keep their names
//    when those are free in the caller, else become `<lhs>_<name>` (then `<lhs>_<name>_2`, ...),
//    where <lhs> is the call's first result;
//  - stages: every stage gets a buffer of its new name (role Output when the caller declares that
//    name an output, else Intermediate; shape, type and scope kept), its body reads the renamed
//    buffers, and origin_call records the callee;
//  - schedules: every schedule block of the callee comes along with SchedPrimitive::stage_renames
//    mapping the callee's stage and tensor-parameter names to the caller's (composed with the
//    renames of deeper calls), the names the block binds (loops, cache stages) prefixed `<lhs>_`
//    so two calls of one op do not bind the same names, and origin `<lhs>` (`<lhs>_<origin>` for a
//    block carried from a deeper call), and call_stages the caller's names of the call's stages.
// Nothing is declared in the caller's scope here; the caller does that with the result.
#pragma once
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "frontend/Ast.h"
#include "ir/Op.h"
#include "ir/Schedule.h"

namespace texc {

/// One call of an op, its callee already elaborated for this call site.
struct OpCall {
  std::string callee;                // the op called, as written in the call
  const ast::OpDecl* decl = nullptr;  // its declaration
  const OpDef* elaborated = nullptr;  // the callee elaborated with the caller's tensors as inputs
  std::vector<std::string> args;     // the caller's names of the tensors passed, by tensor parameter
  std::vector<std::string> results;  // the call's result names, by callee output
};

struct ExpandedCall {
  std::vector<Stage> stages;             // the callee's stages under the caller's names, in order
  std::vector<ScheduleBlock> schedules;  // the callee's schedule blocks, renamed for the caller
};

/// Expands `call`. `name_taken(n)` says whether the caller already uses the name n (a tensor,
/// size, attribute, output or a name defined later); `caller_outputs` are the caller's outputs.
ExpandedCall expand_op_call(const OpCall& call, const std::function<bool(const std::string&)>& name_taken,
                            const std::set<std::string>& caller_outputs);

}  // namespace texc

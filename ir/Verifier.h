// The IR verifier: checks the invariants every pass must preserve on a lowered function. The
// lowering driver runs it after each pass (in debug builds and tests) and names the pass that broke
// the IR.
//
// verify(f) reports the first problem found, or nullopt when:
//  - every variable used is bound by an enclosing loop, let or block (iter vars are visible in the
//    block's predicate, init and body), or is a func-level size (a variable of an argument's shape);
//    no variable is bound again inside its own scope;
//  - every buffer used by a Load or Store is an argument or allocated by an enclosing Allocate;
//  - Load/Store index counts match the buffer's rank and indices are integers;
//  - types are consistent: loop variables, bounds and block bindings are i64, conditions and
//    predicates are scalar bool, stored values have the buffer's element type and the indices' lanes,
//    operands of each operator agree, let variables have their value's type;
//  - no Reduce node is left in the loop AST, and no Block when options.require_no_blocks is set.
// The message names the problem with concrete names and quotes the statement it was found in.
#pragma once
#include <optional>
#include <string>

#include "ir/Function.h"

namespace texc {

struct VerifyOptions {
  /// Set after lower_blocks: a Block left in the loop AST is an error.
  bool require_no_blocks = false;
};

std::optional<std::string> verify(const LoweredFunc& f, const VerifyOptions& options = {});

}  // namespace texc

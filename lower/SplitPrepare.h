// split_prepare: an op with `const` inputs as two ops, the prepare half and the main half.
//
// The prepare stages of an op are its non-output stages that read nothing but const inputs and
// other prepare stages (a weight layout transform `Wb = oihw_to_oihwio(Wt)` with `Wt: const`). The
// prepared buffers are the prepare stages that some other stage reads. When there are any:
//  - prepare: op `<op>_prepare`, inputs the const inputs the prepare stages read (parameter order),
//    outputs the prepared buffers (stage order), stages the prepare stages;
//  - main: op `<op>`, inputs the op's inputs that its remaining stages read (parameter order: a
//    const input read directly stays), then the prepared buffers (stage order), outputs the op's.
// Both keep the op's schedule blocks; each records the other's stages in elided_stages, and the
// lowering skips the schedule steps that name them (lower/Lower.cpp). Running prepare once and main
// on every call computes what the op computes. With no const input, or nothing computed from the
// const inputs alone, there is nothing to split (nullopt).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ir/Op.h"

namespace texc {

struct PreparedOp {
  OpDef prepare;
  OpDef main;
  std::vector<std::string> prepared;  // the prepared buffers, in the order of main's extra inputs
};

std::optional<PreparedOp> split_prepare(const OpDef& op);

}  // namespace texc

// The intrinsics of the IR (ir/Intrinsics.def) with their effects, so that passes, interpreters and
// code generators recognise them by identity, not by comparing names.
#pragma once
#include <optional>
#include <string>

#include "ir/IR.h"

namespace texc {

enum class IntrinsicEffect : uint8_t { Pure, Hint, Barrier, Atomic, Dma, TokenPush, TokenPop, WarpUpdate };

enum class Intrinsic : uint8_t {
#define TEXC_INTRINSIC(name, text, effect, arity) name,
#include "ir/Intrinsics.def"
#undef TEXC_INTRINSIC
};

const char* intrinsic_name(Intrinsic which);
IntrinsicEffect intrinsic_effect(Intrinsic which);
/// The intrinsic a name spells, or nullopt.
std::optional<Intrinsic> find_intrinsic(const std::string& name);
/// The intrinsic `c` calls (with the right number of arguments), or nullopt for other calls.
std::optional<Intrinsic> intrinsic_of(const Call* c);
/// True if `c` is a call of `which`.
inline bool is_intrinsic_call(const Call* c, Intrinsic which) { return c && intrinsic_of(c) == which; }
/// A call of `which`.
Expr make_intrinsic_call(Intrinsic which, Type type, std::vector<Expr> args);
/// True if `c` is a hint whose value is its first argument (likely, lane_clamp): evaluators and
/// analyses read through it; only the code generators that use the hint look inside.
inline bool is_value_hint(const Call* c) {
  return is_intrinsic_call(c, Intrinsic::Likely) || is_intrinsic_call(c, Intrinsic::LaneClamp);
}

}  // namespace texc

#include "ir/Intrinsics.h"

namespace texc {

namespace {
struct Info {
  Intrinsic which;
  const char* name;
  IntrinsicEffect effect;
  size_t arity;
};
const Info kInfo[] = {
#define TEXC_INTRINSIC(name, text, effect, arity) {Intrinsic::name, text, IntrinsicEffect::effect, arity},
#include "ir/Intrinsics.def"
#undef TEXC_INTRINSIC
};
}  // namespace

const char* intrinsic_name(Intrinsic which) { return kInfo[size_t(which)].name; }
IntrinsicEffect intrinsic_effect(Intrinsic which) { return kInfo[size_t(which)].effect; }

std::optional<Intrinsic> find_intrinsic(const std::string& name) {
  for (const Info& i : kInfo)
    if (name == i.name) return i.which;
  return std::nullopt;
}

std::optional<Intrinsic> intrinsic_of(const Call* c) {
  if (!c || c->call_kind != CallKind::Intrinsic) return std::nullopt;
  std::optional<Intrinsic> which = find_intrinsic(c->name);
  if (!which || c->args.size() != kInfo[size_t(*which)].arity) return std::nullopt;
  return which;
}

Expr make_intrinsic_call(Intrinsic which, Type type, std::vector<Expr> args) {
  return Call::make(type, intrinsic_name(which), std::move(args), CallKind::Intrinsic);
}

}  // namespace texc

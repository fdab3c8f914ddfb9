#include "backends/vdla/VdlaScopes.h"

#include "ir/Diagnostics.h"
#include "ir/Target.h"

namespace texc::vdla {

namespace {

// The vdla target's declaration of a buffer's scope (an internal error if its entry lost one: the
// generator could not place that buffer).
MemScope declared(const char* tag) {
  std::optional<MemScope> s = find_scope("vdla", tag);
  TEXC_CHECK(s) << "the vdla target declares no memory scope '" << tag << "' (ir/Target.cpp)";
  return *s;
}

}  // namespace

const MemScope& scope_of(OnChip b) {
  static const MemScope inp = declared("vdla.inp"), wgt = declared("vdla.wgt"), acc = declared("vdla.acc");
  switch (b) {
    case OnChip::Inp: return inp;
    case OnChip::Wgt: return wgt;
    case OnChip::Acc: return acc;
  }
  TEXC_CHECK(false) << "bad on-chip buffer " << int(b);
  __builtin_unreachable();
}

std::optional<OnChip> on_chip_buffer(const MemScope& s) {
  for (OnChip b : {OnChip::Inp, OnChip::Wgt, OnChip::Acc})
    if (s == scope_of(b)) return b;
  return std::nullopt;
}

}  // namespace texc::vdla

#include "backends/vdla/lowering/InsertDependencyTokens.h"

#include "ir/Diagnostics.h"

namespace texc::vdla {

std::vector<ThreadedInsn> insert_dependency_tokens(std::vector<StreamEntry> stream, const std::vector<Uop>& uops) {
  auto uop_at = [&](uint64_t u) { return u < uops.size() ? uops[u] : Uop{}; };
  std::vector<ThreadedInsn> out;
  out.reserve(stream.size());
  for (StreamEntry& e : stream) {
    TEXC_CHECK(!e.copy && !e.nest) << "insert_dependency_tokens before the copies and micro-op loops are decided";
    ThreadedInsn ti{e.insn, e.thread, std::move(e.comment), std::nullopt};
    if (ti.thread >= 0) ti.footprint = footprint(ti.insn, uop_at);
    out.push_back(std::move(ti));
  }
  place_tokens(out);
  return out;
}

}  // namespace texc::vdla

// apply_schedule: the table from primitive names to their functions, applied in order.
#include "ir/Diagnostics.h"
#include "lower/schedule/Primitives.h"

namespace texc {

namespace {
struct PrimitiveEntry {
  const char* name;
  void (*apply)(ScheduleState&, const SchedStep&);
};
constexpr PrimitiveEntry kPrimitives[] = {
    {"split", apply_split},           {"tile", apply_tile},
    {"fuse", apply_fuse},             {"reorder", apply_reorder},
    {"compute_at", apply_compute_at}, {"inline", apply_inline},
    {"compute_root", apply_compute_root}, {"cache_read", apply_cache_read},
    {"cache_write", apply_cache_write}, {"bind", apply_bind},
    {"parallel", apply_parallel},     {"vectorize", apply_vectorize},
    {"unroll", apply_unroll},         {"tensorize", apply_tensorize},
    {"rfactor", apply_rfactor},       {"storage_align", apply_storage_align},
    {"double_buffer", apply_double_buffer}, {"prefetch", apply_prefetch},
};
}  // namespace

void apply_schedule(ScheduleState& st, const std::vector<SchedStep>& steps) {
  for (const SchedStep& step : steps) {
    const PrimitiveEntry* entry = nullptr;
    for (const PrimitiveEntry& e : kPrimitives)
      if (step.prim.primitive == e.name) entry = &e;
    if (!entry) throw_error(DiagId::UnknownPrimitive, step.prim.loc, step.prim.primitive);
    entry->apply(st, step);
  }
}

}  // namespace texc

#include "lower/LoopBounds.h"

#include <algorithm>

#include "ir/ConstEval.h"
#include "ir/Substitute.h"

namespace texc {

VarIntervals loop_intervals(const std::vector<const For*>& loops) {
  VarIntervals out;
  for (const For* l : loops) {
    Interval lo = bounds_of(l->min, out), ext = bounds_of(l->extent, out);
    if (lo.min && lo.max && ext.max)
      out[l->var.get()] = Interval::range(*lo.min, *lo.max + std::max<int64_t>(*ext.max, 1) - 1);
  }
  return out;
}

std::optional<int64_t> constant_upper_bound(const Expr& e, const std::vector<const For*>& loops) {
  constexpr int64_t kMaxCombinations = int64_t(1) << 16;
  std::vector<const For*> used;
  std::vector<int64_t> mins, extents;
  int64_t combinations = 1;
  bool enumerable = true;
  for (const For* l : loops) {
    if (!uses_var(e, l->var.get())) continue;
    int64_t mn = 0, ext = 0;
    if (!is_const_int(l->min, &mn) || !is_const_int(l->extent, &ext) || ext > kMaxCombinations) {
      enumerable = false;
      break;
    }
    used.push_back(l);
    mins.push_back(mn);
    extents.push_back(std::max<int64_t>(ext, 0));
    combinations *= extents.back();
    if (combinations > kMaxCombinations) {
      enumerable = false;
      break;
    }
  }
  if (enumerable && combinations > 0) {
    VarValues values;
    std::optional<int64_t> best;
    for (int64_t n = 0; n < combinations && enumerable; ++n) {
      int64_t rest = n;
      for (size_t i = used.size(); i-- > 0;) {
        values[used[i]->var.get()] = mins[i] + rest % extents[i];
        rest /= extents[i];
      }
      if (std::optional<int64_t> v = eval_int(e, values))
        best = best ? std::max(*best, *v) : *v;
      else
        enumerable = false;
    }
    if (enumerable) return best;
  }
  return bounds_of(e, loop_intervals(loops)).max;
}

}  // namespace texc

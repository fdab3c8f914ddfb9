#include "tuner/Space.h"

#include <algorithm>
#include <limits>
#include <set>

#include "ir/ConstEval.h"

namespace texc {

Space::Space(const OpDef& op, const std::string& target)
    : blocks_(select_schedule_blocks(op.schedules, target)), knobs_(collect_knobs(blocks_)) {
  for (const SchedKnob& k : knobs_) {
    radix_.push_back(size_);
    uint64_t n = std::max<uint64_t>(k.values.size(), 1);
    size_ = size_ > std::numeric_limits<uint64_t>::max() / n ? std::numeric_limits<uint64_t>::max() : size_ * n;
  }
}

uint64_t Space::digit(uint64_t index, size_t k) const {
  return (index / radix_[k]) % std::max<uint64_t>(knobs_[k].values.size(), 1);
}

uint64_t Space::with_digit(uint64_t index, size_t k, uint64_t value_pos) const {
  return index - digit(index, k) * radix_[k] + value_pos * radix_[k];
}

KnobConfig Space::config(uint64_t index) const {
  KnobConfig config;
  for (size_t k = 0; k < knobs_.size(); ++k)
    if (!knobs_[k].values.empty()) config[knobs_[k].name] = knobs_[k].values[digit(index, k)];
  return config;
}

uint64_t Space::index(const KnobConfig& config) const {
  uint64_t index = 0;
  for (size_t k = 0; k < knobs_.size(); ++k) {
    auto it = config.find(knobs_[k].name);
    if (it == config.end()) continue;
    const std::vector<int64_t>& values = knobs_[k].values;
    auto pos = std::find(values.begin(), values.end(), it->second);
    if (pos == values.end()) return std::numeric_limits<uint64_t>::max();
    index += uint64_t(pos - values.begin()) * radix_[k];
  }
  return index;
}

namespace {

/// Marks the knobs that the items reach under `config`, following `if`s as the schedule would; an
/// `if` whose condition cannot be evaluated reaches both branches.
void reach(const std::vector<SchedItem>& items, const KnobConfig& config, VarValues& values,
           std::set<std::string>& reached) {
  for (const SchedItem& it : items) {
    if (auto* k = std::get_if<SchedKnob>(&it)) {
      reached.insert(k->name);
      auto c = config.find(k->name);
      values[k->var.get()] = c != config.end() ? c->second : (k->values.empty() ? 0 : k->values.front());
    } else if (auto* f = std::get_if<std::shared_ptr<SchedIf>>(&it)) {
      std::optional<int64_t> c = eval_int((*f)->cond, values);
      if (!c || *c) reach((*f)->then_items, config, values, reached);
      if (!c || !*c) reach((*f)->else_items, config, values, reached);
    }
  }
}

}  // namespace

uint64_t Space::canonical(uint64_t index) const {
  KnobConfig config = this->config(index);
  VarValues values;
  std::set<std::string> reached;
  for (const ScheduleBlock* b : blocks_) reach(b->items, config, values, reached);
  for (size_t k = 0; k < knobs_.size(); ++k)
    if (!reached.count(knobs_[k].name)) index = with_digit(index, k, 0);
  return index;
}

std::string Space::describe(const KnobConfig& config) const {
  std::string out;
  for (const SchedKnob& k : knobs_) {
    auto it = config.find(k.name);
    if (it == config.end()) continue;
    std::string v = k.is_bool ? (it->second ? "true" : "false") : std::to_string(it->second);
    out += (out.empty() ? "" : " ") + k.name + "=" + v;
  }
  return out.empty() ? "(no knobs)" : out;
}

}  // namespace texc

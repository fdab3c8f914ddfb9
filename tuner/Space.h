// Space: the knob search space of one op for one target, from the `knob` declarations of the
// schedule blocks that apply to the target (ir/Schedule.h: select_schedule_blocks, collect_knobs).
//
// A configuration is one integer in [0, size()): a mixed-radix number whose first-declared knob is
// the least significant digit (AutoTVM's indexing), so spaces far too large to enumerate are still
// walked by index. Knobs declared inside an `if` branch that a configuration does not take do not
// change its schedule; canonical() sets them to their first value, so two indices that instantiate
// the same schedule are one candidate. `knob X in factors(N)` arrives already expanded to its list
// of divisors by the front end.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/Op.h"
#include "ir/Schedule.h"

namespace texc {

class Space {
 public:
  /// The space of `op`'s knobs in the schedule blocks that apply to `target` (one point, the
  /// defaults, when it declares none).
  Space(const OpDef& op, const std::string& target);

  const std::vector<SchedKnob>& knobs() const { return knobs_; }
  /// The number of points (saturates at UINT64_MAX for absurd products).
  uint64_t size() const { return size_; }

  /// The configuration at `index` (every knob given).
  KnobConfig config(uint64_t index) const;
  /// The index of `config`; a knob it does not give takes its first value. UINT64_MAX when a
  /// value is not in its knob's list (e.g. a record of an older version of the template).
  uint64_t index(const KnobConfig& config) const;
  /// The index of the configuration that instantiates the same schedule with every knob the
  /// configuration's `if`s do not reach at its first value.
  uint64_t canonical(uint64_t index) const;
  /// The digit (value position) of knob `k` in `index`, and `index` with that digit replaced.
  uint64_t digit(uint64_t index, size_t k) const;
  uint64_t with_digit(uint64_t index, size_t k, uint64_t value_pos) const;

  /// "TI=16 TJ=32 UK=true" (knobs in declaration order).
  std::string describe(const KnobConfig& config) const;

 private:
  std::vector<const ScheduleBlock*> blocks_;
  std::vector<SchedKnob> knobs_;
  std::vector<uint64_t> radix_;  // product of the sizes of the knobs before k
  uint64_t size_ = 1;
};

}  // namespace texc

#include "lower/schedule/TensorizeFallback.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "ir/Diagnostics.h"
#include "ir/Target.h"

namespace texc {

namespace {

// A tensorize step whose intrinsic's instruction the CPU lacks.
struct Unavailable {
  SourceLoc loc;               // of the intrinsic's name in tensorize(L, NAME)
  std::string intrinsic;       // NAME
  std::string symbol;          // its LLVM intrinsic
  std::vector<std::string> missing;
};

std::string joined(const std::vector<std::string>& items, const std::string& separator, const std::string& prefix = "") {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : separator) + prefix + s;
  return out;
}

// The target an LLVM intrinsic's instruction belongs to ("x86", "arm").
std::string owner_target(const IntrinsicDef& intrin) {
  return intrin.symbol.rfind("llvm.x86.", 0) == 0 ? "x86" : "arm";
}

struct Checker {
  const OpDef& op;
  const std::string& target;
  const CpuFeatureQuery& cpu;
  std::map<std::string, std::vector<std::string>> missing_by_intrinsic;  // the CPU is asked once each

  std::optional<Unavailable> first_unavailable(const std::vector<SchedStep>& steps) {
    for (const SchedStep& s : steps) {
      if (s.prim.primitive != "tensorize" || s.prim.args.size() != 2 || !s.prim.args[1].is_name()) continue;
      auto it = op.intrinsics.find(s.prim.args[1].name);
      if (it == op.intrinsics.end()) continue;  // tensorize reports it
      const IntrinsicDef& intrin = it->second;
      if (intrin.lower_kind != "llvm" || intrin.requires_features.empty() || owner_target(intrin) != target) continue;
      auto known = missing_by_intrinsic.find(intrin.name);
      if (known == missing_by_intrinsic.end())
        known = missing_by_intrinsic.emplace(intrin.name, cpu.missing(intrin.requires_features)).first;
      if (!known->second.empty()) return Unavailable{s.prim.args[1].loc, intrin.name, intrin.symbol, known->second};
    }
    return std::nullopt;
  }

  std::optional<Unavailable> first_unavailable(const ScheduleBlock& block, const KnobConfig& knobs) {
    return first_unavailable(instantiate_schedule({&block}, knobs));
  }

  // "tensorize with 'vnni' left out: x86 --mcpu x86-64-v3 lacks avx512vnni, which
  // 'llvm.x86.avx512.vpdpbusd.512' requires; " (the caller says what runs instead).
  std::string left_out(const Unavailable& u) const {
    return "tensorize with '" + u.intrinsic + "' left out: target " + cpu.description + " lacks " +
           joined(u.missing, ", ") + ", which '" + u.symbol + "' requires; ";
  }
};

std::string knob_value_text(const SchedKnob& knob, int64_t value) {
  if (knob.is_bool) return value ? "true" : "false";
  return std::to_string(value);
}

// The block with one knob the configuration leaves at its default given another value, the first
// whose steps tensorize with nothing missing.
std::optional<std::pair<KnobConfig, std::string>> knob_alternative(const ScheduleBlock& block, const KnobConfig& knobs,
                                                                   Checker& check) {
  for (const SchedKnob& knob : collect_knobs({&block})) {
    if (knobs.count(knob.name)) continue;  // chosen by the user
    for (size_t i = 1; i < knob.values.size(); ++i) {
      KnobConfig config = knobs;
      config[knob.name] = knob.values[i];
      std::vector<SchedStep> steps;
      try {
        steps = instantiate_schedule({&block}, config);
      } catch (const UserError&) {
        continue;  // that configuration does not instantiate: not an alternative
      }
      if (!check.first_unavailable(steps))
        return std::make_pair(config, "knob " + knob.name + " = " + knob_value_text(knob, knob.values[i]) +
                                          " instead of " + knob_value_text(knob, knob.values.front()));
    }
  }
  return std::nullopt;
}

bool sets_a_knob_of(const ScheduleBlock& block, const KnobConfig& knobs) {
  for (const SchedKnob& knob : collect_knobs({&block}))
    if (knobs.count(knob.name)) return true;
  return false;
}

}  // namespace

std::vector<ChosenBlock> choose_schedule_blocks(const OpDef& op, const std::string& target, const KnobConfig& knobs,
                                                const CpuFeatureQuery* cpu, std::vector<Remark>& remarks) {
  std::vector<const ScheduleBlock*> selected = select_schedule_blocks(op.schedules, target);
  std::vector<ChosenBlock> out;
  if (!cpu || !cpu->missing) {
    for (const ScheduleBlock* b : selected) out.push_back({b, knobs});
    return out;
  }
  Checker check{op, target, *cpu, {}};
  std::set<std::string> portable_origins;  // imported ops that run with their portable blocks
  for (const ScheduleBlock* b : selected) {
    if (portable_origins.count(b->origin)) continue;
    std::optional<Unavailable> u = check.first_unavailable(*b, knobs);
    if (!u) {
      out.push_back({b, knobs});
      continue;
    }
    if (auto alternative = knob_alternative(*b, knobs, check)) {
      remarks.push_back({u->loc, check.left_out(*u) + "the schedule runs with " + alternative->second});
      out.push_back({b, alternative->first});
      continue;
    }
    if (b->origin.empty() || sets_a_knob_of(*b, knobs))
      throw_error(DiagId::TensorizeMissingCpuFeature, u->loc, u->intrinsic, cpu->description, joined(u->missing, ", "),
                  u->symbol, joined(u->missing, ",", "+"));
    // An imported op's schedule: its portable blocks, those of the target's family.
    portable_origins.insert(b->origin);
    out.erase(std::remove_if(out.begin(), out.end(), [&](const ChosenBlock& c) { return c.block->origin == b->origin; }),
              out.end());
    std::vector<const ScheduleBlock*> portable;
    for (const ScheduleBlock& family : op.schedules)
      if (family.origin == b->origin && schedule_specificity(family.target, target) == 1) portable.push_back(&family);
    bool usable = !portable.empty() && std::none_of(portable.begin(), portable.end(), [&](const ScheduleBlock* p) {
      return check.first_unavailable(*p, knobs).has_value();
    });
    if (usable) {
      for (const ScheduleBlock* p : portable) out.push_back({p, knobs});
      remarks.push_back({u->loc, check.left_out(*u) + "the imported op runs with its `schedule " + portable.front()->target +
                                     "` block instead of its `schedule " + b->target + "` block"});
    } else {
      remarks.push_back({u->loc, check.left_out(*u) + "the imported op runs with its default loops (it has no usable `schedule " +
                                     (find_target(target) ? find_target(target)->schedule_family : std::string("cpu")) +
                                     "` block)"});
    }
  }
  return out;
}

}  // namespace texc

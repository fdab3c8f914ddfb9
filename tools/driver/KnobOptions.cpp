#include "tools/driver/KnobOptions.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <optional>

#include "frontend/Suggest.h"
#include "ir/Diagnostics.h"

namespace texc {

namespace {

std::vector<SchedKnob> knobs_of(const OpDef& op, const std::string& target) {
  return collect_knobs(select_schedule_blocks(op.schedules, target));
}

const SchedKnob* find_knob(const std::vector<SchedKnob>& knobs, const std::string& name) {
  for (const SchedKnob& k : knobs)
    if (k.name == name) return &k;
  return nullptr;
}

std::string value_list(const SchedKnob& knob) {
  if (knob.is_bool) return "true, false";
  std::string out;
  for (int64_t v : knob.values) out += (out.empty() ? "" : ", ") + std::to_string(v);
  return out;
}

/// `text` as a value of `knob`, if it is one of its values.
std::optional<int64_t> parse_value(const SchedKnob& knob, const std::string& text) {
  int64_t v;
  if (knob.is_bool) {  // true/false, or 1/0 as records store them
    if (text != "true" && text != "false" && text != "1" && text != "0") return std::nullopt;
    v = text == "true" || text == "1";
  } else {
    char* end = nullptr;
    errno = 0;
    v = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno == ERANGE) return std::nullopt;
  }
  if (std::find(knob.values.begin(), knob.values.end(), v) == knob.values.end()) return std::nullopt;
  return v;
}

}  // namespace

void check_knob_options(const CompileOptions& opts, const std::vector<OpDef>& ops) {
  for (const auto& [name, text] : opts.knobs) {
    std::vector<std::string> names;
    std::string listing;  // "matmul: TI, TJ, UK; softmax: SM_VW"
    bool found = false;
    for (const OpDef& op : ops) {
      std::vector<SchedKnob> knobs = knobs_of(op, opts.target);
      if (const SchedKnob* knob = find_knob(knobs, name)) {
        found = true;
        if (!parse_value(*knob, text)) {
          std::string allowed = knob->is_bool ? "true or false (or 1 or 0)" : "one of " + value_list(*knob);
          throw_error(DiagId::KnobOptionValue, knob->loc, name, text, name, allowed);
        }
      }
      std::string own;
      for (const SchedKnob& k : knobs) {
        names.push_back(k.name);
        own += (own.empty() ? "" : ", ") + k.name;
      }
      if (!own.empty()) listing += (listing.empty() ? "" : "; ") + op.name + ": " + own;
    }
    if (found) continue;
    if (listing.empty()) listing = "its schedules for this target declare no knobs";
    else listing = "the knobs are " + listing;
    std::string suggestion = closest_name(name, names);
    if (!suggestion.empty())
      throw_error(DiagId::UnknownKnobOptionSuggest, SourceLoc{}, name, opts.target, name, suggestion, listing);
    throw_error(DiagId::UnknownKnobOption, SourceLoc{}, name, opts.target, name, listing);
  }
}

KnobConfig knob_options_for(const CompileOptions& opts, const OpDef& op) {
  KnobConfig config;
  if (opts.knobs.empty()) return config;
  std::vector<SchedKnob> knobs = knobs_of(op, opts.target);
  for (const auto& [name, text] : opts.knobs) {
    const SchedKnob* knob = find_knob(knobs, name);
    if (!knob) continue;
    std::optional<int64_t> v = parse_value(*knob, text);
    TEXC_CHECK(v) << "--knob " << name << "=" << text << " was not checked against op " << op.name;
    config[name] = *v;
  }
  return config;
}

}  // namespace texc

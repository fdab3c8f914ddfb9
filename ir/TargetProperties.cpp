#include "ir/TargetProperties.h"

#include <map>
#include <mutex>

#include "ir/Diagnostics.h"
#include "ir/IRMutator.h"
#include "ir/IROperators.h"

namespace texc {

namespace {
constexpr const char* kHasPrefix = "target.has(";

// Replaces the target property variables (by name) by their values; `loc` is where the
// expression being rewritten was written, for an unknown feature.
class PropertySubstituter : public IRMutator {
 public:
  PropertySubstituter(const TargetProperties& props) : props_(props) {}
  SourceLoc loc;

 protected:
  using IRMutator::mutate;
  Expr mutate(const Variable* v, const Expr& self) override {
    if (v->name == "target.vector_bits") return IntImm::make(Index(), props_.vector_bits);
    if (v->name == "target.vector_registers") return IntImm::make(Index(), props_.vector_registers);
    if (v->name == "target.l1_bytes") return IntImm::make(Index(), props_.l1_bytes);
    if (v->name == "target.l2_bytes") return IntImm::make(Index(), props_.l2_bytes);
    if (v->name.rfind(kHasPrefix, 0) == 0) {
      std::string feature = v->name.substr(std::string(kHasPrefix).size());
      feature.pop_back();  // ')'
      std::string message;
      std::optional<bool> has = props_.has ? props_.has(feature, &message) : std::optional<bool>(false);
      if (!has) throw_error(DiagId::UnknownCpuFeature, loc, props_.description, feature, message);
      return make_bool(*has);
    }
    return self;
  }

 private:
  const TargetProperties& props_;
};

void substitute(std::vector<SchedItem>& items, PropertySubstituter& sub) {
  for (SchedItem& it : items) {
    if (auto* p = std::get_if<SchedPrimitive>(&it)) {
      for (SchedArg& a : p->args) {
        if (!a.value) continue;
        sub.loc = a.loc;
        a.value = sub.mutate_expr(a.value);
      }
    } else if (auto* f = std::get_if<std::shared_ptr<SchedIf>>(&it)) {
      auto copy = std::make_shared<SchedIf>(**f);  // blocks share their ifs with the op they came from
      sub.loc = copy->loc;
      copy->cond = sub.mutate_expr(copy->cond);
      substitute(copy->then_items, sub);
      substitute(copy->else_items, sub);
      *f = std::move(copy);
    }
  }
}
}  // namespace

TargetProperties baseline_target_properties(const std::string& target) {
  TargetProperties p;
  p.description = target;
  p.vector_bits = 128;
  p.vector_registers = target == "arm" ? 32 : 16;
  p.has = [](const std::string&, std::string*) { return std::optional<bool>(false); };
  return p;
}

const std::vector<std::string>& target_property_names() {
  static const std::vector<std::string> names = {"vector_bits", "vector_registers", "l1_bytes", "l2_bytes"};
  return names;
}

Var target_property_var(const std::string& property) {
  // One variable per property, shared by every schedule (identity is the pointer; the name is what
  // with_target_properties reads).
  static std::mutex mutex;
  static std::map<std::string, Var> vars;
  std::lock_guard<std::mutex> lock(mutex);
  Var& v = vars[property];
  if (!v) v = Variable::make(property, property.rfind(kHasPrefix, 0) == 0 ? Bool() : Index());
  return v;
}

std::vector<ScheduleBlock> with_target_properties(const std::vector<ScheduleBlock>& blocks, const TargetProperties& props) {
  std::vector<ScheduleBlock> out = blocks;
  PropertySubstituter sub(props);
  for (ScheduleBlock& b : out) substitute(b.items, sub);
  return out;
}

}  // namespace texc

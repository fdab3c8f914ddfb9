#include "lower/graph/VdlaGroups.h"

#include <set>
#include <string>

#include "ir/IRVisitor.h"
#include "ir/Target.h"

namespace texc {

namespace {

/// The int8 tensor that `e` loads through casts to i32 and padding selects (a constant on the
/// other side), or "" when it is anything else.
std::string int8_load_in_i32(Expr e) {
  if (!e->type.is_int() || e->type.bits != 32) return "";
  auto* cast = e->as<Cast>();
  if (!cast) return "";
  e = cast->value;
  for (;;) {
    if (auto* sel = e->as<Select>(); sel && sel->false_value->as<IntImm>()) {
      e = sel->true_value;
    } else if (sel && sel->true_value->as<IntImm>()) {
      e = sel->false_value;
    } else {
      break;
    }
  }
  auto* load = e->as<Load>();
  if (!load || !load->buffer->dtype.is_int() || load->buffer->dtype.bits != 8) return "";
  return load->buffer->name;
}

bool is_int8_contraction(const Stage& stage) {
  bool found = false;
  for_each_expr(stage.body, [&](const Expr& e) {
    auto* r = e->as<Reduce>();
    if (!r || r->reduce_kind != ReduceKind::Sum) return;
    auto* mul = r->source->as<Binary>();
    if (!mul || mul->op != BinaryOp::Mul) return;
    std::string a = int8_load_in_i32(mul->a), b = int8_load_in_i32(mul->b);
    if (!a.empty() && !b.empty() && a != b) found = true;
  });
  return found;
}

}  // namespace

bool runs_on_vdla(const OpDef& op, const std::vector<const Stage*>& node) {
  if (node.empty() || node.front()->call_site.empty()) return false;
  const std::string& call = node.front()->call_site;
  bool scheduled = false;
  for (const ScheduleBlock& block : op.schedules)
    if (generates_vdla_programs(block.target) && block.origin == call) scheduled = true;  // a `schedule vdla`
  if (!scheduled) return false;
  for (const Stage* s : node)
    if (is_int8_contraction(*s)) return true;
  return false;
}

}  // namespace texc

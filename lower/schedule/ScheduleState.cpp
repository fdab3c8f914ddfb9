#include "lower/schedule/ScheduleState.h"

#include <algorithm>

#include "ir/Diagnostics.h"
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/Target.h"
#include "lower/DefaultLoops.h"
#include "lower/SplitNestedReductions.h"
#include "lower/schedule/StageNest.h"

namespace texc {

ScheduleState ScheduleState::create(const OpDef& op, const std::string& target) {
  ScheduleState st;
  st.op = split_nested_reductions(op);
  st.func = build_default_loops(st.op);
  for (const Stage& s : st.op.stages) st.stages[s.name] = s;
  st.target = target;
  return st;
}

const Stage& ScheduleState::stage(const std::string& name, SourceLoc loc) const {
  auto it = stages.find(name);
  if (it == stages.end() || inlined.count(name)) throw_error(DiagId::UnknownStage, loc, name);
  return it->second;
}

const For* ScheduleState::find_loop(const std::string& name) const {
  const For* found = nullptr;
  for_each_stmt(func.body, [&](const Stmt& s) {
    if (const For* f = s->as<For>(); f && !found && f->var->name == name) found = f;
  });
  return found;
}

const For* ScheduleState::loop(const std::string& name, SourceLoc loc) const {
  if (const For* f = find_loop(name)) return f;
  // "A.k" may name the reduction loop of A's hidden reduction stage.
  auto dot = name.find('.');
  if (dot != std::string::npos) {
    std::string stage_name = name.substr(0, dot), axis = name.substr(dot + 1);
    for (int i = 0; i < 8; ++i)
      if (const For* f = find_loop(hidden_reduction_stage_name(stage_name, i) + "." + axis)) return f;
  }
  if (auto it = replaced_loops.find(name); it != replaced_loops.end())
    throw_error(DiagId::LoopReplaced, loc, name, it->second);
  // A stage's loops are named after the indices it was defined with (a cache_read stage's after
  // its consumer's): list them.
  if (dot != std::string::npos) {
    std::string prefix = name.substr(0, dot + 1), loops;
    for_each_stmt(func.body, [&](const Stmt& s) {
      if (const For* f = s->as<For>(); f && f->var->name.rfind(prefix, 0) == 0)
        loops += (loops.empty() ? "" : ", ") + f->var->name;
    });
    if (!loops.empty()) throw_error(DiagId::UnknownLoopOfStage, loc, name, name.substr(0, dot), loops);
  }
  throw_error(DiagId::UnknownLoop, loc, name);
}

void ScheduleState::record_replaced(const std::string& loop, const std::string& primitive,
                                    const std::vector<std::string>& by) {
  std::string names;
  for (size_t i = 0; i < by.size(); ++i) names += (i == 0 ? "'" : i + 1 == by.size() ? " and '" : ", '") + by[i] + "'";
  replaced_loops[loop] = primitive + " replaced it by " + names;
}

void ScheduleState::check_fresh_name(const std::string& name, SourceLoc loc) const {
  if (find_loop(name) || stages.count(name)) throw_error(DiagId::NameInUse, loc, name);
}

namespace {
class PathFinder : public IRVisitor {
 public:
  explicit PathFinder(const StmtNode* target) : target_(target) {}
  bool found = false;
  std::vector<const For*> path;

  void visit_stmt(const Stmt& s) override {
    if (found || !s) return;
    if (s.get() == target_) {
      found = true;
      path = stack_;
      return;
    }
    IRVisitor::visit_stmt(s);
  }
  void visit_expr(const Expr&) override {}

 protected:
  void visit(const For* op) override {
    stack_.push_back(op);
    IRVisitor::visit(op);
    stack_.pop_back();
  }

 private:
  const StmtNode* target_;
  std::vector<const For*> stack_;
};

class Replacer : public IRMutator {
 public:
  Replacer(const StmtNode* target, Stmt replacement) : target_(target), replacement_(std::move(replacement)) {}
  Stmt mutate_stmt(const Stmt& s) override {
    if (s && s.get() == target_) return replacement_;
    return IRMutator::mutate_stmt(s);
  }
  Expr mutate_expr(const Expr& e) override { return e; }

 private:
  const StmtNode* target_;
  Stmt replacement_;
};
}  // namespace

bool ScheduleState::path_to(const StmtNode* node, std::vector<const For*>* loops) const {
  PathFinder finder(node);
  finder.visit_stmt(func.body);
  if (finder.found && loops) *loops = finder.path;
  return finder.found;
}

std::vector<const Block*> ScheduleState::blocks_of(const std::string& stage_name) const {
  std::vector<const Block*> out;
  for_each_stmt(func.body, [&](const Stmt& s) {
    if (const Block* b = s->as<Block>(); b && b->stage == stage_name) out.push_back(b);
  });
  return out;
}

std::string ScheduleState::stage_under(const For* l) const {
  std::string name;
  bool several = false;
  for_each_stmt(l->body, [&](const Stmt& s) {
    if (const Block* b = s->as<Block>()) {
      if (name.empty()) name = b->stage;
      else if (name != b->stage) several = true;
    }
  });
  return several ? "" : name;
}

Stmt replace_stmt(const Stmt& root, const StmtNode* target, const Stmt& replacement) {
  Replacer r(target, replacement);
  Stmt out = r.mutate_stmt(root);
  return out ? out : Seq::make({});
}

void ScheduleState::replace(const StmtNode* target, Stmt replacement) {
  func.body = replace_stmt(func.body, target, replacement);
}

void ScheduleState::replace_buffers(const BufferMap& buffers) {
  func.body = substitute_buffers(func.body, buffers);
  for (auto& [name, stage] : stages) {
    if (stage.body) stage.body = substitute_buffers(stage.body, buffers);
    if (auto it = buffers.find(stage.buffer.get()); it != buffers.end()) stage.buffer = it->second;
  }
}

void ScheduleState::add_stage_before(const Stage& stage, const std::string& before, const std::string& primitive,
                                     SourceLoc loc) {
  stages[stage.name] = stage;
  auto pos = std::find_if(op.stages.begin(), op.stages.end(), [&](const Stage& s) { return s.name == before; });
  op.stages.insert(pos, stage);
  user_named.insert(stage.name);
  check_dataflow(*this, stage.name, primitive, loc);
}

const SchedArg& name_arg(const SchedStep& step, size_t i) {
  const SchedArg& a = step.prim.args.at(i);
  if (!a.is_name()) throw_error(DiagId::ScheduleExpectedName, a.loc, i + 1, step.prim.primitive);
  return a;
}

static std::string renamed(const SchedStep& step, const std::string& name) {
  const auto& renames = step.prim.stage_renames;
  if (renames.empty()) return name;
  auto dot = name.find('.');
  std::string head = dot == std::string::npos ? name : name.substr(0, dot);
  auto it = renames.find(head);
  if (it == renames.end()) return name;
  return dot == std::string::npos ? it->second : it->second + name.substr(dot);
}

std::string loop_name_arg(const SchedStep& step, size_t i) { return renamed(step, name_arg(step, i).name); }

std::string stage_arg(const ScheduleState& st, const SchedStep& step, size_t i) {
  const SchedArg& a = name_arg(step, i);
  std::string name = renamed(step, a.name);
  st.stage(name, a.loc);
  return name;
}

MemScope scope_arg(const ScheduleState& st, const SchedStep& step, size_t i) {
  const SchedArg& a = name_arg(step, i);
  std::optional<MemScope> scope = find_scope(st.target, a.name);
  if (!scope) throw_error(DiagId::ScopeNotOnTarget, a.loc, a.name, st.target, scope_names_of(st.target));
  return *scope;
}

int64_t int_arg(const SchedStep& step, size_t i) {
  if (i >= step.int_args.size() || !step.int_args[i])
    throw_error(DiagId::ScheduleExpectedInt, step.prim.args.at(i).loc, i + 1, step.prim.primitive);
  return *step.int_args[i];
}

void expect_arity(const SchedStep& step, size_t min_args, size_t max_args, size_t results) {
  const SchedPrimitive& p = step.prim;
  if (p.args.size() < min_args || p.args.size() > max_args)
    throw_error(DiagId::ScheduleArgCount, p.loc, p.primitive, min_args == max_args ? std::to_string(min_args)
                                                                  : std::to_string(min_args) + " to " + std::to_string(max_args),
                p.args.size());
  if (p.results.size() != results) throw_error(DiagId::WrongResultCount, p.loc, p.primitive, results, p.results.size());
}

}  // namespace texc

#include "frontend/LayoutPlan.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "frontend/AstClone.h"
#include "ir/IRVisitor.h"

namespace texc {

namespace {

constexpr int64_t kBlock = 16;  // channels per block of a planned tensor (one AVX-512 vector)

/// One compute statement of the op, as the plan sees it.
struct Statement {
  // Def: an own tensor definition; ElementwiseCall: a call of an elementwise stdlib op, its
  // definition (`def`, the callee's) written out at the call.
  enum class Kind { Size, Conv, Depthwise, Pool, OtherCall, Def, ElementwiseCall } kind = Kind::Size;
  const ast::Assign* assign = nullptr;  // Size and the calls
  const ast::Call* call = nullptr;      // the calls
  const ast::TensorDef* def = nullptr;  // Def, ElementwiseCall
  const ast::OpDecl* callee = nullptr;  // ElementwiseCall
  std::string result;                   // the tensor it defines ("" for a size)
  std::vector<std::string> reads;       // the tensors it reads
  // Conv, Depthwise: its input and weights; Pool: its input (`input` only).
  std::string input, weights;
  bool computes_in_blocks = false;  // Conv: conv2d_blocked is its implementation on the target
  bool unit_dilation = false;       // Depthwise: no dilation argument, or the literal 1
  // Def, ElementwiseCall: elementwise on [N, C, H, W] (C a multiple of the block), f32, no reduction.
  bool elementwise_4d = false;
  std::set<std::string> same_point_reads;   // tensors read at [n, c, y, x], its own point
  std::set<std::string> other_point_reads;  // tensors read anywhere else
  bool is_stage() const { return kind == Kind::Def || kind == Kind::ElementwiseCall; }
  bool is_convolution() const { return kind == Kind::Conv || kind == Kind::Depthwise; }
};

class ContainsReduce : public IRVisitor {
 public:
  bool found = false;
  void visit(const Reduce*) override { found = true; }
};

/// The shapes and element types of the op's tensors (inputs and stages), by name.
class Tensors {
 public:
  explicit Tensors(const OpDef& def) {
    for (const Buffer& b : def.inputs) add(b);
    for (const Stage& s : def.stages) add(s.buffer);
  }
  const std::vector<int64_t>* shape(const std::string& name) const {
    auto it = shapes_.find(name);
    return it == shapes_.end() ? nullptr : &it->second;
  }
  bool is_f32_4d(const std::string& name) const {
    const std::vector<int64_t>* s = shape(name);
    return s && s->size() == 4 && f32_.count(name);
  }
  int64_t channels(const std::string& name) const { return shape(name)->at(1); }
  /// Whether the blocks of the tensor end in padding lanes: its channels are no multiple of 16.
  bool padded(const std::string& name) const { return channels(name) % kBlock != 0; }
  /// Whether the plan may compute the tensor on blocks of 16: its channels a multiple of 16, or
  /// more than 16 (padded). Fewer than 16 channels are not padded: the next convolution would read
  /// 16 where it packs a block of C from NCHW, and reduce over the zero lanes too (up to 16x the work).
  bool blockable(const std::string& name) const { return channels(name) % kBlock == 0 || channels(name) > kBlock; }

 private:
  void add(const Buffer& b) {
    std::vector<int64_t> extents;
    for (const Expr& e : b->shape) {
      int64_t v = 0;
      if (!is_const_int(e, &v)) return;
      extents.push_back(v);
    }
    shapes_[b->name] = extents;
    if (b->dtype == Float(32)) f32_.insert(b->name);
  }
  std::map<std::string, std::vector<int64_t>> shapes_;
  std::set<std::string> f32_;
};

/// The names an expression mentions: tensors read, index variables, sizes.
void collect_names(const ast::Expr& e, std::set<std::string>& names) {
  ast::clone_expr(e, [&](const ast::Expr& node) -> ast::ExprPtr {
    if (auto* n = node.as<ast::NameRef>()) names.insert(n->name);
    if (auto* i = node.as<ast::Index>()) names.insert(i->tensor);
    return nullptr;
  });
}

/// Whether `index` reads its tensor at the definition's own point: [i0, i1, i2, i3] in order.
bool at_own_point(const ast::Index& index, const ast::TensorDef& def) {
  if (index.indices.size() != def.indices.size()) return false;
  for (size_t k = 0; k < def.indices.size(); ++k) {
    auto* n = index.indices[k]->as<ast::NameRef>();
    if (!n || n->name != def.indices[k].name.text) return false;
  }
  return true;
}

class Planner {
 public:
  Planner(const ast::OpDecl& decl, const OpDef& elaborated, const LayoutPlanContext& context)
      : decl_(decl), elaborated_(elaborated), context_(context), tensors_(elaborated) {}

  std::unique_ptr<ast::OpDecl> run();

 private:
  void read_statements();
  Statement call_statement(const ast::Assign& assign, const ast::Call& call) const;
  Statement def_statement(const ast::TensorDef& def) const;
  /// The callee's one definition when `call` calls an elementwise stdlib op on one tensor, else null.
  const ast::TensorDef* elementwise_definition(const ast::OpDecl& callee, const ast::Call& call,
                                               const std::string& result) const;
  /// `stage` (a Def or an ElementwiseCall) computed on blocks: its definition (the op's own, or the
  /// callee's) with its channel index c as c_blk*16 + c_lane and its reads at its own point of the
  /// tensors in same_point_reads reading their blocks; a callee's definition with its indices
  /// renamed away from the caller's names, its tensor parameter as the call's argument and its
  /// attributes as the call's values (or their defaults), its nodes located at the call.
  ast::ComputeStmt blocked_stage(const Statement& stage) const;
  /// Channels per block of a conv's input: 16 where it is blocked, else 16, or all of them when fewer.
  int64_t input_block(const Statement& conv) const {
    int64_t c = tensors_.channels(conv.input);
    return blocked_.count(conv.input) || c >= kBlock ? kBlock : c;
  }
  /// Whether the conv can be computed on blocks, its input `input_in_blocks` (then any channel
  /// count: padded) or NCHW (then packed: its channels a multiple of 16, or fewer than 16).
  bool conv_candidate(const Statement& s, bool input_in_blocks) const;
  bool depthwise_candidate(const Statement& s) const;
  /// Forward from `tensor` through what would stay blocked (own elementwise stages reading it at
  /// their point, pools, and depthwise convolutions unless `depthwise_ends`): does it reach a
  /// convolution that would read it in blocks of 16 (a depthwise one too when `depthwise_ends`)?
  bool reaches_a_convolution(const std::string& tensor, bool depthwise_ends) const;
  /// Whether the plan as it stands reads NCHW tensor `tensor` in blocks of 16 (so packs it anyway).
  bool packed_anyway(const std::string& tensor) const;
  void plan();
  void collect_all_names();
  bool names_are_free() const;
  std::unique_ptr<ast::OpDecl> rewrite() const;

  std::string blocked_name(const std::string& tensor, int64_t block) const {
    return tensor + "_nchw" + std::to_string(block) + "c";
  }
  std::string weights_name(const Statement& conv) const { return conv.result + "_wb"; }

  const ast::OpDecl& decl_;
  const OpDef& elaborated_;
  const LayoutPlanContext& context_;
  Tensors tensors_;
  std::vector<Statement> statements_;
  std::map<std::string, std::vector<size_t>> readers_;  // tensor -> the statements reading it

  std::set<size_t> planned_;                 // the Conv and Pool statements computed on blocks
  std::set<std::string> blocked_;            // the tensors computed on blocks (16 channels each)
  std::set<std::string> needs_nchw_;         // blocked tensors something reads as NCHW (or outputs)
  std::map<std::string, int64_t> to_block_;  // NCHW tensors read in blocks, and their block
  std::set<std::string> all_names_;          // every name the op uses (tensors, indices, sizes)
};

Statement Planner::call_statement(const ast::Assign& assign, const ast::Call& call) const {
  Statement s;
  s.kind = Statement::Kind::OtherCall;
  s.assign = &assign;
  s.call = &call;
  s.result = assign.targets.front().text;
  std::vector<std::string> positional;
  for (const ast::CallArg& a : call.args) {
    auto* n = a.value->as<ast::NameRef>();
    if (n && tensors_.shape(n->name)) s.reads.push_back(n->name);
    if (a.keyword.text.empty()) positional.push_back(n ? n->name : "");
  }
  bool one_result = assign.targets.size() == 1;
  const ast::OpDecl* callee = context_.stdlib_op(call.callee);
  if (one_result && call.callee == "conv2d" && positional.size() >= 2 && callee) {
    s.kind = Statement::Kind::Conv;
    s.input = positional[0];
    s.weights = positional[1];
    for (const Stage& st : elaborated_.stages)
      s.computes_in_blocks = s.computes_in_blocks || (st.call_site == s.result && st.buffer->shape.size() == 6);
  } else if (one_result && call.callee == "depthwise_conv2d" && positional.size() >= 2 && callee &&
             context_.stdlib_op("depthwise_conv2d_nchwc") && context_.stdlib_op("depthwise_weights_nchwc")) {
    s.kind = Statement::Kind::Depthwise;
    s.input = positional[0];
    s.weights = positional[1];
    s.unit_dilation = true;
    size_t position = 0;
    for (const ast::CallArg& a : call.args) {
      bool is_dilation = a.keyword.text.empty() ? position++ == 4 : a.keyword.text == "dilation";
      auto* lit = a.value->as<ast::IntLit>();
      if (is_dilation && !(lit && lit->value == 1)) s.unit_dilation = false;
    }
  } else if (one_result && (call.callee == "max_pool2d" || call.callee == "global_avg_pool2d") &&
             !positional.empty() && callee && context_.stdlib_op(call.callee + "_nchwc")) {
    s.kind = Statement::Kind::Pool;
    s.input = positional[0];
  } else if (const ast::TensorDef* def = one_result && callee ? elementwise_definition(*callee, call, s.result) : nullptr) {
    s.kind = Statement::Kind::ElementwiseCall;
    s.def = def;
    s.callee = callee;
    s.input = positional[0];
    s.same_point_reads.insert(s.input);
    s.elementwise_4d = tensors_.is_f32_4d(s.result) && tensors_.blockable(s.result) && tensors_.shape(s.input) && *tensors_.shape(s.input) == *tensors_.shape(s.result);
  }
  return s;
}

Statement Planner::def_statement(const ast::TensorDef& def) const {
  Statement s;
  s.kind = Statement::Kind::Def;
  s.def = &def;
  s.result = def.name.text;
  std::set<std::string> reads;
  ast::clone_expr(*def.value, [&](const ast::Expr& node) -> ast::ExprPtr {
    if (auto* i = node.as<ast::Index>()) {
      reads.insert(i->tensor);
      bool same = at_own_point(*i, def) && tensors_.shape(i->tensor) && tensors_.shape(s.result) &&
                  *tensors_.shape(i->tensor) == *tensors_.shape(s.result);
      (same ? s.same_point_reads : s.other_point_reads).insert(i->tensor);
    }
    return nullptr;
  });
  s.reads.assign(reads.begin(), reads.end());
  const Stage* stage = elaborated_.find_stage(s.result);
  if (stage && def.indices.size() == 4 && tensors_.is_f32_4d(s.result) && tensors_.blockable(s.result)) {
    ContainsReduce reduce;
    reduce.visit_expr(stage->body);
    s.elementwise_4d = !reduce.found;
    for (const std::string& t : s.same_point_reads) s.elementwise_4d = s.elementwise_4d && tensors_.is_f32_4d(t);
  }
  return s;
}

const ast::TensorDef* Planner::elementwise_definition(const ast::OpDecl& callee, const ast::Call& call,
                                                       const std::string& result) const {
  if (callee.compute.size() != 1 || !callee.compute[0].tensor_def || !callee.compute_variants.empty()) return nullptr;
  const ast::TensorDef& def = *callee.compute[0].tensor_def;
  std::vector<std::string> tensor_params, attributes;
  for (const ast::OpParam& p : callee.params) (p.is_attribute() ? attributes : tensor_params).push_back(p.name.text);
  if (tensor_params.size() != 1 || def.indices.size() != 4 || call.args.empty() || !call.args[0].keyword.text.empty())
    return nullptr;
  std::set<std::string> indices;
  for (const ast::IndexDecl& idx : def.indices) indices.insert(idx.name.text);
  // Only its tensor, at its own point; no other names than its indices and attributes.
  bool elementwise = true;
  ast::clone_expr(*def.value, [&](const ast::Expr& node) -> ast::ExprPtr {
    if (auto* i = node.as<ast::Index>()) elementwise = elementwise && i->tensor == tensor_params[0] && at_own_point(*i, def);
    if (auto* n = node.as<ast::NameRef>())
      elementwise = elementwise && (indices.count(n->name) || std::find(attributes.begin(), attributes.end(), n->name) != attributes.end());
    if (auto* c = node.as<ast::Call>()) elementwise = elementwise && c->fors.empty();
    return nullptr;
  });
  if (!elementwise) return nullptr;
  ContainsReduce reduce;
  for (const Stage& st : elaborated_.stages)
    if (st.call_site == result) reduce.visit_expr(st.body);
  return reduce.found ? nullptr : &def;
}

void Planner::read_statements() {
  for (const ast::ComputeStmt& stmt : decl_.compute) {
    if (stmt.tensor_def) {
      statements_.push_back(def_statement(*stmt.tensor_def));
    } else if (auto* call = stmt.assign->value->as<ast::Call>(); call && tensors_.shape(stmt.assign->targets.front().text)) {
      statements_.push_back(call_statement(*stmt.assign, *call));
    } else {
      Statement s;
      s.assign = stmt.assign.get();
      statements_.push_back(std::move(s));
    }
  }
  for (size_t i = 0; i < statements_.size(); ++i)
    for (const std::string& t : statements_[i].reads) readers_[t].push_back(i);
}

bool Planner::conv_candidate(const Statement& s, bool input_in_blocks) const {
  if (s.kind != Statement::Kind::Conv) return false;
  if (!tensors_.is_f32_4d(s.input) || !tensors_.is_f32_4d(s.weights) || !tensors_.is_f32_4d(s.result)) return false;
  int64_t c = tensors_.channels(s.input);
  return tensors_.blockable(s.result) && (input_in_blocks || c % kBlock == 0 || c < kBlock);
}

bool Planner::depthwise_candidate(const Statement& s) const {
  if (s.kind != Statement::Kind::Depthwise || !s.unit_dilation) return false;
  if (!tensors_.is_f32_4d(s.input) || !tensors_.is_f32_4d(s.weights) || !tensors_.is_f32_4d(s.result)) return false;
  int64_t c = tensors_.channels(s.input);
  const std::vector<int64_t>& w = *tensors_.shape(s.weights);
  return tensors_.blockable(s.input) && w[0] == c && w[1] == 1 && tensors_.channels(s.result) == c;
}

bool Planner::reaches_a_convolution(const std::string& tensor, bool depthwise_ends) const {
  std::vector<std::string> work{tensor};
  std::set<std::string> seen{tensor};
  while (!work.empty()) {
    std::string t = work.back();
    work.pop_back();
    auto it = readers_.find(t);
    if (it == readers_.end()) continue;
    for (size_t r : it->second) {
      const Statement& s = statements_[r];
      std::string next;
      if (s.kind == Statement::Kind::Conv && s.input == t && conv_candidate(s, true)) return true;
      if (s.kind == Statement::Kind::Depthwise && s.input == t && depthwise_candidate(s)) {
        if (depthwise_ends) return true;
        next = s.result;
      }
      if (s.kind == Statement::Kind::Pool && s.input == t) next = s.result;
      if (s.is_stage() && s.elementwise_4d && s.same_point_reads.count(t)) next = s.result;
      if (!next.empty() && seen.insert(next).second) work.push_back(next);
    }
  }
  return false;
}

bool Planner::packed_anyway(const std::string& tensor) const {
  if (blocked_.count(tensor)) return false;
  auto it = readers_.find(tensor);
  if (it == readers_.end()) return false;
  for (size_t r : it->second) {
    const Statement& s = statements_[r];
    if (planned_.count(r) && s.input == tensor && !(s.kind == Statement::Kind::Conv && input_block(s) != kBlock)) return true;
    if (s.is_stage() && blocked_.count(s.result) && s.same_point_reads.count(tensor)) return true;
  }
  return false;
}

void Planner::plan() {
  // A fixed point: blocks spread forward from the convolutions that start a chain.
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t i = 0; i < statements_.size(); ++i) {
      const Statement& s = statements_[i];
      if (blocked_.count(s.result)) continue;
      bool blocks = false;
      bool input_blocked = blocked_.count(s.input) > 0;
      if (s.kind == Statement::Kind::Conv && conv_candidate(s, input_blocked)) {
        bool input_packed = !input_blocked && input_block(s) == kBlock && packed_anyway(s.input);
        blocks = input_blocked || ((s.computes_in_blocks || input_packed) && reaches_a_convolution(s.result, true));
      } else if (s.kind == Statement::Kind::Depthwise && depthwise_candidate(s)) {
        blocks = input_blocked ||
                 (context_.convolutions_in_blocks && reaches_a_convolution(s.result, false));
      } else if (s.kind == Statement::Kind::Pool) {
        blocks = input_blocked;
      } else if (s.is_stage() && s.elementwise_4d) {
        for (const std::string& t : s.same_point_reads) blocks = blocks || blocked_.count(t);
      }
      if (!blocks) continue;
      if (!s.is_stage()) planned_.insert(i);
      blocked_.insert(s.result);
      changed = true;
    }
  }
  // Who reads what in which layout.
  std::set<std::string> outputs;
  for (const Buffer& b : elaborated_.outputs) outputs.insert(b->name);
  for (const std::string& t : blocked_)
    if (outputs.count(t)) needs_nchw_.insert(t);
  for (size_t i = 0; i < statements_.size(); ++i) {
    const Statement& s = statements_[i];
    bool in_blocks = planned_.count(i) || (s.is_stage() && blocked_.count(s.result));
    for (const std::string& t : s.reads) {
      bool read_in_blocks = false;
      if (in_blocks && s.is_stage()) read_in_blocks = s.same_point_reads.count(t) > 0;
      if (in_blocks && !s.is_stage()) read_in_blocks = t == s.input;
      if (in_blocks && s.is_stage() && s.other_point_reads.count(t) && blocked_.count(t))
        needs_nchw_.insert(t);
      if (read_in_blocks && !blocked_.count(t)) {
        int64_t block = s.kind == Statement::Kind::Conv ? input_block(s) : kBlock;
        to_block_[t] = block;
      } else if (!read_in_blocks && blocked_.count(t)) {
        needs_nchw_.insert(t);
      }
    }
  }
}

void Planner::collect_all_names() {
  std::set<std::string>& taken = all_names_;
  for (const ast::OpParam& p : decl_.params) {
    taken.insert(p.name.text);
    for (const ast::ExprPtr& d : p.dims) collect_names(*d, taken);
  }
  for (const Buffer& b : elaborated_.inputs) taken.insert(b->name);
  for (const Stage& s : elaborated_.stages) taken.insert(s.name);
  for (const ast::ComputeStmt& stmt : decl_.compute) {
    if (stmt.tensor_def) {
      taken.insert(stmt.tensor_def->name.text);
      for (const ast::IndexDecl& idx : stmt.tensor_def->indices) taken.insert(idx.name.text);
      collect_names(*stmt.tensor_def->value, taken);
    } else {
      for (const ast::Name& n : stmt.assign->targets) taken.insert(n.text);
      collect_names(*stmt.assign->value, taken);
    }
  }
}

bool Planner::names_are_free() const {
  const std::set<std::string>& taken = all_names_;
  std::vector<std::string> wanted;
  for (const std::string& t : blocked_) wanted.push_back(blocked_name(t, kBlock));
  for (const auto& [t, block] : to_block_) wanted.push_back(blocked_name(t, block));
  for (size_t i : planned_)
    if (statements_[i].is_convolution()) wanted.push_back(weights_name(statements_[i]));
  for (const std::string& w : wanted)
    if (taken.count(w)) return false;
  return true;
}

ast::ExprPtr name_ref(const std::string& name, SourceLoc loc) { return std::make_unique<ast::NameRef>(loc, name); }

ast::ComputeStmt call_stmt(const ast::Name& target, const std::string& callee, std::vector<ast::CallArg> args, SourceLoc loc) {
  auto assign = std::make_unique<ast::Assign>();
  assign->targets.push_back(target);
  assign->value = std::make_unique<ast::Call>(loc, callee, std::move(args), std::vector<ast::ForClause>{});
  ast::ComputeStmt stmt;
  stmt.assign = std::move(assign);
  return stmt;
}

ast::CallArg positional_arg(const std::string& tensor, SourceLoc loc) { return ast::CallArg{ast::Name{"", loc}, name_ref(tensor, loc)}; }

ast::CallArg int_arg(const std::string& keyword, int64_t value, SourceLoc loc) {
  return ast::CallArg{ast::Name{keyword, loc}, std::make_unique<ast::IntLit>(loc, value)};
}

/// A fresh name from `base` that `taken` does not have.
std::string fresh_name(std::string base, const std::set<std::string>& taken) {
  while (taken.count(base)) base += "_";
  return base;
}

ast::ComputeStmt Planner::blocked_stage(const Statement& stage) const {
  const ast::TensorDef& def = *stage.def;
  bool own = stage.kind == Statement::Kind::Def;
  // The names the new definition may not take: the caller's, and the definition's own.
  std::set<std::string> taken = all_names_;
  for (const ast::IndexDecl& idx : def.indices) taken.insert(idx.name.text);
  collect_names(*def.value, taken);
  // A callee's indices are renamed where the caller uses their names; its names substituted.
  std::map<std::string, std::string> renamed;
  std::map<std::string, const ast::Expr*> substituted;
  std::string tensor_param;
  if (!own) {
    for (const ast::IndexDecl& idx : def.indices) renamed[idx.name.text] = fresh_name(idx.name.text, all_names_);
    size_t positional = 0;
    std::vector<const ast::OpParam*> by_position;
    for (const ast::OpParam& p : stage.callee->params) by_position.push_back(&p);
    for (const ast::OpParam& p : stage.callee->params)
      if (p.is_attribute() && p.default_value) substituted[p.name.text] = p.default_value.get();
    for (const ast::CallArg& a : stage.call->args) {
      const ast::OpParam* p = nullptr;
      if (a.keyword.text.empty()) {
        p = positional < by_position.size() ? by_position[positional++] : nullptr;
      } else {
        for (const ast::OpParam& q : stage.callee->params)
          if (q.name.text == a.keyword.text) p = &q;
      }
      if (p && p->is_attribute()) substituted[p->name.text] = a.value.get();
      if (p && !p->is_attribute()) tensor_param = p->name.text;
    }
  }
  auto index_name = [&](size_t k) {
    auto it = renamed.find(def.indices[k].name.text);
    return it == renamed.end() ? def.indices[k].name.text : it->second;
  };
  SourceLoc loc = own ? def.name.loc : stage.call->loc;
  auto at = [&](SourceLoc l) { return own ? l : loc; };  // a callee's nodes point at the call
  const std::string& c = def.indices[1].name.text;
  std::string c_blk = fresh_name(index_name(1) + "_blk", taken);
  std::string c_lane = fresh_name(index_name(1) + "_lane", taken);

  auto blocked = std::make_unique<ast::TensorDef>();
  blocked->name = ast::Name{blocked_name(stage.result, kBlock), own ? def.name.loc : stage.assign->targets.front().loc};
  const std::vector<int64_t>& shape = *tensors_.shape(stage.result);
  auto index = [&](size_t k) {
    return ast::IndexDecl{ast::Name{index_name(k), at(def.indices[k].name.loc)},
                          own ? ast::clone_expr_or_null(def.indices[k].extent) : std::make_unique<ast::IntLit>(loc, shape[k])};
  };
  blocked->indices.push_back(index(0));
  blocked->indices.push_back(ast::IndexDecl{ast::Name{c_blk, at(def.indices[1].name.loc)},
                                            std::make_unique<ast::IntLit>(loc, (shape[1] + kBlock - 1) / kBlock)});
  blocked->indices.push_back(index(2));
  blocked->indices.push_back(index(3));
  blocked->indices.push_back(ast::IndexDecl{ast::Name{c_lane, at(def.indices[1].name.loc)}, std::make_unique<ast::IntLit>(loc, kBlock)});
  blocked->value = ast::clone_expr(*def.value, [&](const ast::Expr& node) -> ast::ExprPtr {
    if (auto* i = node.as<ast::Index>()) {
      std::string tensor = own ? i->tensor : (i->tensor == tensor_param || tensor_param.empty() ? stage.input : i->tensor);
      if (!stage.same_point_reads.count(tensor) || !at_own_point(*i, def)) return nullptr;
      std::vector<ast::ExprPtr> indices;
      indices.push_back(name_ref(index_name(0), at(i->indices[0]->loc)));
      indices.push_back(name_ref(c_blk, at(i->indices[1]->loc)));
      indices.push_back(name_ref(index_name(2), at(i->indices[2]->loc)));
      indices.push_back(name_ref(index_name(3), at(i->indices[3]->loc)));
      indices.push_back(name_ref(c_lane, at(i->indices[1]->loc)));
      return std::make_unique<ast::Index>(at(i->loc), blocked_name(tensor, kBlock), std::move(indices));
    }
    auto* n = node.as<ast::NameRef>();
    if (!n) return nullptr;
    if (n->name == c) {
      auto scaled = std::make_unique<ast::Binary>(at(n->loc), "*", name_ref(c_blk, at(n->loc)), std::make_unique<ast::IntLit>(at(n->loc), kBlock));
      return std::make_unique<ast::Binary>(at(n->loc), "+", std::move(scaled), name_ref(c_lane, at(n->loc)));
    }
    if (auto r = renamed.find(n->name); r != renamed.end()) return name_ref(r->second, loc);
    if (auto e = substituted.find(n->name); e != substituted.end()) return ast::clone_expr(*e->second);
    return nullptr;
  });
  if (shape[1] % kBlock != 0) {
    // Padded blocks: the padding lanes past the channels are 0.0 (and nothing past them is read).
    SourceLoc vloc = blocked->value->loc;
    auto channel = std::make_unique<ast::Binary>(
        vloc, "+", std::make_unique<ast::Binary>(vloc, "*", name_ref(c_blk, vloc), std::make_unique<ast::IntLit>(vloc, kBlock)),
        name_ref(c_lane, vloc));
    std::vector<ast::CallArg> args;
    args.push_back(ast::CallArg{ast::Name{"", vloc}, std::make_unique<ast::Binary>(vloc, "<", std::move(channel),
                                                                                  std::make_unique<ast::IntLit>(vloc, shape[1]))});
    args.push_back(ast::CallArg{ast::Name{"", vloc}, std::move(blocked->value)});
    args.push_back(ast::CallArg{ast::Name{"", vloc}, std::make_unique<ast::FloatLit>(vloc, 0.0, "0.0")});
    blocked->value = std::make_unique<ast::Call>(vloc, "select", std::move(args), std::vector<ast::ForClause>{});
  }
  ast::ComputeStmt stmt;
  stmt.tensor_def = std::move(blocked);
  return stmt;
}

std::unique_ptr<ast::OpDecl> Planner::rewrite() const {
  auto out = std::make_unique<ast::OpDecl>();
  out->name = decl_.name;
  for (const ast::OpParam& p : decl_.params) out->params.push_back(ast::clone_param(p));
  out->outputs = decl_.outputs;

  std::set<std::string> blocked_made;  // NCHW tensors whose blocks have been made
  auto make_blocks_of = [&](const std::string& t, SourceLoc loc) {
    auto it = to_block_.find(t);
    if (it == to_block_.end() || !blocked_made.insert(t).second) return;
    std::vector<ast::CallArg> args;
    args.push_back(positional_arg(t, loc));
    args.push_back(int_arg("block", it->second, loc));
    out->compute.push_back(call_stmt(ast::Name{blocked_name(t, it->second), loc}, "nchw_to_nchwc", std::move(args), loc));
  };
  auto make_nchw_of = [&](const ast::Name& target, SourceLoc loc) {
    if (!needs_nchw_.count(target.text)) return;
    std::vector<ast::CallArg> args;
    args.push_back(positional_arg(blocked_name(target.text, kBlock), loc));
    if (tensors_.padded(target.text)) args.push_back(int_arg("channels", tensors_.channels(target.text), loc));
    out->compute.push_back(call_stmt(target, "nchwc_to_nchw", std::move(args), loc));
  };

  for (size_t i = 0; i < statements_.size(); ++i) {
    const Statement& s = statements_[i];
    const ast::ComputeStmt& original = decl_.compute[i];
    bool in_blocks = planned_.count(i) || (s.is_stage() && blocked_.count(s.result));
    if (!in_blocks) {
      ast::ComputeStmt copy;
      if (original.tensor_def) {
        auto def = std::make_unique<ast::TensorDef>();
        def->name = original.tensor_def->name;
        for (const ast::IndexDecl& idx : original.tensor_def->indices)
          def->indices.push_back(ast::IndexDecl{idx.name, ast::clone_expr_or_null(idx.extent)});
        def->value = ast::clone_expr(*original.tensor_def->value);
        copy.tensor_def = std::move(def);
      } else {
        auto assign = std::make_unique<ast::Assign>();
        assign->targets = original.assign->targets;
        assign->value = ast::clone_expr(*original.assign->value);
        copy.assign = std::move(assign);
      }
      out->compute.push_back(std::move(copy));
      continue;
    }
    if (s.is_convolution() || s.kind == Statement::Kind::Pool) {
      SourceLoc loc = s.call->loc;
      bool depthwise = s.kind == Statement::Kind::Depthwise;
      make_blocks_of(s.input, loc);
      int64_t in_block = blocked_.count(s.input) ? kBlock : to_block_.at(s.input);
      std::string input = blocked_name(s.input, in_block);
      std::vector<ast::CallArg> args;
      size_t positional = 0;
      for (const ast::CallArg& a : s.call->args) {
        bool is_positional = a.keyword.text.empty();
        if (is_positional && positional == 0) {
          args.push_back(positional_arg(input, a.value->loc));
        } else if (is_positional && positional == 1 && s.is_convolution()) {
          args.push_back(positional_arg(weights_name(s), a.value->loc));
        } else if (depthwise && (is_positional ? positional == 4 : a.keyword.text == "dilation")) {
          // dilation 1: depthwise_conv2d_nchwc has no such parameter
        } else {
          args.push_back(ast::CallArg{a.keyword, ast::clone_expr(*a.value)});
        }
        if (is_positional) ++positional;
      }
      if (depthwise) {
        std::vector<ast::CallArg> wargs;
        wargs.push_back(positional_arg(s.weights, loc));
        wargs.push_back(int_arg("block", kBlock, loc));
        out->compute.push_back(call_stmt(ast::Name{weights_name(s), loc}, "depthwise_weights_nchwc", std::move(wargs), loc));
      } else if (s.kind == Statement::Kind::Conv) {
        std::vector<ast::CallArg> wargs;
        wargs.push_back(positional_arg(s.weights, loc));
        wargs.push_back(int_arg("in_block", in_block, loc));
        wargs.push_back(int_arg("out_block", kBlock, loc));
        out->compute.push_back(call_stmt(ast::Name{weights_name(s), loc}, "oihw_to_oihwio", std::move(wargs), loc));
      }
      const ast::Name& target = s.assign->targets.front();
      std::string callee = s.kind == Statement::Kind::Pool ? s.call->callee + "_nchwc" : depthwise ? "depthwise_conv2d_nchwc" : "conv2d_nchwc";
      out->compute.push_back(call_stmt(ast::Name{blocked_name(s.result, kBlock), target.loc}, callee, std::move(args), loc));
      make_nchw_of(target, loc);
      continue;
    }
    // An elementwise stage on the blocks.
    SourceLoc loc = s.kind == Statement::Kind::Def ? s.def->name.loc : s.call->loc;
    for (const std::string& t : s.same_point_reads) make_blocks_of(t, loc);
    out->compute.push_back(blocked_stage(s));
    make_nchw_of(s.kind == Statement::Kind::Def ? s.def->name : s.assign->targets.front(), loc);
  }
  return out;
}

std::unique_ptr<ast::OpDecl> Planner::run() {
  if (!decl_.schedules.empty() || !decl_.compute_variants.empty() || decl_.is_intrinsic) return nullptr;
  for (const char* op : {"conv2d_nchwc", "oihw_to_oihwio", "nchw_to_nchwc", "nchwc_to_nchw"})
    if (!context_.stdlib_op(op)) return nullptr;
  collect_all_names();
  read_statements();
  plan();
  bool any_conv = false;
  for (size_t i : planned_) any_conv = any_conv || statements_[i].is_convolution();
  if (!any_conv || !names_are_free()) return nullptr;
  return rewrite();
}

}  // namespace

std::unique_ptr<ast::OpDecl> plan_layouts(const ast::OpDecl& decl, const OpDef& elaborated,
                                          const LayoutPlanContext& context) {
  return Planner(decl, elaborated, context).run();
}

}  // namespace texc

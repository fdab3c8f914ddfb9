#include "frontend/AstBuilder.h"

#include <TexParser.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "frontend/Parser.h"
#include "ir/Diagnostics.h"

namespace texc {

namespace {

using P = texc_grammar::TexParser;

class AstBuilder {
 public:
  AstBuilder(uint32_t file_id, std::string path) : file_id_(file_id), path_(std::move(path)) {}

  ast::File file(P::ProgramContext* ctx) {
    ast::File f;
    f.file_id = file_id_;
    f.path = path_;
    for (P::TopItemContext* item : ctx->topItem()) {
      if (auto* i = item->importDecl()) f.imports.push_back(import(i));
      if (auto* p = item->paramDecl()) f.params.push_back({name(p->name), expr(p->value)});
      if (auto* o = item->opDecl()) f.ops.push_back(op(o));
      if (auto* o = item->intrinsicDecl()) f.ops.push_back(intrinsic(o));
    }
    return f;
  }

 private:
  SourceLoc loc(antlr4::Token* t) const {
    return SourceLoc{file_id_, uint32_t(t->getLine()), uint32_t(t->getCharPositionInLine() + 1)};
  }
  ast::Name name(antlr4::Token* t) const { return ast::Name{t->getText(), loc(t)}; }
  ast::Name name(antlr4::tree::TerminalNode* n) const { return name(n->getSymbol()); }

  std::vector<ast::Name> names(P::IdListContext* ctx) const {
    std::vector<ast::Name> out;
    for (auto* id : ctx->ID()) out.push_back(name(id));
    return out;
  }

  static std::string unquote(const std::string& s) {
    std::string out;
    for (size_t i = 1; i + 1 < s.size(); ++i) {
      if (s[i] == '\\' && i + 2 < s.size()) ++i;
      out += s[i];
    }
    return out;
  }

  ast::Import import(P::ImportDeclContext* ctx) {
    ast::Import imp;
    imp.loc = loc(ctx->getStart());
    if (ctx->module) {
      imp.module = dotted_text(ctx->module);
      imp.loc = loc(ctx->module->getStart());
    } else if (ctx->module_name) {
      imp.module = ctx->module_name->getText();
      imp.loc = loc(ctx->module_name);
    } else {
      imp.path = unquote(ctx->path->getText());
      imp.loc = loc(ctx->path);
    }
    return imp;
  }

  /// A name a C compiler and linker accept: [A-Za-z_][A-Za-z0-9_]*.
  static bool is_c_identifier(const std::string& s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    for (char ch : s)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') return false;
    return true;
  }

  /// An LLVM target intrinsic of a CPU target texc compiles for: "llvm.x86." or "llvm.aarch64." then
  /// letters, digits, '_' and '.'.
  static bool is_llvm_target_intrinsic_name(const std::string& s) {
    std::string rest;
    for (const char* prefix : {"llvm.x86.", "llvm.aarch64."})
      if (s.rfind(prefix, 0) == 0) rest = s.substr(std::string(prefix).size());
    if (rest.empty()) return false;
    for (char ch : rest)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '.') return false;
    return true;
  }

  static std::string dotted_text(P::DottedNameContext* ctx) {
    std::string t;
    for (auto* id : ctx->ID()) {
      if (!t.empty()) t += '.';
      t += id->getText();
    }
    return t;
  }

  std::vector<ast::OpParam> params(P::ParamListContext* ctx) {
    std::vector<ast::OpParam> out;
    if (!ctx) return out;
    for (P::ParamContext* p : ctx->param()) {
      ast::OpParam param;
      param.name = name(p->name);
      param.type = name(p->type_);
      if (p->const_) {
        param.is_const = true;
        param.const_loc = loc(p->const_);
      }
      for (P::ExprContext* d : p->dims) param.dims.push_back(expr(d));
      param.has_shape = !p->dims.empty();
      if (p->default_) param.default_value = expr(p->default_);
      if (p->lo) {
        param.domain_lo = expr(p->lo);
        param.domain_hi = expr(p->hi);
        param.domain_loc = loc(p->IN()->getSymbol());
      }
      out.push_back(std::move(param));
    }
    return out;
  }

  void compute(P::ComputeBlockContext* ctx, ast::OpDecl& op) { op.compute = compute_stmts(ctx->computeStmt()); }

  std::vector<ast::ComputeStmt> compute_stmts(const std::vector<P::ComputeStmtContext*>& stmts) {
    std::vector<ast::ComputeStmt> out;
    for (P::ComputeStmtContext* s : stmts) {
      ast::ComputeStmt stmt;
      if (auto* t = dynamic_cast<P::TensorDefContext*>(s)) {
        auto def = std::make_unique<ast::TensorDef>();
        def->name = name(t->name);
        for (P::IndexDeclContext* i : t->indexDecl()) {
          def->indices.push_back({name(i->name), i->extent ? expr(i->extent) : nullptr});
        }
        def->value = expr(t->value);
        stmt.tensor_def = std::move(def);
      } else if (auto* a = dynamic_cast<P::AssignStmtContext*>(s)) {
        auto assign = std::make_unique<ast::Assign>();
        assign->targets = names(a->idList());
        assign->value = expr(a->value);
        stmt.assign = std::move(assign);
      } else {
        continue;  // only after a syntax error, which has thrown already
      }
      out.push_back(std::move(stmt));
    }
    return out;
  }

  ast::OpDecl op(P::OpDeclContext* ctx) {
    ast::OpDecl op;
    op.name = name(ctx->name);
    op.params = params(ctx->paramList());
    op.outputs = names(ctx->outputs);
    compute(ctx->computeBlock(), op);
    for (P::ComputeVariantContext* v : ctx->computeVariant()) {
      ast::ComputeVariant variant;
      variant.target = name(v->target);
      if (v->guard) variant.guard = expr(v->guard);
      variant.loc = loc(v->COMPUTE()->getSymbol());
      variant.compute = compute_stmts(v->computeStmt());
      op.compute_variants.push_back(std::move(variant));
    }
    for (P::ScheduleBlockContext* b : ctx->scheduleBlock()) {
      ast::ScheduleBlock block;
      block.target = name(b->target);
      block.items = sched_items(b->schedItem());
      op.schedules.push_back(std::move(block));
    }
    return op;
  }

  ast::OpDecl intrinsic(P::IntrinsicDeclContext* ctx) {
    ast::OpDecl op;
    op.name = name(ctx->name);
    op.is_intrinsic = true;
    op.params = params(ctx->paramList());
    op.outputs = names(ctx->outputs);
    compute(ctx->computeBlock(), op);
    P::LowerClauseContext* lower = ctx->lowerClause();
    if (auto* ext = dynamic_cast<P::LowerExternContext*>(lower)) {
      op.lower_kind = "extern";
      op.lower_symbol = unquote(ext->symbol->getText());
      op.lower_loc = loc(ext->symbol);
      if (!is_c_identifier(op.lower_symbol)) throw_error(DiagId::ExternSymbolInvalid, op.lower_loc, op.lower_symbol);
    } else if (auto* named = dynamic_cast<P::LowerNamedContext*>(lower)) {
      // `lower llvm "llvm.x86.NAME"`: an LLVM target intrinsic (docs/language.md "Tensorize").
      if (named->kind->getText() != "llvm") throw_error(DiagId::LowerKindUnknown, loc(named->kind), named->kind->getText());
      op.lower_kind = "llvm";
      op.lower_symbol = unquote(named->symbol->getText());
      op.lower_loc = loc(named->symbol);
      if (!is_llvm_target_intrinsic_name(op.lower_symbol))
        throw_error(DiagId::LLVMIntrinsicNameInvalid, op.lower_loc, op.lower_symbol);
      if (named->req) {  // `requires "avx512vnni"`: the CPU features its instruction needs
        if (named->req->getText() != "requires") throw_error(DiagId::LowerRequiresExpected, loc(named->req), named->req->getText());
        op.requires_loc = loc(named->features);
        std::string list = unquote(named->features->getText());
        size_t start = 0;
        while (start <= list.size()) {
          size_t comma = std::min(list.find(',', start), list.size());
          std::string feature = list.substr(start, comma - start);
          bool valid = !feature.empty() && feature.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-._") == std::string::npos;
          if (!valid) throw_error(DiagId::LowerRequiresInvalid, op.requires_loc, list);
          op.lower_requires.push_back(feature);
          start = comma + 1;
        }
      }
    } else if (auto* builtin = dynamic_cast<P::LowerBuiltinContext*>(lower)) {
      if (builtin->dottedName()) {
        op.lower_kind = dotted_text(builtin->dottedName());
        op.lower_loc = loc(builtin->dottedName()->getStart());
      } else {
        op.lower_kind = builtin->ID()->getText();
        op.lower_loc = loc(builtin->ID()->getSymbol());
      }
    }
    return op;
  }

  std::vector<ast::SchedItem> sched_items(const std::vector<P::SchedItemContext*>& items) {
    std::vector<ast::SchedItem> out;
    for (P::SchedItemContext* ctx : items) {
      ast::SchedItem item;
      if (auto* a = dynamic_cast<P::SchedApplyContext*>(ctx)) {
        auto apply = std::make_unique<ast::SchedApply>();
        if (a->idList()) apply->results = names(a->idList());
        apply->primitive = name(a->primitive);
        for (P::SchedArgContext* arg : a->schedArg()) apply->args.push_back(sched_arg(arg));
        item.apply = std::move(apply);
      } else if (auto* k = dynamic_cast<P::KnobListContext*>(ctx)) {
        auto knob = std::make_unique<ast::KnobDecl>();
        knob->name = name(k->name);
        for (P::KnobValueContext* v : k->knobValue()) {
          if (v->INT()) {
            int64_t value = int_value(v->INT()->getSymbol());
            knob->values.push_back({v->minus ? -value : value, false, loc(v->getStart())});
          } else {
            knob->values.push_back({v->TRUE() ? 1 : 0, true, loc(v->getStart())});
          }
        }
        item.knob = std::move(knob);
      } else if (auto* f = dynamic_cast<P::KnobFactorsContext*>(ctx)) {
        auto knob = std::make_unique<ast::KnobDecl>();
        knob->name = name(f->name);
        knob->factors_of = expr(f->of);
        item.knob = std::move(knob);
      } else if (auto* i = dynamic_cast<P::SchedIfItemContext*>(ctx)) {
        item.if_ = sched_if(i->schedIf());
      } else {
        continue;  // `;`
      }
      out.push_back(std::move(item));
    }
    return out;
  }

  /// An `if` (or an `else if` link of a chain) is one nesting level for its blocks and the links
  /// after it.
  std::unique_ptr<ast::SchedIf> sched_if(P::SchedIfContext* ctx) {
    auto node = std::make_unique<ast::SchedIf>();
    node->loc = loc(ctx->IF()->getSymbol());
    node->cond = expr(ctx->cond);
    enter(node->loc);
    node->then_items = sched_items(ctx->then_);
    if (ctx->elseIf) {
      ast::SchedItem nested;
      nested.if_ = sched_if(ctx->elseIf);
      node->else_items.push_back(std::move(nested));
    } else {
      node->else_items = sched_items(ctx->else_);
    }
    --depth_;
    return node;
  }

  ast::SchedArg sched_arg(P::SchedArgContext* ctx) {
    ast::SchedArg arg;
    if (ctx->keyword) arg.keyword = name(ctx->keyword);
    if (auto* d = ctx->dottedName()) {
      std::vector<ast::Name> parts;
      for (auto* id : d->ID()) parts.push_back(name(id));
      SourceLoc l = parts.front().loc;
      arg.value = std::make_unique<ast::DottedName>(l, std::move(parts));
    } else {
      arg.value = expr(ctx->expr());
    }
    return arg;
  }

  int64_t int_value(antlr4::Token* t) {
    const std::string text = t->getText();
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(text.c_str(), &end, 10);
    if (errno == ERANGE) throw_error(DiagId::IntLiteralTooLarge, loc(t), text);
    return int64_t(v);
  }

  /// One more nesting level (kMaxNesting in Parser.h) from here, or a diagnostic at loc.
  void enter(SourceLoc loc) {
    if (++depth_ > kMaxNesting) throw_error(DiagId::NestingTooDeep, loc, kMaxNesting);
  }

  /// An expression one nesting level deeper than the current one.
  ast::ExprPtr nested(P::ExprContext* ctx) {
    enter(loc(ctx->getStart()));
    ast::ExprPtr e = expr(ctx);
    --depth_;
    return e;
  }

  ast::ExprPtr expr(P::ExprContext* ctx) {
    if (auto* p = dynamic_cast<P::ParenExprContext*>(ctx)) return nested(p->inner);
    if (auto* c = dynamic_cast<P::CallExprContext*>(ctx)) {
      std::vector<ast::CallArg> args;
      std::vector<ast::ForClause> fors;
      if (P::CallArgsContext* a = c->callArgs()) {
        for (P::CallArgContext* arg : a->callArg()) {
          args.push_back({arg->keyword ? name(arg->keyword) : ast::Name{}, nested(arg->value)});
        }
        for (P::ForClauseContext* f : a->forClause()) fors.push_back({name(f->var), nested(f->lo), nested(f->hi)});
      }
      return std::make_unique<ast::Call>(loc(c->callee), c->callee->getText(), std::move(args), std::move(fors));
    }
    if (auto* i = dynamic_cast<P::IndexExprContext*>(ctx)) {
      std::vector<ast::ExprPtr> indices;
      for (P::ExprContext* e : i->expr()) indices.push_back(nested(e));
      return std::make_unique<ast::Index>(loc(i->tensor), i->tensor->getText(), std::move(indices));
    }
    if (auto* m = dynamic_cast<P::MemberExprContext*>(ctx)) {
      // `obj.member` is a dotted name; `obj.member(arg)` a call of "obj.member" whose one argument
      // is the name or the string's text (`target.vector_lanes(f32)`, `target.has("fma")`).
      if (!m->argName && !m->argString)
        return std::make_unique<ast::DottedName>(loc(m->obj), std::vector<ast::Name>{name(m->obj), name(m->member)});
      antlr4::Token* a = m->argName ? m->argName : m->argString;
      std::string text = a->getText();
      if (m->argString) text = text.substr(1, text.size() - 2);
      std::vector<ast::CallArg> args;
      args.push_back({ast::Name{}, std::make_unique<ast::NameRef>(loc(a), text)});
      return std::make_unique<ast::Call>(loc(m->obj), m->obj->getText() + "." + m->member->getText(), std::move(args),
                                         std::vector<ast::ForClause>{});
    }
    if (auto* n = dynamic_cast<P::NameExprContext*>(ctx)) {
      return std::make_unique<ast::NameRef>(loc(n->ID()->getSymbol()), n->ID()->getText());
    }
    if (auto* i = dynamic_cast<P::IntLitContext*>(ctx)) {
      antlr4::Token* t = i->INT()->getSymbol();
      return std::make_unique<ast::IntLit>(loc(t), int_value(t));
    }
    if (auto* f = dynamic_cast<P::FloatLitContext*>(ctx)) {
      antlr4::Token* t = f->FLOAT()->getSymbol();
      double value = std::strtod(t->getText().c_str(), nullptr);
      if (std::isinf(value)) throw_error(DiagId::FloatLiteralTooLarge, loc(t), t->getText());
      return std::make_unique<ast::FloatLit>(loc(t), value, t->getText());
    }
    if (auto* b = dynamic_cast<P::BoolLitContext*>(ctx)) {
      return std::make_unique<ast::BoolLit>(loc(b->getStart()), b->TRUE() != nullptr);
    }
    if (auto* u = dynamic_cast<P::UnaryExprContext*>(ctx)) {
      return std::make_unique<ast::Unary>(loc(u->op), u->op->getText(), nested(u->operand));
    }
    if (auto* b = dynamic_cast<P::BinaryExprContext*>(ctx)) return operator_chain(b);
    throw_error(DiagId::SyntaxError, loc(ctx->getStart()), "malformed expression");
  }

  /// `a + b * c - d`: the left operands form a chain, built without recursion and at the chain's
  /// own nesting level (the right operands are of higher precedence, so at most a few deep).
  ast::ExprPtr operator_chain(P::BinaryExprContext* outermost) {
    std::vector<P::BinaryExprContext*> chain;
    P::ExprContext* first = outermost;
    while (auto* b = dynamic_cast<P::BinaryExprContext*>(first)) {
      chain.push_back(b);
      first = b->lhs;
    }
    if (chain.size() > size_t(kMaxOperatorChain)) {
      throw_error(DiagId::ExpressionTooLong, loc(chain[chain.size() - 1 - kMaxOperatorChain]->op), kMaxOperatorChain);
    }
    ast::ExprPtr e = expr(first);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      P::BinaryExprContext* b = *it;
      e = std::make_unique<ast::Binary>(loc(b->op), b->op->getText(), std::move(e), expr(b->rhs));
    }
    return e;
  }

  uint32_t file_id_;
  std::string path_;
  int depth_ = 0;
};

}  // namespace

ast::File build_ast(antlr4::ParserRuleContext* program, uint32_t file_id, const std::string& path) {
  auto* ctx = dynamic_cast<P::ProgramContext*>(program);
  TEXC_CHECK(ctx) << "build_ast needs a program context";
  return AstBuilder(file_id, path).file(ctx);
}

}  // namespace texc

#include "ir/IRParser.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <unordered_set>

#include "ir/Diagnostics.h"
#include "ir/IRPrinter.h"
#include "ir/MathFunctions.h"
#include "ir/Target.h"

namespace texc {

namespace {

// ---------------------------------------------------------------------------------------------
// Lexer

enum class Tok { Ident, Int, Float, Punct, End };

struct Token {
  Tok kind = Tok::End;
  std::string text;
  SourceLoc loc;
  uint64_t int_value = 0;
  double float_value = 0;
  Type type = Index();
  bool has_suffix = false;
};

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)); }

[[noreturn]] void syntax_error(SourceLoc loc, const std::string& msg) { throw_error(DiagId::SyntaxError, loc, msg); }

std::vector<Token> lex(const std::string& text, uint32_t file) {
  std::vector<Token> out;
  size_t i = 0, n = text.size();
  uint32_t line = 1, col = 1;
  auto advance = [&](size_t k) {
    for (size_t j = 0; j < k && i < n; ++j, ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
  };
  static const char* puncts[] = {"==", "!=", "<=", ">=", "<<", ">>", "&&", "||", "..", "(", ")", "[", "]", "{",
                                 "}",  ",",  ":",  "=",  "<",  ">",  "+",  "-",  "*",  "/", "%", "!"};
  while (i < n) {
    char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      advance(1);
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {  // comment to end of line
      while (i < n && text[i] != '\n') advance(1);
      continue;
    }
    if (c == '#') {
      while (i < n && text[i] != '\n') advance(1);
      continue;
    }
    Token t;
    t.loc = SourceLoc{file, line, col};
    size_t start = i;
    if (is_ident_start(c)) {
      size_t j = i + 1;
      while (j < n && (is_ident_char(text[j]) || (text[j] == '.' && j + 1 < n && is_ident_char(text[j + 1])))) ++j;
      t.text = text.substr(start, j - start);
      static const std::unordered_set<std::string> float_words = {"inf",  "inff", "infh",  "infbf",
                                                                  "nan",  "nanf", "nanh",  "nanbf"};
      if (float_words.count(t.text)) {
        t.kind = Tok::Float;
        t.float_value = t.text[0] == 'i' ? std::numeric_limits<double>::infinity()
                                         : std::numeric_limits<double>::quiet_NaN();
        std::string suffix = t.text.substr(3);  // "", "f", "h" or "bf"
        t.has_suffix = !suffix.empty();
        t.type = suffix.empty() ? Float(64) : suffix == "f" ? Float(32) : suffix == "h" ? Float(16) : BFloat16();
      } else {
        t.kind = Tok::Ident;
      }
      advance(j - i);
      out.push_back(t);
      continue;
    }
    if (is_digit(c)) {
      size_t j = i;
      while (j < n && is_digit(text[j])) ++j;
      bool is_float = false;
      if (j + 1 < n && text[j] == '.' && is_digit(text[j + 1])) {
        is_float = true;
        ++j;
        while (j < n && is_digit(text[j])) ++j;
      }
      if (j < n && (text[j] == 'e' || text[j] == 'E')) {
        size_t k = j + 1;
        if (k < n && (text[k] == '+' || text[k] == '-')) ++k;
        if (k < n && is_digit(text[k])) {
          is_float = true;
          j = k;
          while (j < n && is_digit(text[j])) ++j;
        }
      }
      std::string number = text.substr(start, j - start);
      if (is_float) {
        t.kind = Tok::Float;
        t.float_value = std::strtod(number.c_str(), nullptr);
        t.type = Float(64);
        if (j < n && (text[j] == 'f' || text[j] == 'h')) {
          t.type = text[j] == 'f' ? Float(32) : Float(16);
          t.has_suffix = true;
          ++j;
        } else if (j + 1 < n && text[j] == 'b' && text[j + 1] == 'f') {
          t.type = BFloat16();
          t.has_suffix = true;
          j += 2;
        }
      } else {
        t.kind = Tok::Int;
        errno = 0;
        t.int_value = std::strtoull(number.c_str(), nullptr, 10);
        if (errno == ERANGE) syntax_error(t.loc, "integer literal '" + number + "' is too large");
        if (j < n && (text[j] == 'i' || text[j] == 'u') && j + 1 < n && is_digit(text[j + 1])) {
          size_t k = j + 1;
          while (k < n && is_digit(text[k])) ++k;
          std::string type_name = text.substr(j, k - j);
          auto ty = Type::parse(type_name);
          if (!ty) syntax_error(t.loc, "unknown literal suffix '" + type_name + "'");
          t.type = *ty;
          t.has_suffix = true;
          j = k;
        }
      }
      if (j < n && is_ident_char(text[j])) syntax_error(t.loc, "malformed number '" + text.substr(start, j + 1 - start) + "'");
      t.text = text.substr(start, j - start);
      advance(j - i);
      out.push_back(t);
      continue;
    }
    bool matched = false;
    for (const char* p : puncts) {
      size_t len = std::char_traits<char>::length(p);
      if (text.compare(i, len, p) == 0) {
        t.kind = Tok::Punct;
        t.text = p;
        advance(len);
        out.push_back(t);
        matched = true;
        break;
      }
    }
    if (!matched) syntax_error(t.loc, std::string("unexpected character '") + c + "'");
  }
  Token end;
  end.kind = Tok::End;
  end.text = "end of input";
  end.loc = SourceLoc{file, line, col};
  out.push_back(end);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Parser

int binary_precedence(const std::string& p, BinaryOp* op) {
  static const struct { const char* text; BinaryOp op; int prec; } table[] = {
      {"||", BinaryOp::Or, 1},  {"&&", BinaryOp::And, 2}, {"==", BinaryOp::EQ, 3},  {"!=", BinaryOp::NE, 3},
      {"<", BinaryOp::LT, 4},   {"<=", BinaryOp::LE, 4},  {">", BinaryOp::GT, 4},   {">=", BinaryOp::GE, 4},
      {"<<", BinaryOp::Shl, 5}, {">>", BinaryOp::Shr, 5}, {"+", BinaryOp::Add, 6},  {"-", BinaryOp::Sub, 6},
      {"*", BinaryOp::Mul, 7},  {"/", BinaryOp::Div, 7},  {"%", BinaryOp::Mod, 7},
  };
  for (const auto& e : table)
    if (p == e.text) {
      *op = e.op;
      return e.prec;
    }
  return -1;
}

class Parser {
 public:
  Parser(const std::string& text, const std::string& source_name, ParseEnv* env) : env_(env) {
    uint32_t file = SourceManager::get().add(source_name, text);
    toks_ = lex(text, file);
    var_scopes_.emplace_back();
    buffer_scopes_.emplace_back();
    if (env_) {
      for (auto& [name, v] : env_->vars) var_scopes_.back()[name] = v;
      for (auto& [name, b] : env_->buffers) buffer_scopes_.back()[name] = b;
    }
  }

  LoweredFunc func() {
    LoweredFunc f;
    expect_word("func");
    f.name = expect_ident("a function name").text;
    expect("(");
    declaring_sizes_ = true;
    if (!at(")")) {
      do {
        std::vector<int64_t> dims;
        Buffer b = buffer_decl(&dims);
        if (find_buffer_in_scope(b->name)) syntax_error(prev().loc, "argument '" + b->name + "' is declared twice");
        buffer_scopes_.back()[b->name] = b;
        f.args.push_back(b);
        f.arg_dims.push_back(dims);
      } while (accept(","));
    }
    declaring_sizes_ = false;
    expect(")");
    expect("{");
    f.body = stmts();
    expect("}");
    expect_end();
    return f;
  }

  Stmt top_stmts() {
    Stmt s = stmts();
    expect_end();
    return s;
  }

  Expr top_expr() {
    Expr e = expr();
    expect_end();
    return e;
  }

 private:
  // ---- tokens

  const Token& peek(size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  const Token& prev() const { return toks_[pos_ == 0 ? 0 : pos_ - 1]; }
  const Token& next() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool at(const char* punct, size_t k = 0) const { return peek(k).kind == Tok::Punct && peek(k).text == punct; }
  bool at_word(const char* word, size_t k = 0) const { return peek(k).kind == Tok::Ident && peek(k).text == word; }
  bool accept(const char* punct) {
    if (!at(punct)) return false;
    next();
    return true;
  }
  std::string describe(const Token& t) const { return t.kind == Tok::End ? t.text : "'" + t.text + "'"; }
  void expect(const char* punct) {
    if (!accept(punct)) syntax_error(peek().loc, std::string("expected '") + punct + "' but found " + describe(peek()));
  }
  void expect_word(const char* word) {
    if (!at_word(word)) syntax_error(peek().loc, std::string("expected '") + word + "' but found " + describe(peek()));
    next();
  }
  const Token& expect_ident(const char* what) {
    if (peek().kind != Tok::Ident) syntax_error(peek().loc, std::string("expected ") + what + " but found " + describe(peek()));
    return next();
  }
  void expect_end() {
    if (peek().kind != Tok::End) syntax_error(peek().loc, "unexpected " + describe(peek()));
  }
  int64_t expect_int(const char* what) {
    bool negative = accept("-");
    if (peek().kind != Tok::Int) syntax_error(peek().loc, std::string("expected ") + what + " but found " + describe(peek()));
    uint64_t v = next().int_value;
    return negative ? int64_t(uint64_t(0) - v) : int64_t(v);
  }

  // ---- scopes

  void push_scope() {
    var_scopes_.emplace_back();
    buffer_scopes_.emplace_back();
  }
  void pop_scope() {
    var_scopes_.pop_back();
    buffer_scopes_.pop_back();
  }
  Var bind_var(const std::string& name, Type t) {
    Var v = Variable::make(name, t);
    var_scopes_.back()[name] = v;
    return v;
  }
  Var find_var(const std::string& name) {
    for (auto it = var_scopes_.rbegin(); it != var_scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return f->second;
    }
    return nullptr;
  }
  Buffer find_buffer(const std::string& name) {
    for (auto it = buffer_scopes_.rbegin(); it != buffer_scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return f->second;
    }
    return nullptr;
  }
  Buffer find_buffer_in_scope(const std::string& name) {
    auto f = buffer_scopes_.back().find(name);
    return f == buffer_scopes_.back().end() ? nullptr : f->second;
  }

  // ---- types and literals

  Type parse_type(const Token& t) {
    auto ty = Type::parse(t.text);
    if (!ty) syntax_error(t.loc, "unknown type '" + t.text + "'");
    return *ty;
  }

  Expr literal(const Token& t, bool negative) {
    Expr e;
    if (t.kind == Tok::Int) {
      int64_t v = int64_t(t.int_value);
      if (negative) v = int64_t(uint64_t(0) - t.int_value);
      if (t.type.is_float()) syntax_error(t.loc, "bad literal");
      e = IntImm::make(t.type, v);
    } else {
      double v = negative ? -t.float_value : t.float_value;
      e = FloatImm::make(t.type, v);
    }
    if (!t.has_suffix) mark_untyped(e);
    return e;
  }

  void mark_untyped(const Expr& e) {
    untyped_literals_.insert(e.get());
    keep_alive_.push_back(e);  // so that no other node reuses the address
  }

  // An unsuffixed literal next to an operand of another scalar type takes that type.
  Expr coerce(const Expr& e, Type t) {
    if (e->type == t || !untyped_literals_.count(e.get()) || !t.is_scalar()) return e;
    Expr r;
    if (const IntImm* i = e->as<IntImm>()) {
      if (t.is_float()) r = FloatImm::make(t, double(i->value));
      else if (t.is_integer()) r = IntImm::make(t, i->value);
    } else if (const FloatImm* f = e->as<FloatImm>()) {
      if (t.is_float()) r = FloatImm::make(t, f->value);
    }
    if (!r) return e;
    mark_untyped(r);
    return r;
  }

  // ---- expressions

  Expr expr() {
    if (at_word("let") && peek(1).kind == Tok::Ident && at("=", 2)) return let_expr();
    return binary(1);
  }

  Expr let_expr() {
    expect_word("let");
    std::string name = expect_ident("a variable name").text;
    expect("=");
    Expr value = expr();
    expect_word("in");
    push_scope();
    Var v = bind_var(name, value->type);
    Expr body = expr();
    pop_scope();
    return Let::make(v, value, body);
  }

  Expr make_binary(BinaryOp op, Expr a, Expr b, const Token& at_tok) {
    a = coerce(a, b->type);
    b = coerce(b, a->type);
    const char* sym = binary_op_symbol(op);
    if (a->type != b->type)
      syntax_error(at_tok.loc, std::string("operand types differ for '") + sym + "': " + a->type.str() + " vs " +
                                   b->type.str());
    if ((op == BinaryOp::And || op == BinaryOp::Or) && !a->type.is_bool())
      syntax_error(at_tok.loc, std::string("'") + sym + "' of non-bool operands (" + a->type.str() + ")");
    if ((op == BinaryOp::Shl || op == BinaryOp::Shr) && !a->type.is_integer())
      syntax_error(at_tok.loc, std::string("'") + sym + "' of non-integer operands (" + a->type.str() + ")");
    return Binary::make(op, a, b);
  }

  Expr binary(int min_prec) {
    Expr lhs = unary();
    while (true) {
      if (peek().kind != Tok::Punct) break;
      BinaryOp op;
      int prec = binary_precedence(peek().text, &op);
      if (prec < min_prec) break;
      Token op_tok = next();
      Expr rhs = binary(prec + 1);
      lhs = make_binary(op, lhs, rhs, op_tok);
    }
    return lhs;
  }

  Expr unary() {
    if (at("!")) {
      Token t = next();
      Expr a = unary();
      if (!a->type.is_bool()) syntax_error(t.loc, "'!' of a non-bool operand (" + a->type.str() + ")");
      return Not::make(a);
    }
    if (at("-")) {
      Token t = next();
      if (peek().kind == Tok::Int || peek().kind == Tok::Float) return literal(next(), /*negative=*/true);
      Expr a = unary();
      if (a->type.is_bool()) syntax_error(t.loc, "'-' of a bool operand");
      Expr zero = a->type.is_float() ? FloatImm::make(a->type.element_of(), 0.0) : IntImm::make(a->type.element_of(), 0);
      if (a->type.is_vector()) zero = Broadcast::make(zero, a->type.lanes);
      return Binary::make(BinaryOp::Sub, zero, a);
    }
    return primary();
  }

  std::vector<Expr> call_args() {
    expect("(");
    std::vector<Expr> args;
    if (!at(")")) {
      do args.push_back(expr());
      while (accept(","));
    }
    expect(")");
    return args;
  }

  Expr call(const Token& name_tok, const std::string& name, CallKind kind) {
    std::optional<Type> type;
    if (accept(":")) {
      const Token& t = expect_ident("a type");
      type = parse_vector_type(t);
    }
    std::vector<Expr> args = call_args();
    Type default_type = kind == CallKind::Extern || args.empty() ? Int(32) : args[0]->type;
    const MathFunctionInfo* math = kind == CallKind::Math ? find_math_function_info(name) : nullptr;
    if (math && math->returns_bool && !args.empty()) default_type = Bool(args[0]->type.lanes);  // isnan, isinf
    return Call::make(type ? *type : default_type, name, std::move(args), kind);
  }

  Type parse_vector_type(const Token& t) {
    std::string s = t.text;
    size_t x = s.find('x', 1);
    if (x != std::string::npos && s[0] != 'x') {
      auto base = Type::parse(s.substr(0, x));
      int lanes = std::atoi(s.c_str() + x + 1);
      if (!base || lanes < 2) syntax_error(t.loc, "unknown type '" + s + "'");
      return base->with_lanes(lanes);
    }
    return parse_type(t);
  }

  // `sum(source for k in RANGE, ...)`: the axes are parsed first so the source can see them.
  Expr reduction(const Token& name_tok, ReduceKind kind) {
    size_t source_start = pos_;
    int depth = 0;
    size_t for_pos = 0;
    for (size_t p = pos_; p < toks_.size() && toks_[p].kind != Tok::End; ++p) {
      const Token& t = toks_[p];
      if (t.kind == Tok::Punct && (t.text == "(" || t.text == "[" || t.text == "{")) ++depth;
      if (t.kind == Tok::Punct && (t.text == ")" || t.text == "]" || t.text == "}")) {
        if (depth == 0) break;
        --depth;
      }
      if (depth == 0 && t.kind == Tok::Ident && t.text == "for") {
        for_pos = p;
        break;
      }
    }
    if (for_pos == 0) syntax_error(name_tok.loc, std::string("expected 'for' in ") + reduce_kind_name(kind) + "(...)");
    pos_ = for_pos + 1;
    std::vector<IterVar> axes;
    std::vector<std::string> names;
    do {
      names.push_back(expect_ident("a reduction axis").text);
      expect_word("in");
      auto [mn, ext] = range();
      axes.push_back(IterVar{nullptr, mn, ext, true});
    } while (accept(","));
    expect(")");
    size_t end = pos_;
    push_scope();
    for (size_t i = 0; i < axes.size(); ++i) axes[i].var = bind_var(names[i], Index());
    pos_ = source_start;
    Expr source = expr();
    if (pos_ != for_pos) syntax_error(peek().loc, "unexpected " + describe(peek()) + " in a reduction");
    pop_scope();
    pos_ = end;
    if (!source->type.is_scalar()) syntax_error(name_tok.loc, "reduction of a vector");
    return Reduce::make(kind, source, std::move(axes));
  }

  Expr primary() {
    const Token& t = peek();
    if (t.kind == Tok::Int || t.kind == Tok::Float) return literal(next(), false);
    if (accept("(")) {
      Expr e = expr();
      expect(")");
      return e;
    }
    if (t.kind != Tok::Ident) syntax_error(t.loc, "expected an expression but found " + describe(t));
    Token name_tok = next();
    const std::string& name = name_tok.text;
    if (name == "true" || name == "false") return make_bool(name == "true");
    if (name == "let") {
      --pos_;
      return let_expr();
    }
    if (name == "call" || name == "call.math" || name == "call.intrinsic") {
      std::string fname = expect_ident("a function name").text;
      CallKind kind = name == "call" ? CallKind::Extern : (name == "call.math" ? CallKind::Math : CallKind::Intrinsic);
      return call(name_tok, fname, kind);
    }
    bool has_args = at("(");
    if (has_args && name == "select") {
      std::vector<Expr> a = call_args();
      if (a.size() != 3) syntax_error(name_tok.loc, "select takes 3 arguments");
      a[1] = coerce(a[1], a[2]->type);
      a[2] = coerce(a[2], a[1]->type);
      if (!a[0]->type.is_bool()) syntax_error(name_tok.loc, "select condition is " + a[0]->type.str() + ", not bool");
      if (a[1]->type != a[2]->type)
        syntax_error(name_tok.loc, "select branches differ: " + a[1]->type.str() + " vs " + a[2]->type.str());
      return Select::make(a[0], a[1], a[2]);
    }
    if (has_args && (name == "sum" || name == "prod")) {
      next();
      return reduction(name_tok, name == "sum" ? ReduceKind::Sum : ReduceKind::Prod);
    }
    if (has_args && (name == "min" || name == "max")) {
      size_t save = pos_;
      next();
      Expr first = expr();
      if (at_word("for")) {
        pos_ = save + 1;
        return reduction(name_tok, name == "min" ? ReduceKind::Min : ReduceKind::Max);
      }
      Token comma = peek();
      expect(",");
      Expr second = expr();
      expect(")");
      return make_binary(name == "min" ? BinaryOp::Min : BinaryOp::Max, first, second, comma);
    }
    if (has_args && (name == "ramp" || name == "broadcast")) {
      next();
      Expr base = expr();
      expect(",");
      Expr stride;
      if (name == "ramp") {
        stride = coerce(expr(), base->type);
        expect(",");
      }
      int64_t lanes = expect_int("a lane count");
      expect(")");
      if (lanes < 2 || lanes > 65535) syntax_error(name_tok.loc, "bad lane count " + std::to_string(lanes));
      if (!base->type.is_scalar()) syntax_error(name_tok.loc, name + " of a vector");
      if (name == "broadcast") return Broadcast::make(base, int(lanes));
      if (stride->type != base->type)
        syntax_error(name_tok.loc, "ramp base and stride differ: " + base->type.str() + " vs " + stride->type.str());
      return Ramp::make(base, stride, int(lanes));
    }
    if (has_args && Type::parse(name)) {
      Type to = *Type::parse(name);
      std::vector<Expr> a = call_args();
      if (a.size() != 1) syntax_error(name_tok.loc, "a cast takes one argument");
      return Cast::make(to.with_lanes(a[0]->type.lanes), a[0]);
    }
    if (has_args || (at(":") && peek(1).kind == Tok::Ident && at("(", 2))) {
      if (is_reserved_word(name)) syntax_error(name_tok.loc, "'" + name + "' cannot be called");
      return call(name_tok, name, is_math_function(name) ? CallKind::Math : CallKind::Intrinsic);
    }
    if (at("[")) {
      Buffer b = find_buffer(name);
      if (!b) throw_error(DiagId::UnknownName, name_tok.loc, name);
      return load(b, name_tok);
    }
    if (is_reserved_word(name)) syntax_error(name_tok.loc, "expected an expression but found '" + name + "'");
    if (Var v = find_var(name)) return v;
    if (declaring_sizes_) {
      Var v = Variable::make(name, Index());
      var_scopes_.front()[name] = v;
      return v;
    }
    if (env_ && env_->declare_unknown_vars) {
      Var v = Variable::make(name, Index());
      var_scopes_.front()[name] = v;
      env_->vars[name] = v;
      return v;
    }
    throw_error(DiagId::UnknownName, name_tok.loc, name);
  }

  std::vector<Expr> index_list(const Token& where) {
    expect("[");
    std::vector<Expr> idx;
    if (!at("]")) {
      do {
        Token t = peek();
        Expr e = expr();
        if (!e->type.is_integer()) syntax_error(t.loc, "index of type " + e->type.str() + " into '" + where.text + "'");
        idx.push_back(e);
      } while (accept(","));
    }
    expect("]");
    return idx;
  }

  Expr load(const Buffer& b, const Token& name_tok) {
    std::vector<Expr> idx = index_list(name_tok);
    if (idx.size() != b->ndim())
      syntax_error(name_tok.loc, "'" + b->name + "' has rank " + std::to_string(b->ndim()) + " but is indexed with " +
                                     std::to_string(idx.size()) + " indices");
    return Load::make(b, std::move(idx));
  }

  // MIN..HI or MIN..+EXTENT; both i64.
  std::pair<Expr, Expr> range() {
    Token t = peek();
    Expr mn = coerce(expr(), Index());
    expect("..");
    Expr ext;
    if (accept("+")) {
      ext = coerce(expr(), Index());
    } else {
      Expr hi = coerce(expr(), Index());
      int64_t a, b;
      if (is_const_int(mn, int64_t(0))) ext = hi;
      else if (is_const_int(mn, &a) && is_const_int(hi, &b)) ext = IntImm::make(Index(), b - a);
      else ext = Binary::make(BinaryOp::Sub, hi, mn);
    }
    if (mn->type != Index() || ext->type != Index())
      syntax_error(t.loc, "a range must be of i64, not " + mn->type.str() + ".." + ext->type.str());
    return {mn, ext};
  }

  // ---- statements

  Stmt stmts() {
    std::vector<Stmt> out;
    while (!at("}") && peek().kind != Tok::End) out.push_back(stmt());
    return Seq::make(std::move(out));
  }

  Stmt braced_body() {
    expect("{");
    Stmt s = stmts();
    expect("}");
    return s;
  }

  static bool loop_kind(const std::string& word, ForKind* k) {
    static const struct { const char* w; ForKind k; } table[] = {
        {"for", ForKind::Serial},         {"parallel", ForKind::Parallel},   {"vectorized", ForKind::Vectorized},
        {"unrolled", ForKind::Unrolled}, {"tensorized", ForKind::Tensorized},
    };
    for (const auto& e : table)
      if (word == e.w) {
        *k = e.k;
        return true;
      }
    return false;
  }

  Stmt loop(ForKind kind, std::string tag) {
    std::string name = expect_ident("a loop variable").text;
    expect_word("in");
    auto [mn, ext] = range();
    push_scope();
    Var v = bind_var(name, Index());
    Stmt body = braced_body();
    pop_scope();
    return For::make(v, mn, ext, kind, body, std::move(tag));
  }

  Stmt stmt() {
    const Token& t = peek();
    ForKind kind;
    if (t.kind == Tok::Ident) {
      if (loop_kind(t.text, &kind) && peek(1).kind == Tok::Ident && at_word("in", 2)) {
        next();
        return loop(kind, "");
      }
      if (t.text == "bound" && at("(", 1)) {
        next();
        next();
        std::string tag = expect_ident("a thread tag").text;
        expect(")");
        return loop(ForKind::ThreadBound, tag);
      }
      if (t.text == "tensorized" && at("(", 1)) {
        next();
        next();
        std::string tag = expect_ident("an intrinsic's name").text;
        expect(")");
        return loop(ForKind::Tensorized, tag);
      }
      if (t.text == "if" && at("(", 1)) return if_stmt();
      if (t.text == "let" && peek(1).kind == Tok::Ident && at("=", 2)) {
        next();
        std::string name = next().text;
        next();
        Expr value = expr();
        expect_word("in");
        push_scope();
        Var v = bind_var(name, value->type);
        if (!at("{")) {
          Expr body = expr();
          pop_scope();
          return Evaluate::make(Let::make(v, value, body));
        }
        Stmt body = braced_body();
        pop_scope();
        return LetStmt::make(v, value, body);
      }
      if (t.text == "allocate" && peek(1).kind == Tok::Ident) {
        next();
        Buffer b = buffer_decl(nullptr);
        push_scope();
        buffer_scopes_.back()[b->name] = b;
        Stmt body = braced_body();
        pop_scope();
        return Allocate::make(b, body);
      }
      if (t.text == "block" && peek(1).kind == Tok::Ident && at("(", 2)) return block();
      if (t.text == "attr" && peek(1).kind == Tok::Ident && at("(", 2)) return attr_stmt();
      if (t.text == "stage" && at("(", 1) && peek(2).kind == Tok::Ident && at(")", 3)) {
        next();
        next();
        std::string stage = next().text;
        next();
        Stmt st = stmt();
        const Store* store = st->as<Store>();
        if (!store) syntax_error(t.loc, "`stage(" + stage + ")` must prefix a store");
        return Store::make(store->buffer, store->indices, store->value, stage);
      }
    }
    Token start = peek();
    Expr e = expr();
    if (at("=")) {
      Token eq = next();
      const Load* l = e->as<Load>();
      if (!l) syntax_error(eq.loc, "only a buffer element can be assigned");
      Expr value = coerce(expr(), l->buffer->dtype);
      if (value->type.element_of() != l->buffer->dtype)
        syntax_error(eq.loc, "store of " + value->type.str() + " into '" + l->buffer->name + "' of " +
                                 l->buffer->dtype.str());
      if (value->type.lanes != e->type.lanes)
        syntax_error(eq.loc, "store of " + value->type.str() + " to " + std::to_string(e->type.lanes) + " lane(s)");
      return Store::make(l->buffer, l->indices, value);
    }
    return Evaluate::make(e);
  }

  Stmt attr_stmt() {
    expect_word("attr");
    Token key_token = next();
    std::optional<AttrKey> key = parse_attr_key(key_token.text);
    if (!key) syntax_error(key_token.loc, "unknown attribute '" + key_token.text + "'");
    expect("(");
    std::string name = expect_ident("an attribute's name").text;
    expect(")");
    expect("=");
    Token value_token = peek();
    Expr value = expr();
    if (!value->type.is_scalar() || !value->type.is_integer())
      syntax_error(value_token.loc, "an attribute's value must be an integer, not " + value->type.str());
    Stmt body = braced_body();
    return AttrStmt::make(*key, name, value, body);
  }

  Stmt if_stmt() {
    expect_word("if");
    expect("(");
    Token ct = peek();
    Expr cond = expr();
    expect(")");
    if (!cond->type.is_bool() || !cond->type.is_scalar())
      syntax_error(ct.loc, "if condition is " + cond->type.str() + ", not bool");
    Stmt then_case = braced_body();
    Stmt else_case;
    if (at_word("else")) {
      next();
      if (at_word("if")) else_case = if_stmt();
      else else_case = braced_body();
    }
    return IfThenElse::make(cond, then_case, else_case);
  }

  Stmt block() {
    expect_word("block");
    std::string stage = next().text;
    expect("(");
    std::vector<IterVar> ivs;
    std::vector<std::string> names;
    std::vector<Expr> bindings;
    if (!at(")")) {
      do {
        names.push_back(expect_ident("an iteration variable").text);
        expect(":");
        bool is_reduce = false;
        if (at_word("reduce")) {
          next();
          is_reduce = true;
        }
        auto [mn, ext] = range();
        expect("=");
        Token bt = peek();
        Expr binding = coerce(expr(), Index());
        if (binding->type != Index()) syntax_error(bt.loc, "binding of type " + binding->type.str() + ", not i64");
        ivs.push_back(IterVar{nullptr, mn, ext, is_reduce});
        bindings.push_back(binding);
      } while (accept(","));
    }
    expect(")");
    push_scope();
    for (size_t i = 0; i < ivs.size(); ++i) ivs[i].var = bind_var(names[i], Index());
    Expr pred;
    if (at_word("where")) {
      next();
      expect("(");
      Token pt = peek();
      pred = expr();
      expect(")");
      if (pred->type != Bool()) syntax_error(pt.loc, "block predicate is " + pred->type.str() + ", not bool");
    }
    expect("{");
    Stmt init;
    if (at_word("init") && at("{", 1)) {
      next();
      init = braced_body();
    }
    Stmt body = stmts();
    expect("}");
    pop_scope();
    return Block::make(stage, std::move(ivs), std::move(bindings), pred, init, body);
  }

  // NAME: TYPE[dims] [input|output|temp] [SCOPE] [dims(d, ...)]
  Buffer buffer_decl(std::vector<int64_t>* arg_dims) {
    Token name = expect_ident("a buffer name");
    expect(":");
    Type dtype = parse_type(expect_ident("an element type"));
    std::vector<Expr> shape = index_list(name);
    for (Expr& d : shape) d = coerce(d, Index());
    BufferRole role = BufferRole::Intermediate;
    if (at_word("input") || at_word("output") || at_word("temp")) {
      std::string r = next().text;
      role = r == "input" ? BufferRole::Input : (r == "output" ? BufferRole::Output : BufferRole::Intermediate);
    }
    MemScope scope = MemScope::Global;
    if (peek().kind == Tok::Ident && !(at_word("dims") && at("(", 1))) {
      const Token& t = next();
      std::optional<MemScope> s = find_any_scope(t.text);
      if (!s) syntax_error(t.loc, "unknown memory scope '" + t.text + "'");
      scope = *s;
    }
    bool has_dims = false;
    std::vector<int64_t> dims;
    if (at_word("dims") && at("(", 1)) {
      if (!arg_dims) syntax_error(peek().loc, "dims(...) is only for function arguments");
      next();
      next();
      has_dims = true;
      if (!at(")")) {
        do dims.push_back(expect_int("a dimension"));
        while (accept(","));
      }
      expect(")");
    }
    if (arg_dims) {
      if (!has_dims) {
        for (const Expr& d : shape) {
          int64_t v;
          if (!is_const_int(d, &v)) {
            dims.clear();
            break;
          }
          dims.push_back(v);
        }
      }
      *arg_dims = dims;
    }
    return BufferNode::make(name.text, dtype, std::move(shape), scope, role);
  }

  std::vector<Token> toks_;
  size_t pos_ = 0;
  ParseEnv* env_;
  bool declaring_sizes_ = false;
  std::vector<std::map<std::string, Var>> var_scopes_;
  std::vector<std::map<std::string, Buffer>> buffer_scopes_;
  std::unordered_set<const ExprNode*> untyped_literals_;
  std::vector<Expr> keep_alive_;
};

}  // namespace

LoweredFunc parse_func(const std::string& text, const std::string& source_name) {
  return Parser(text, source_name, nullptr).func();
}

Stmt parse_stmt(const std::string& text, ParseEnv& env, const std::string& source_name) {
  return Parser(text, source_name, &env).top_stmts();
}

Expr parse_expr(const std::string& text, ParseEnv& env, const std::string& source_name) {
  return Parser(text, source_name, &env).top_expr();
}

Stmt parse_stmt(const std::string& text) {
  ParseEnv env;
  return parse_stmt(text, env);
}

Expr parse_expr(const std::string& text) {
  ParseEnv env;
  return parse_expr(text, env);
}

}  // namespace texc

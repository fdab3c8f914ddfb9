// texc's own syntax tree of a .tex file, built from the ANTLR parse tree right after parsing
// (frontend/Parser.cpp) so that nothing else sees ANTLR types.
//
// It records what was written, not what it means: whether `Y = f(X)` is a call of an op or a size
// definition, whether `io` is a loop or a knob, is decided by semantic analysis. Every node carries
// the SourceLoc of the token a diagnostic about it should point at: the name of a definition,
// the operator of a binary expression, the callee of a call.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/SourceLoc.h"

namespace texc::ast {

struct Name {
  std::string text;
  SourceLoc loc;
};

// ---------------------------------------------------------------------------------------------
// Expressions

enum class ExprKind { IntLit, FloatLit, BoolLit, Name, DottedName, Index, Unary, Binary, Call };

struct Expr {
  ExprKind kind;
  SourceLoc loc;
  Expr(ExprKind k, SourceLoc l) : kind(k), loc(l) {}
  virtual ~Expr() = default;
  template <typename T>
  const T* as() const {
    return kind == T::kKind ? static_cast<const T*>(this) : nullptr;
  }
};
using ExprPtr = std::unique_ptr<const Expr>;

struct IntLit : Expr {
  static constexpr ExprKind kKind = ExprKind::IntLit;
  int64_t value;
  IntLit(SourceLoc l, int64_t v) : Expr(kKind, l), value(v) {}
};

struct FloatLit : Expr {
  static constexpr ExprKind kKind = ExprKind::FloatLit;
  double value;
  std::string text;  // as written, for messages
  FloatLit(SourceLoc l, double v, std::string t) : Expr(kKind, l), value(v), text(std::move(t)) {}
};

struct BoolLit : Expr {
  static constexpr ExprKind kKind = ExprKind::BoolLit;
  bool value;
  BoolLit(SourceLoc l, bool v) : Expr(kKind, l), value(v) {}
};

/// A bare identifier: an index variable, a size, a tensor, a knob, a loop, ...
struct NameRef : Expr {
  static constexpr ExprKind kKind = ExprKind::Name;
  std::string name;
  NameRef(SourceLoc l, std::string n) : Expr(kKind, l), name(std::move(n)) {}
};

/// `C.i`, `blockIdx.x`, `vdla.inp`: only in schedule arguments.
struct DottedName : Expr {
  static constexpr ExprKind kKind = ExprKind::DottedName;
  std::vector<Name> parts;
  DottedName(SourceLoc l, std::vector<Name> p) : Expr(kKind, l), parts(std::move(p)) {}
  std::string text() const {
    std::string t;
    for (const Name& p : parts) t += (t.empty() ? "" : ".") + p.text;
    return t;
  }
};

/// tensor[i0, i1, ...]; loc is the tensor's name.
struct Index : Expr {
  static constexpr ExprKind kKind = ExprKind::Index;
  std::string tensor;
  std::vector<ExprPtr> indices;
  Index(SourceLoc l, std::string t, std::vector<ExprPtr> i) : Expr(kKind, l), tensor(std::move(t)), indices(std::move(i)) {}
};

/// `-x` or `!x`; loc is the operator.
struct Unary : Expr {
  static constexpr ExprKind kKind = ExprKind::Unary;
  std::string op;
  ExprPtr operand;
  Unary(SourceLoc l, std::string o, ExprPtr e) : Expr(kKind, l), op(std::move(o)), operand(std::move(e)) {}
};

/// `a op b`; loc is the operator.
struct Binary : Expr {
  static constexpr ExprKind kKind = ExprKind::Binary;
  std::string op;
  ExprPtr lhs, rhs;
  Binary(SourceLoc l, std::string o, ExprPtr a, ExprPtr b)
      : Expr(kKind, l), op(std::move(o)), lhs(std::move(a)), rhs(std::move(b)) {}
};

struct CallArg {
  Name keyword;  // text "" for a positional argument
  ExprPtr value;
};

/// `for k in LO..HI` inside a reduction.
struct ForClause {
  Name var;
  ExprPtr lo, hi;
};

/// name(args [for clauses]): a math function, a cast, select, min/max, a reduction, or an op.
/// loc is the callee's name.
struct Call : Expr {
  static constexpr ExprKind kKind = ExprKind::Call;
  std::string callee;
  std::vector<CallArg> args;
  std::vector<ForClause> fors;
  Call(SourceLoc l, std::string c, std::vector<CallArg> a, std::vector<ForClause> f)
      : Expr(kKind, l), callee(std::move(c)), args(std::move(a)), fors(std::move(f)) {}
};

// ---------------------------------------------------------------------------------------------
// compute statements

struct IndexDecl {
  Name name;
  ExprPtr extent;  // null when it is to be inferred
};

/// T[i, j: E] = value
struct TensorDef {
  Name name;
  std::vector<IndexDecl> indices;
  ExprPtr value;
};

/// `N = expr` (a size) or `Y = op(...)` / `A, B = op(...)` (a call of an op).
struct Assign {
  std::vector<Name> targets;
  ExprPtr value;
};

struct ComputeStmt {
  // Exactly one is set.
  std::unique_ptr<TensorDef> tensor_def;
  std::unique_ptr<Assign> assign;
};

// ---------------------------------------------------------------------------------------------
// schedule blocks

struct SchedArg {
  Name keyword;   // text "" for positional
  ExprPtr value;  // a DottedName or an expression
};

struct SchedItem;

struct SchedApply {
  std::vector<Name> results;
  Name primitive;
  std::vector<SchedArg> args;
};

struct KnobValue {
  int64_t value;
  bool is_bool;
  SourceLoc loc;
};

struct KnobDecl {
  Name name;
  std::vector<KnobValue> values;  // `in [...]`
  ExprPtr factors_of;             // `in factors(N)`, else null
};

struct SchedIf {
  SourceLoc loc;  // of `if`
  ExprPtr cond;
  std::vector<SchedItem> then_items;
  std::vector<SchedItem> else_items;
};

struct SchedItem {
  // Exactly one is set.
  std::unique_ptr<SchedApply> apply;
  std::unique_ptr<KnobDecl> knob;
  std::unique_ptr<SchedIf> if_;
};

struct ScheduleBlock {
  Name target;
  std::vector<SchedItem> items;
};

// ---------------------------------------------------------------------------------------------
// top level

/// A parameter of an op: a tensor `X: f32[N, C]`, an int attribute `stride: int = 1` or a float
/// attribute `eps: f32 = 1e-5` (a float type without a shape).
struct OpParam {
  Name name;
  Name type;                  // "f32", "int", ...
  bool has_shape = false;
  bool is_const = false;      // `Wt: const f32[...]`: the same values on every call
  SourceLoc const_loc;
  std::vector<ExprPtr> dims;  // the shape of a tensor parameter
  ExprPtr default_value;      // attributes only; may be null
  ExprPtr domain_lo, domain_hi;  // `in LO..HI`: the values the op is defined for; may be null
  SourceLoc domain_loc;          // of `in`

  bool is_float_attribute() const {
    return !has_shape && (type.text == "f16" || type.text == "bf16" || type.text == "f32" || type.text == "f64");
  }
  /// A compile-time constant rather than a tensor.
  bool is_attribute() const { return type.text == "int" || is_float_attribute(); }
};

/// `compute TARGET { ... }`: an op's implementation on the targets a `schedule TARGET` block
/// applies to, used there instead of the definition (which remains the op's meaning: the
/// reference interpreter evaluates the definition).
struct ComputeVariant {
  Name target;
  ExprPtr guard;  // `compute cpu if KH == 1 { ... }`: only where this holds; may be null
  std::vector<ComputeStmt> compute;
  SourceLoc loc;  // of the `compute` keyword
};

/// An `op` or an `intrinsic` (which has a lowering instead of schedules).
struct OpDecl {
  Name name;
  bool is_intrinsic = false;
  std::vector<OpParam> params;
  std::vector<Name> outputs;
  std::vector<ComputeStmt> compute;              // the definition
  std::vector<ComputeVariant> compute_variants;  // per-target implementations, in source order
  std::vector<ScheduleBlock> schedules;
  // intrinsics: `lower extern "sym"` (lower_kind "extern") or `lower NAME` (lower_kind NAME)
  std::string lower_kind;
  std::string lower_symbol;
  SourceLoc lower_loc;
  // `lower llvm "..." requires "f1,f2"`: the CPU features the instruction needs (LLVM names)
  std::vector<std::string> lower_requires;
  SourceLoc requires_loc;
};

struct Import {
  SourceLoc loc;
  std::string module;  // "nn.conv2d" for `import nn.conv2d`, "" for a path
  std::string path;    // "my/ops.tex" for `import "my/ops.tex"`
};

struct ParamDecl {
  Name name;
  ExprPtr value;
};

/// One parsed file; its declarations in source order.
struct File {
  uint32_t file_id = 0;
  std::string path;
  std::vector<Import> imports;
  std::vector<ParamDecl> params;
  std::vector<OpDecl> ops;  // ops and intrinsics
};

}  // namespace texc::ast

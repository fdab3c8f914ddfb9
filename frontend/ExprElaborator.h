// Checking and elaboration of the expressions of compute blocks into typed IR.
//
// One ExprElaborator handles the right-hand side of one tensor definition. It resolves names
// (index variables, sizes, tensors), infers types (language.md: a float literal takes the other
// operand's float type, f32 when there is none; an int literal, or a size, takes the other
// operand's type; otherwise both operands must have the same type), builds Loads, Selects, casts,
// math calls and Reduce nodes (reduction variables get ranges starting at 0; `r in LO..HI` reads
// as var + LO), and records what the caller needs afterwards: the bare uses of the definition's
// index variables as subscripts (for extent inference) and every read with the ranges needed to
// prove it out of bounds.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "frontend/Ast.h"
#include "frontend/AttainedBounds.h"
#include "frontend/Scope.h"
#include "ir/IR.h"

namespace texc {

/// Names of callables other than the built-in functions, for messages.
/// Is `name` a function built into expressions (math, select, reductions, casts)?
bool is_builtin_function(const std::string& name);

struct CallableNames {
  std::set<std::string> ops;
  std::set<std::string> intrinsics;
};

/// `X[.., i, ..]` where i is an axis of the tensor being defined: i's extent can be X's dimension.
struct BareIndexUse {
  int axis;
  int64_t extent;
  std::string tensor;
  SourceLoc loc;
};

/// A read of a tensor, to be checked against its shape once the axes' extents are known.
struct TensorRead {
  Buffer buffer;
  std::vector<Expr> indices;
  std::vector<SourceLoc> index_locs;
  bool guarded;  // inside a branch of select(): only read when the condition holds
};

class ExprElaborator {
 public:
  ExprElaborator(const Scope& scope, const CallableNames& callables) : scope_(&scope), callables_(callables) {}

  /// The elaborated value of a definition's right-hand side; untyped literals become i32 / f32.
  Expr value(const ast::Expr& e);

  const std::vector<BareIndexUse>& bare_uses() const { return bare_uses_; }
  const std::vector<TensorRead>& reads() const { return reads_; }
  /// [0, extent - 1] of every reduction variable created so far.
  const VarRanges& reduction_ranges() const { return reduction_ranges_; }

 private:
  /// An expression with its literal-ness: untyped literals (and sizes) adapt to the other operand.
  struct Typed {
    Expr e;
    enum class Lit { None, Int, Float } lit = Lit::None;
    int64_t int_value = 0;
    double float_value = 0;
    std::string text;  // of a float literal, for messages
    SourceLoc loc;     // of a literal, for messages about it
  };

  Typed elaborate(const ast::Expr& e);
  Typed elaborate_node(const ast::Expr& e);
  Typed name(const ast::NameRef& n);
  Typed index(const ast::Index& i);
  Typed unary(const ast::Unary& u);
  Typed binary(const ast::Binary& b);
  Typed call(const ast::Call& c);
  Typed reduction(const ast::Call& c);
  Typed cast(const ast::Call& c, Type t);
  Typed math(const ast::Call& c);
  Typed select(const ast::Call& c);

  static Typed int_lit(int64_t v);
  static Typed float_lit(double v, std::string text);
  static Typed typed(Expr e) {
    Typed t;
    t.e = std::move(e);
    return t;
  }

  /// x as an expression of type t (x a literal, or already of type t).
  Expr adapt(const Typed& x, Type t, const std::string& op, SourceLoc loc);
  /// x with its literal fixed to the default type (int_type for integers, f32 for floats).
  Expr materialize(const Typed& x, Type int_type, SourceLoc loc);
  /// Both operands of a binary operation at one type.
  std::pair<Expr, Expr> unify(const Typed& a, const Typed& b, const std::string& op, SourceLoc loc);

  const Scope* scope_;
  const CallableNames& callables_;
  int guard_depth_ = 0;  // > 0 inside a select branch
  int index_depth_ = 0;  // > 0 inside a subscript
  std::vector<BareIndexUse> bare_uses_;
  std::vector<TensorRead> reads_;
  VarRanges reduction_ranges_;
};

/// The location where an expression starts (its leftmost token).
SourceLoc start_loc(const ast::Expr& e);

}  // namespace texc

// The simplifier's class, shared by its source files and private to them (include it from
// ir/Simplify*.cpp only). The public interface and its guarantees are in ir/Simplify.h.
//
// One IRMutator walks expressions and statements bottom-up; each file defines the rules of one
// kind of node or operator:
//   Simplify.cpp         entry points, the dispatch of binary operators, scoped facts
//                        (variable ranges, substitutions), and the nodes that carry them
//                        (Variable, Let, LetStmt, Reduce, Ramp)
//   SimplifyArith.cpp    constant folding and casts; +, -, * in canonical linear form
//                        (ir/LinearForm.h); / and % by constants; broadcasts and ramps
//   SimplifyCompare.cpp  comparisons and min/max, decided by interval bounds
//   SimplifyLogical.cpp  &&, ||, !, select
//   SimplifyStmt.cpp     statements: loops, ifs (with the facts of their conditions), blocks,
//                        allocations, no-op removal
#pragma once
#include <memory>
#include <optional>
#include <unordered_map>

#include "ir/Bounds.h"
#include "ir/IRMutator.h"
#include "ir/LinearForm.h"

namespace texc::simplify_internal {

inline bool is_index_type(Type t) { return t.is_int() && t.bits == 64 && t.is_scalar(); }

inline std::optional<int64_t> const_int(const Expr& e) {
  int64_t v;
  if (is_const_int(e, &v)) return v;
  return std::nullopt;
}

inline const FloatImm* const_float(const Expr& e) { return e ? e->as<FloatImm>() : nullptr; }

/// The comparison that holds exactly when `op` does not (< -> >=, == -> !=).
BinaryOp negate_comparison(BinaryOp op);
/// The comparison with its operands swapped (a < b <=> b > a).
BinaryOp mirror_comparison(BinaryOp op);

class Simplifier : public IRMutator {
 public:
  explicit Simplifier(const VarIntervals& vars) : ranges_(vars) {}

  /// The simplified `a op b` of already simplified operands (Simplify.cpp).
  Expr simplify_binary(BinaryOp op, Expr a, Expr b);

  using IRMutator::mutate_expr;
  using IRMutator::mutate_stmt;

 protected:
  // --- scoped facts (Simplify.cpp)

  /// Gives v the interval i until the end of the scope.
  class ScopedRange {
   public:
    ScopedRange(Simplifier* s, const Variable* v, Interval i) : s_(s), v_(v) {
      auto it = s_->ranges_.find(v);
      if (it != s_->ranges_.end()) old_ = it->second;
      s_->ranges_[v] = i;
    }
    ~ScopedRange() {
      if (old_) s_->ranges_[v_] = *old_;
      else s_->ranges_.erase(v_);
    }

   private:
    Simplifier* s_;
    const Variable* v_;
    std::optional<Interval> old_;
  };

  /// Replaces v by e until the end of the scope (e = v shadows an outer substitution).
  class ScopedSubst {
   public:
    ScopedSubst(Simplifier* s, const Variable* v, Expr e) : s_(s), v_(v) {
      auto it = s_->subst_.find(v);
      if (it != s_->subst_.end()) old_ = it->second;
      s_->subst_[v] = std::move(e);
    }
    ~ScopedSubst() {
      if (old_) s_->subst_[v_] = old_;
      else s_->subst_.erase(v_);
    }

   private:
    Simplifier* s_;
    const Variable* v_;
    Expr old_;
  };

  Interval bounds(const Expr& e) { return bounds_of(e, ranges_); }
  /// The value of a scalar condition when the bounds decide it.
  std::optional<bool> prove(const Expr& cond);
  /// The range of a loop variable of a loop with the given (simplified) min and extent.
  Interval loop_range(const Expr& min, const Expr& extent);

  // --- constant folding and arithmetic (SimplifyArith.cpp)

  Expr fold_constants(BinaryOp op, const Expr& a, const Expr& b);
  void fold_div_mod_pairs(LinearForm& l);
  Expr arithmetic(BinaryOp op, Expr a, Expr b);
  Expr sum(const Binary* op, const Expr& self);
  std::optional<int64_t> fixed_quotient(const Expr& x, int64_t c);
  Expr div_atom(const Expr& x, int64_t c);
  Expr mod_atom(const Expr& x, int64_t c);
  Expr div_mod(BinaryOp op, Expr a, Expr b);
  Expr vector_binary(BinaryOp op, Expr a, Expr b);

  // --- comparisons and min/max (SimplifyCompare.cpp)

  Expr min_max(BinaryOp op, Expr a, Expr b);
  Expr comparison(BinaryOp op, Expr a, Expr b);

  // --- boolean logic (SimplifyLogical.cpp)

  Expr logical(BinaryOp op, Expr a, Expr b);
  Expr simplify_not(const Expr& a);

  // --- expression nodes

  Expr mutate(const Variable* op, const Expr& self) override;  // Simplify.cpp
  Expr mutate(const Binary* op, const Expr& self) override;    // Simplify.cpp
  Expr mutate(const Not* op, const Expr& self) override;       // SimplifyLogical.cpp
  Expr mutate(const Select* op, const Expr& self) override;    // SimplifyLogical.cpp
  Expr mutate(const Cast* op, const Expr& self) override;      // SimplifyArith.cpp
  Expr mutate(const Ramp* op, const Expr& self) override;      // Simplify.cpp
  Expr mutate(const Let* op, const Expr& self) override;       // Simplify.cpp
  Stmt mutate(const LetStmt* op, const Stmt& self) override;   // Simplify.cpp
  template <typename LetNode, typename Body>
  Body simplify_let(const LetNode* op, const Body& self);      // Simplify.cpp
  Expr mutate(const Reduce* op, const Expr& self) override;    // Simplify.cpp

  // --- statements (SimplifyStmt.cpp)

  void collect_facts(const Expr& cond, bool truth, std::vector<std::pair<const Variable*, Interval>>& out);
  Stmt mutate_with_facts(const Stmt& s, const Expr& cond, bool truth);

  Stmt mutate(const Store* op, const Stmt& self) override;
  Stmt mutate(const For* op, const Stmt& self) override;
  Stmt mutate(const Block* op, const Stmt& self) override;
  Stmt mutate(const Allocate* op, const Stmt& self) override;
  Stmt mutate(const Seq* op, const Stmt& self) override;
  Stmt mutate(const IfThenElse* op, const Stmt& self) override;
  Stmt mutate(const Evaluate* op, const Stmt& self) override;

 private:
  VarIntervals ranges_;
  // Variables replaced while simplifying (lets of constants, loops of extent 1); a variable mapped
  // to itself shadows an outer substitution.
  std::unordered_map<const Variable*, Expr> subst_;
};

}  // namespace texc::simplify_internal

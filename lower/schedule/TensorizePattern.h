// The structural part of tensorize (lower/schedule/Tensorize.cpp, TensorizeMma.cpp): the stored
// value of a nest matched against an intrinsic's pattern, operator by operator, mapping the
// pattern's buffers to the nest's in order of first appearance; a mismatch says which part.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "ir/Diagnostics.h"
#include "ir/IR.h"
#include "ir/Op.h"
#include "ir/IROperators.h"
#include "ir/Simplify.h"

namespace texc::tensorize {

struct Mismatch {
  std::string what;
};

// One access matched between the loop nest and the intrinsic.
struct AccessPair {
  Buffer actual, pattern;
  std::vector<Expr> actual_indices, pattern_indices;
};

// Structural comparison of the nest's stored value with the intrinsic's, building the buffer map.
class PatternMatcher {
 public:
  std::vector<AccessPair> accesses;
  std::vector<std::pair<Buffer, Buffer>> buffer_map;  // (pattern, actual) in order of first appearance

  void map_buffer(const Buffer& actual, const Buffer& pattern) {
    for (auto& [p, a] : buffer_map) {
      if (p == pattern && a == actual) return;
      if (p == pattern || a == actual)
        throw Mismatch{"expression: '" + actual->name + "' is used where the intrinsic uses '" + pattern->name + "'"};
    }
    if (actual->dtype != pattern->dtype)
      throw Mismatch{"element type: '" + actual->name + "' is " + actual->dtype.str() + " but the intrinsic's '" +
                     pattern->name + "' is " + pattern->dtype.str()};
    buffer_map.push_back({pattern, actual});
  }

  // The value a Block stores (its Store body) against the pattern stage's, in its accumulating
  // form (out = out + source) for a reduction.
  void match_stored_value(const Block& block, const Stage& pattern) {
    const Store* store = block.body->as<Store>();
    TEXC_CHECK(store) << "block of " << block.stage << " does not store";
    const Reduce* pattern_reduce = pattern.body->as<Reduce>();
    std::vector<Expr> pattern_index;
    for (const IterVar& a : pattern.axes) pattern_index.push_back(a.var);
    Expr pattern_value = pattern_reduce ? Reduce::combine(pattern_reduce->reduce_kind,
                                                          Load::make(pattern.buffer, pattern_index), pattern_reduce->source)
                                        : pattern.body;
    map_buffer(store->buffer, pattern.buffer);
    accesses.push_back({store->buffer, pattern.buffer, store->indices, pattern_index});
    match(store->value, pattern_value);
  }

  void match(const Expr& a, const Expr& p) {
    const Load *actual_load = a->as<Load>(), *pattern_load = p->as<Load>();
    if (actual_load && pattern_load) {
      map_buffer(actual_load->buffer, pattern_load->buffer);
      accesses.push_back({actual_load->buffer, pattern_load->buffer, actual_load->indices, pattern_load->indices});
      return;
    }
    if (a->kind != p->kind || a->type != p->type) fail(a, p);
    switch (a->kind) {
      case ExprKind::IntImm:
        if (a->as<IntImm>()->value != p->as<IntImm>()->value) fail(a, p);
        return;
      case ExprKind::FloatImm:
        if (a->as<FloatImm>()->value != p->as<FloatImm>()->value) fail(a, p);
        return;
      case ExprKind::Binary: {
        const Binary *x = a->as<Binary>(), *y = p->as<Binary>();
        if (x->op != y->op) fail(a, p);
        match(x->a, y->a);
        match(x->b, y->b);
        return;
      }
      case ExprKind::Not:
        return match(a->as<Not>()->a, p->as<Not>()->a);
      case ExprKind::Cast:
        return match(a->as<Cast>()->value, p->as<Cast>()->value);
      case ExprKind::Select: {
        const Select *x = a->as<Select>(), *y = p->as<Select>();
        match(x->cond, y->cond);
        match(x->true_value, y->true_value);
        match(x->false_value, y->false_value);
        return;
      }
      case ExprKind::Call: {
        const Call *x = a->as<Call>(), *y = p->as<Call>();
        if (x->name != y->name || x->call_kind != y->call_kind || x->args.size() != y->args.size()) fail(a, p);
        for (size_t i = 0; i < x->args.size(); ++i) match(x->args[i], y->args[i]);
        return;
      }
      default:
        fail(a, p);
    }
  }

 private:
  static std::string describe(const Expr& e) {
    switch (e->kind) {
      case ExprKind::IntImm:
        return "the constant " + std::to_string(e->as<IntImm>()->value);
      case ExprKind::FloatImm:
        return "the constant " + std::to_string(e->as<FloatImm>()->value);
      case ExprKind::Binary:
        return std::string("'") + binary_op_symbol(e->as<Binary>()->op) + "'";
      case ExprKind::Not:
        return "'!'";
      case ExprKind::Cast:
        return "a cast to " + e->type.str();
      case ExprKind::Select:
        return "a select";
      case ExprKind::Call:
        return "a call of '" + e->as<Call>()->name + "'";
      case ExprKind::Load:
        return "a load of '" + e->as<Load>()->buffer->name + "'";
      case ExprKind::Variable:
        return "the variable '" + e->as<Variable>()->name + "'";
      default:
        return "an expression";
    }
  }
  [[noreturn]] static void fail(const Expr& a, const Expr& p) {
    if (a->type != p->type)
      throw Mismatch{"element type: the nest computes " + describe(a) + " of type " + a->type.str() +
                     " where the intrinsic computes " + describe(p) + " of type " + p->type.str()};
    throw Mismatch{"expression: the nest has " + describe(a) + " where the intrinsic has " + describe(p)};
  }
};

inline Expr flat_offset(const std::vector<Expr>& indices, const Buffer& buffer) {
  Expr offset = make_int(0);
  for (size_t d = 0; d < indices.size(); ++d) offset = offset * buffer->shape[d] + indices[d];
  return simplify(offset);
}

}  // namespace texc::tensorize

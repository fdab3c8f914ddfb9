#include "lower/gpu/LdMatrix.h"

#include <optional>
#include <unordered_set>
#include <vector>

#include "ir/ConstEval.h"
#include "ir/IRMutator.h"
#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "ir/Intrinsics.h"
#include "ir/ModulusRemainder.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lower/gpu/MmaIntrinsics.h"

namespace texc {

namespace {

constexpr int64_t kLanes = 32;
constexpr int64_t kRowBytes = 16;  // one row of an 8 x 8 b16 matrix, and the alignment ldmatrix needs

// An operand's elements: the shared buffer they are all loaded from and each one's index.
struct OperandLoads {
  Buffer buffer;
  std::vector<Expr> indices;
};

std::optional<OperandLoads> operand_loads(const std::vector<Expr>& elements) {
  OperandLoads loads;
  for (const Expr& e : elements) {
    const Load* load = e->as<Load>();
    if (!load || load->indices.size() != 1 || !load->type.is_scalar()) return std::nullopt;
    if (loads.buffer && loads.buffer.get() != load->buffer.get()) return std::nullopt;
    loads.buffer = load->buffer;
    loads.indices.push_back(load->indices[0]);
  }
  if (!loads.buffer || loads.buffer->scope != MemScope::Shared) return std::nullopt;
  return loads;
}

// offsets[lane][r]: element r's index at `lane` minus element 0's at lane 0; nullopt unless that
// is the same for two sets of values of the other variables (the operand's shape within the warp
// does not move with the loops around it).
using Offsets = std::vector<std::vector<int64_t>>;

std::optional<Offsets> lane_offsets(const std::vector<Expr>& indices, const Variable* lane) {
  std::vector<const Variable*> others;
  std::unordered_set<const Variable*> seen{lane};
  for (const Expr& index : indices)
    for_each_expr(index, [&](const Expr& e) {
      const Variable* v = e->as<Variable>();
      if (v && seen.insert(v).second) others.push_back(v);
    });
  std::optional<Offsets> first;
  for (int sample = 0; sample < 2; ++sample) {
    VarValues values;
    for (size_t i = 0; i < others.size(); ++i) values[others[i]] = sample == 0 ? 0 : int64_t(3 + 5 * i);
    Offsets table(kLanes, std::vector<int64_t>(indices.size()));
    std::optional<int64_t> origin;
    for (int64_t l = 0; l < kLanes; ++l)
      for (size_t r = 0; r < indices.size(); ++r) {
        values[lane] = l;
        std::optional<int64_t> x = eval_int(indices[r], values);
        if (!x) return std::nullopt;
        if (!origin) origin = *x;
        table[size_t(l)][r] = *x - *origin;
      }
    if (first && *first != table) return std::nullopt;
    first = std::move(table);
  }
  return first;
}

// The row starts of an ldmatrix that loads the operand, relative to lane 0's element 0, as the
// affine function start(lane) = (lane % 8) * row + (lane / 8 % 2) * second + (lane / 16) * third
// of the lane that names them; nullopt if the layout is not ldmatrix's.
struct RowStarts {
  int64_t row = 0, second = 0, third = 0;
  int64_t at(int64_t lane) const { return lane % 8 * row + lane / 8 % 2 * second + lane / 16 * third; }
};

std::optional<RowStarts> row_starts(const Offsets& off, int matrices, int element_bytes, bool trans) {
  const int per_register = 4 / element_bytes;
  // The row start lane 8*m + i names, read off the lane and element that receive its first unit.
  auto start = [&](int m, int i) {
    return trans ? off[size_t(i / 2)][size_t(m * per_register + i % 2)] : off[size_t(4 * i)][size_t(m * per_register)];
  };
  RowStarts rs;
  rs.row = start(0, 1) - start(0, 0);
  rs.second = matrices > 1 ? start(1, 0) : 0;
  rs.third = matrices > 2 ? start(2, 0) : 0;
  for (int m = 0; m < matrices; ++m)
    for (int i = 0; i < 8; ++i)
      if (start(m, i) != rs.at(8 * m + i)) return std::nullopt;
  // every element where ldmatrix puts it
  for (int64_t l = 0; l < kLanes; ++l)
    for (int m = 0; m < matrices; ++m)
      for (int e = 0; e < per_register; ++e) {
        LdMatrixSource s = ldmatrix_source(make_int(l), m, e, element_bytes, trans);
        std::optional<int64_t> source = eval_int(s.source), offset = eval_int(s.offset);
        if (!source || !offset || off[size_t(l)][size_t(m * per_register + e)] != rs.at(*source) + *offset)
          return std::nullopt;
      }
  return rs;
}

// The operand's elements as ldmatrix calls, or nullopt where ldmatrix cannot load them.
std::optional<std::vector<Expr>> ldmatrix_elements(const std::vector<Expr>& elements, const Var& lane) {
  std::optional<OperandLoads> loads = operand_loads(elements);
  if (!loads) return std::nullopt;
  const Type elem = loads->buffer->dtype;
  const int element_bytes = elem.bytes();
  if (element_bytes != 2 && element_bytes != 4) return std::nullopt;
  const int per_register = 4 / element_bytes;
  const int matrices = int(elements.size()) / per_register;
  if (int(elements.size()) % per_register != 0 || (matrices != 1 && matrices != 2 && matrices != 4)) return std::nullopt;
  std::optional<Offsets> off = lane_offsets(loads->indices, lane.get());
  if (!off) return std::nullopt;
  for (bool trans : {false, true}) {
    if (trans && element_bytes != 2) continue;  // .trans moves 16-bit units
    std::optional<RowStarts> rs = row_starts(*off, matrices, element_bytes, trans);
    if (!rs) continue;
    const Expr l = Expr(lane);
    Expr start = substitute(loads->indices[0], VarMap{{lane.get(), make_int(0)}}) + l % make_int(8) * make_int(rs->row);
    if (matrices > 1) start = start + l / make_int(8) % make_int(2) * make_int(rs->second);
    if (matrices > 2) start = start + l / make_int(16) * make_int(rs->third);
    start = simplify(start);
    if (provable_alignment(modulus_remainder(start), element_bytes, kRowBytes) < kRowBytes) return std::nullopt;
    const Expr row = Load::make(loads->buffer, {start});
    std::vector<Expr> out;
    for (int m = 0; m < matrices; ++m)
      for (int e = 0; e < per_register; ++e)
        out.push_back(make_intrinsic_call(Intrinsic::LdMatrix, elem,
                                          {row, make_int(matrices), make_int(trans ? 1 : 0), make_int(m), make_int(e)}));
    return out;
  }
  return std::nullopt;
}

class LdMatrixRewriter : public IRMutator {
 protected:
  using IRMutator::mutate;

  Stmt mutate(const For* f, const Stmt& self) override {
    if (f->for_kind != ForKind::ThreadBound || f->thread_tag != "threadIdx.x") return IRMutator::mutate(f, self);
    const Var outer = lane_;
    lane_ = f->var;
    Stmt out = IRMutator::mutate(f, self);
    lane_ = outer;
    return out;
  }

  Stmt mutate(const Evaluate* op, const Stmt& self) override {
    const Call* mma = op->value->as<Call>();
    std::optional<Intrinsic> which = mma ? intrinsic_of(mma) : std::nullopt;
    if (!which || !is_mma(*which) || !lane_) return self;
    const MmaShape shape = mma_shape(*which);
    std::vector<Expr> args = mma->args;
    bool changed = false;
    for (auto [first, count] : {std::pair{4, shape.a_elements}, std::pair{4 + shape.a_elements, shape.b_elements}}) {
      std::vector<Expr> elements(args.begin() + first, args.begin() + first + count);
      if (std::optional<std::vector<Expr>> loaded = ldmatrix_elements(elements, lane_)) {
        std::copy(loaded->begin(), loaded->end(), args.begin() + first);
        changed = true;
      }
    }
    return changed ? Evaluate::make(make_intrinsic_call(*which, mma->type, args)) : self;
  }

 private:
  Var lane_;  // the loop bound to threadIdx.x around the statement
};

}  // namespace

Stmt use_ldmatrix(const Stmt& body) { return LdMatrixRewriter().mutate_stmt(body); }

}  // namespace texc

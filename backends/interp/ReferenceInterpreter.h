// ReferenceInterpreter: the oracle. Evaluates an OpDef (ir/Op.h) directly from its compute
// definitions, independent of any lowering or schedule, so every compiled or lowered op can be
// checked against it.
//
// Semantics (language.md):
// - floating point is computed and accumulated in double; a value is rounded to its tensor's
//   element type (f32, f16) only when a stage stores it and at explicit casts;
// - integers are exact with wrap-around at the declared width after every operation; integer `/`
//   and `%` are floor division and modulo; `>>` is arithmetic on signed types (ScalarOps.h);
// - `select` evaluates only the chosen branch; && and || short-circuit;
// - sum/max/min/prod reduce over every axis of a Reduce, wherever it appears in a body (a body may
//   hold several, or a Reduce inside a larger expression such as `sum(...) / 9.0`).
//
// Alongside each float value it computes its condition magnitude M: what the value's rounding
// error scales with, whatever the order of evaluation (the check's tolerance, Check.h). M is the
// value's first-order error bound in units of the relative error of its operations: an input or
// constant has M = |x|; a + b and a - b add the operands' M (so a sum with cancellation has the
// sum of its terms' magnitudes, not its small result); a * b multiplies them; a / b has
// (M_a + |a/b| M_b) / |b|; a sum reduction adds its terms' M, a product multiplies them, max and
// min take the chosen operand's; a math function f(x) has |f(x)| + |f'(x)| M_x (floor and ceil:
// |f(x)|); a stored value has at least its own |value|. Integer values have M = |value|.
//
// Evaluation is demand-driven: evaluate_point computes one element of any stage (usually an
// output), evaluating the elements of other stages it reads on demand and caching them per stage
// (a dense array with computed flags), so a large output can be checked on a sample of points.
// A read outside a tensor's bounds, an integer division by zero, or a construct that has no
// meaning in a compute definition throws InterpError naming the tensor, the index and the stage
// point being evaluated; it never crashes.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backends/interp/ScalarOps.h"
#include "backends/interp/Tensor.h"
#include "ir/Op.h"

namespace texc {

class ReferenceInterpreter {
 public:
  /// `inputs` holds one tensor per op.inputs, in order, with the buffer's element type and shape
  /// (a mismatch throws InterpError). The op and the tensors must outlive the interpreter.
  ReferenceInterpreter(const OpDef& op, std::vector<const Tensor*> inputs);
  ~ReferenceInterpreter();

  /// One element of stage `name` (an output or an intermediate tensor) at `index`, rounded to the
  /// stage's element type: `.f` for float types, `.i` for integer and bool types. With
  /// `magnitude`, also its condition magnitude (see above; infinite where the bound is).
  Value evaluate_point(const std::string& name, const std::vector<int64_t>& index, double* magnitude = nullptr);
  /// Every element of stage `name`.
  Tensor evaluate_all(const std::string& name);

  /// The element type and shape of stage `name` (throws InterpError for an unknown name).
  Type stage_dtype(const std::string& name) const;
  std::vector<int64_t> stage_shape(const std::string& name) const;

 private:
  struct StageCache;
  StageCache& stage_named(const std::string& name) const;
  struct TensorSource;
  /// A value with its condition magnitude.
  struct Evaluated {
    Value v;
    double m = 0;
  };
  Evaluated evaluate_stage_point(StageCache& stage, const int64_t* index);
  Evaluated eval(const Expr& e);
  Evaluated eval_reduce(const struct Reduce* r);
  Evaluated eval_load(const struct Load* load);
  int64_t eval_index(const Expr& e);
  Evaluated lookup(const Variable* v) const;
  [[noreturn]] void fail(const std::string& what) const;

  const OpDef& op_;
  std::vector<std::unique_ptr<StageCache>> stages_;
  // What a Load of each buffer reads: an input tensor or a stage (few, so searched linearly).
  std::vector<TensorSource> sources_;
  // Variable bindings, innermost last (few at a time, so a linear search is fastest).
  std::vector<std::pair<const Variable*, Evaluated>> bindings_;
  // The stage points being evaluated, outermost first (for error messages).
  std::vector<std::pair<const StageCache*, std::vector<int64_t>>> evaluating_;
};

}  // namespace texc

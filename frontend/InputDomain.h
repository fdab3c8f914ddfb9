// Input domains: `var: f32[C] in 0.0..4.0` declares the values an op is defined for (a variance
// is not negative, an index lies in its table). The domain is half-open like a reduction's range:
// floats in [LO, HI), integers LO to HI - 1. `texc run` and `texc tune` draw an input's random
// values there (--input-range overrides it), so the check of an op whose definition has a sqrt or a
// log of an input compares numbers, not NaN. An op that passes an input of its own whole to a
// parameter with a domain (a ResNet block calling batch_norm) inherits the domain for that input
// unless it declares one itself.
#pragma once
#include <utility>

#include "frontend/Ast.h"
#include "frontend/Scope.h"
#include "ir/Type.h"

namespace texc {

/// The domain [lo, hi) declared on tensor parameter `param` of element type `type`. Its bounds are
/// compile-time numbers: float or int literals, sizes and attributes in `scope`, + - * / of them.
/// Located errors: a bound that is not such a number; lo >= hi, or for an integer type a domain
/// with no value of the type; an integer type's bound that is not a whole number.
std::pair<double, double> elaborate_input_domain(const ast::OpParam& param, Type type, const Scope& scope);

}  // namespace texc

// ModulusRemainder: what is known of an integer index expression modulo constants, to prove the
// alignment of vector loads and stores (e.g. the base `xo * 8` of a ramp is 0 mod 8).
//
// An expression e described by {modulus m, remainder r} satisfies e == r (mod m) for every value of
// its variables; m == 0 means e == r exactly, m == 1 means nothing is known. Variables not in
// `known` are unknown; the analysis looks through + - * << and integer casts that do not narrow.
#pragma once
#include <cstdint>
#include <unordered_map>

#include "ir/IR.h"

namespace texc {

struct ModulusRemainder {
  int64_t modulus = 1;
  int64_t remainder = 0;
};

using KnownModuli = std::unordered_map<const Variable*, ModulusRemainder>;

ModulusRemainder modulus_remainder(const Expr& e, const KnownModuli& known = {});

/// The largest power of two (at most `cap`) that divides `element_bytes * e` for every value of e.
int64_t provable_alignment(const ModulusRemainder& mr, int64_t element_bytes, int64_t cap);

}  // namespace texc

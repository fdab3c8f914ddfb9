// unswitch_ragged_vectors: vectorized loops with a ragged tail keep vector code.
//
// Assumes: runs after partition_loops (which separates the tails it can solve) and right before
// vectorize_loops.
//
// Guarantees: the result computes exactly what the input computes. Two rewrites of Vectorized
// loops whose body vectorize_loops turns into vector code:
// - Lane guards. A Vectorized loop over v of constant extent L whose body has ifs on v (the tail
//   guard of a split that partition_loops could not separate, e.g. `f%3*32 + v < 80` when the
//   split loop is fused with another) is unswitched when every conjunct of those conditions that
//   mentions v is an i64 comparison linear in v using no variable bound inside the body, no such
//   if has an else, and every such if has all of them (the lanes that pass are one interval [lo,
//   hi]). It becomes `if (each guard holds on the first and the last lane) {the loop without the
//   guards} else {tail}`: the tail binds v.tail_lo = lo and v.tail_n = hi - lo + 1 (at least 0)
//   and runs, for each power of two w <= L, the loop without the guards as a Vectorized loop of w
//   lanes from v.tail_lo plus the binary digits of v.tail_n above w, when v.tail_n has the digit w
//   (32 lanes: 16, 8, 4, 2 and one serial lane). The check is hoisted as far out as it is
//   invariant: into the outermost loop whose variable it uses and whose body binds none of its
//   variables, whose body is then versioned once (`if (checks) body with full vectors else body
//   with tails`), so the steady version is as straight as a dividing shape's; else it stays at
//   the loop. A remark at the vectorize primitive says so.
// - Wide ragged vectors. A Vectorized loop of a constant L > 16 lanes that is not a power of two
//   (the tightened tail of a split: 31 of a 32-lane split) becomes consecutive Vectorized loops of
//   the largest power of two <= the lanes left while more than 16 are left, then the rest (31:
//   16 + 15), so no vector is split lane by lane by the backend.
// Leaves alone: every other loop, and loops whose guards or body do not qualify (vectorize_loops
// then runs them as scalar code with a remark that says why).
#pragma once
#include <optional>
#include <vector>

#include "ir/IR.h"

namespace texc {

Stmt unswitch_ragged_vectors(const Stmt& s);

/// The lane guards of a Vectorized loop as above (each distinct conjunct once), or nullopt when
/// its ifs on its variable do not qualify or there are none.
std::optional<std::vector<Expr>> lane_guards(const For* loop);

/// `body` with the conjuncts `guards` removed from every if condition (an if left with none
/// becomes its then-branch).
Stmt drop_lane_guards(const Stmt& body, const std::vector<Expr>& guards);

}  // namespace texc

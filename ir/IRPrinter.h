// The readable text form of the IR: expressions, loop ASTs, lowered functions and ops.
//
// The loop-AST form is exactly what ir/IRParser.h reads back (print -> parse -> print is the
// identity, and the parsed IR is structurally equal to the printed one):
//
//   func matmul(A: f32[64, 32] input, B: f32[32, 16] input, C: f32[64, 16] output) {
//     parallel C.i in 0..64 {
//       for C.j in 0..16 {
//         block C(i: 0..64 = C.i, j: 0..16 = C.j, k: reduce 0..32 = C.k) where (C.i < 64) {
//           init {
//             C[i, j] = 0.0f
//           }
//           C[i, j] = C[i, j] + A[i, k]*B[k, j]
//         }
//       }
//     }
//   }
//
// Statements: `for|parallel|vectorized|unrolled|tensorized NAME in RANGE { }`,
// `bound(threadIdx.x) NAME in RANGE { }`, `tensorized(vdla.gemm) NAME in RANGE { }` (a nest
// marked for a target's intrinsic), `if (c) { } else { }`, `let x = v in { }`,
// `allocate T: f32[4, 8] local { }`, `block STAGE(iv: RANGE = binding, r: reduce RANGE = b, ...)
// [where (pred)] { [init { }] body }`, `attr KEY(NAME) = VALUE { }` (AttrStmt; KEY is
// thread_extent, virtual_thread, dma_copy or pragma), `A[i, j] = v` (Store; with
// PrintOptions::show_stages `stage(C) A[i, j] = v`) and an expression alone (Evaluate).
// RANGE is `0..E` when the min is 0, `m..n` when min and extent are constants, else `MIN..+EXTENT`.
// Buffers: `NAME: TYPE[dims] ROLE [SCOPE] [dims(logical dims)]`, ROLE in input|output|temp (omitted
// for temp in allocate), SCOPE omitted when "global" for arguments.
//
// Expressions: C precedence (|| && ==/!= relational shifts +/- */% unary) with minimal parentheses;
// `/` and `%` are the IR's floor division and modulo. Literals carry their type: `3` (i64), `3i32`,
// `255u8`, `true`, `1.5f` (f32), `1.5` (f64), `1.5h` (f16), `1.5bf` (bf16), `inff`, `-inf`, `nanf`; casts `f32(x)`;
// `select(c, a, b)`, `min(a, b)`, `max(a, b)`, `ramp(base, stride, lanes)`, `broadcast(v, lanes)`,
// `let x = v in body`, `sum(A[i, k] for k in 0..K)`. Calls: `exp(x)` (math), `likely(x)`
// (intrinsic), `call my_fn(args)` (extern); a call whose type is not the default (the first
// argument's type; i32 for extern calls and calls without arguments) is written `name:type(args)`.
//
// Names: loop names such as `C.i` print as-is; distinct variables that would print with the same
// name in the same scope are told apart with a suffix (`i.1`), and so are distinct buffers.
#pragma once
#include <iosfwd>
#include <string>

#include "ir/Function.h"
#include "ir/IR.h"
#include "ir/Op.h"

namespace texc {

/// What the text form includes beyond the default.
struct PrintOptions {
  /// Prefix each store that a stage owns with `stage(NAME) ` (Store::stage). Off by default, so
  /// `--emit loops` reads as the loops alone.
  bool show_stages = false;
};

std::string to_string(const Expr& e);
std::string to_string(const Stmt& s, const PrintOptions& options = {});
std::string to_string(const LoweredFunc& f, const PrintOptions& options = {});
std::string to_string(const OpDef& op);
std::string to_string(const Buffer& b);

std::ostream& operator<<(std::ostream& os, const Expr& e);
std::ostream& operator<<(std::ostream& os, const Stmt& s);
std::ostream& operator<<(std::ostream& os, const LoweredFunc& f);
std::ostream& operator<<(std::ostream& os, const OpDef& op);

/// The math functions printed and parsed as plain calls (`exp(x)`).
bool is_math_function(const std::string& name);
/// Words that cannot be variable names in the text form (a variable so named prints with a suffix).
bool is_reserved_word(const std::string& name);

}  // namespace texc

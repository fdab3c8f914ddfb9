// The symbol an op has outside texc: the name of its function in a CPU object, of its host
// function and kernel in a cuda object and PTX, and of its declaration in the C header.
//
// An op's name is its symbol unless using it would break a C program, the link or ptxas: a C or C++
// keyword or a name the C standard library or POSIX defines (`int`, `free`, `malloc`, `expf`,
// `assert`), `main`, a name C reserves to its implementation (a leading underscore), a symbol of
// texc's runtime (`texrt_*`) or of texc itself (`texc_*`), or a name PTX predefines (`WARP_SZ`).
// Such an op gets the symbol `texc_op_<name>` everywhere, header included (a keyword cannot be
// declared at all, and a declaration of `free` would clash with <stdlib.h>); the header says so in
// the op's comment. The mapping is one-to-one: no unreserved name starts with `texc_`.
//
// Every backend that names an op's function, and every caller that looks one up (the JIT, the
// cuda launcher, the Arm runner), asks op_symbol.
#pragma once
#include <string>

namespace texc {

/// Why `name` cannot be a symbol as it is ("a C keyword", "a C library function", ...), or "" when
/// it can.
std::string reserved_symbol_reason(const std::string& name);

/// The symbol of op `name`: `name`, or `texc_op_<name>` when reserved_symbol_reason says why not.
std::string op_symbol(const std::string& name);

/// A name a C or C++ header can use for a function parameter called `name` (an identifier): `name`,
/// or `name_` when `name` is a C or C++ keyword or a macro of the C standard library.
std::string c_parameter_name(const std::string& name);

}  // namespace texc

// The front end's one entry point: a .tex file in, checked and elaborated ops out.
//
// compile_file parses the file and everything it imports, resolves names, params (-D overrides
// them), dimension variables, attributes and calls of imported ops, infers shapes, types and
// extents, checks everything language.md promises to check, and returns one OpDef per entry op.
// Any mistake in the input throws UserError (ir/Diagnostics.h) with a located diagnostic; no input
// makes it crash, assert or hang.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "frontend/DefineValue.h"
#include "ir/Diagnostics.h"
#include "ir/Op.h"

namespace texc {

struct FrontendOptions {
  std::vector<std::string> include_dirs;    // -I DIR, searched after the importing file's folder
  std::map<std::string, DefineValue> defines;  // -D NAME=VALUE: overrides params and entry ops'
                                               // attributes (and binds dimension variables of entry
                                               // ops that are otherwise unbound)
  std::string stdlib_dir;                   // "" = default_stdlib_dir()
  std::string only_op;                      // --op NAME: elaborate only this entry op ("" = all)
  /// The --target compiled for: ops with a `compute TARGET` block that applies to it are
  /// elaborated with that implementation. "" = every op as its definition (the reference's view).
  std::string target;
  /// Without --op: leave out the entry ops whose dimension variables or attributes nothing binds
  /// (helper ops, bound only when another op calls them) as long as another op can be elaborated;
  /// they are listed in Program::skipped. When no op can be, the first one's error is thrown.
  bool skip_unbound_ops = false;
  /// Plan the layouts of entry ops of stdlib calls (frontend/LayoutPlan.h): chains of convolutions
  /// that conv2d computes in blocks on this target keep their blocks between layers.
  bool plan_layouts = false;
};

/// An entry op left out by FrontendOptions::skip_unbound_ops, and why (its unbound dimension).
struct SkippedOp {
  std::string name;
  Diagnostic reason;
};

struct Program {
  std::string main_file;
  std::vector<OpDef> ops;  // the entry ops: every op defined in the main file, in source order
  std::vector<SkippedOp> skipped;
};

/// Parses, checks and elaborates `path`. Throws UserError on any error in the input.
Program compile_file(const std::string& path, const FrontendOptions& options);
/// The same for in-memory source text (tests, the fuzzer); `name` is used in diagnostics and
/// relative imports resolve against the current directory.
Program compile_source(const std::string& name, const std::string& text, const FrontendOptions& options);

/// Where `import nn.conv2d` looks: $TEXC_STDLIB if set, else <texc executable>/../stdlib or
/// <texc executable>/../../stdlib or <texc executable>/../share/texc/stdlib (installed) if present, else the source tree's stdlib/ (compiled in).
std::string default_stdlib_dir();

}  // namespace texc

// cpu_target_options: the LLVM CPU target that the command line asks for (x86 or arm, with --mcpu
// and --mattr), for every command that generates code for a CPU.
#pragma once
#include "backends/llvm/LLVMBackend.h"
#include "ir/Op.h"
#include "lower/schedule/TensorizeFallback.h"
#include "tools/texc/CommandLine.h"

namespace texc {

/// The backend options for cl.target (x86 or arm), cl.mcpu and cl.mattr. Throws TargetOptionError
/// (a user error, exit 1) for an unknown --mcpu, before anything is compiled.
CpuTargetOptions cpu_target_options(const CommandLine& cl);

/// What the lowering of `op` asks about the CPU of cl.target (x86 or arm): which of the features an
/// intrinsic `requires` it lacks (lower/schedule/TensorizeFallback.h). Throws UserError
/// (UnknownCpuFeature, at the `requires` string) for a feature name LLVM does not know for the
/// target, in an intrinsic of that target that `op` can see.
CpuFeatureQuery cpu_feature_query(const CommandLine& cl, const OpDef& op);

}  // namespace texc

// cpu_target_options: the LLVM CPU target the compile options ask for (x86 or arm, with mcpu and
// mattr: --mcpu, --mattr), for everything that generates code for a CPU.
#pragma once
#include "backends/llvm/LLVMBackend.h"
#include "ir/Op.h"
#include "lower/schedule/TensorizeFallback.h"
#include "tools/driver/CompileOptions.h"

namespace texc {

/// The backend options for opts.target (an LLVM CPU target: its llvm_cpu_arch, ir/Target.h), opts.mcpu
/// (else the target's default_mcpu) and opts.mattr. Throws TargetOptionError
/// (a user error, exit 1) for an unknown --mcpu, before anything is compiled.
CpuTargetOptions cpu_target_options(const CompileOptions& opts);

/// What the lowering of `op` asks about the CPU of opts.target (x86 or arm): which of the features an
/// intrinsic `requires` it lacks (lower/schedule/TensorizeFallback.h). Throws UserError
/// (UnknownCpuFeature, at the `requires` string) for a feature name LLVM does not know for the
/// target, in an intrinsic of that target that `op` can see.
CpuFeatureQuery cpu_feature_query(const CompileOptions& opts, const OpDef& op);

}  // namespace texc

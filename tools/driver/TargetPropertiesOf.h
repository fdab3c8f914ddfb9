// target_properties_of: the values of the schedule language's target properties
// (target.vector_bits, target.vector_registers, target.has("F"); ir/TargetProperties.h) for the
// compile options' target, read from LLVM's description of the CPU (docs/language.md
// "Target properties").
#pragma once
#include "ir/TargetProperties.h"
#include "tools/driver/CompileOptions.h"

namespace texc {

/// x86 and arm: the CPU of --mcpu/--mattr, or the host CPU (x86) / generic NEON (arm) without
/// them. x86: vector_bits 512 with AVX-512 (unless --mattr -evex512: 256), 256 with AVX, else 128;
/// vector_registers 32 with AVX-512, else 16. arm: 128 and 32. interp, cuda, cuda-interp and
/// vdla: the host CPU's (their schedules are not compiled for a CPU; a `schedule cpu` read by interp
/// then tiles as it would on x86 on this host). has("F"): the CPU has the LLVM feature F; false
/// for a feature of the other architecture; an F that LLVM knows for neither is an error at the
/// schedule.
/// Throws TargetOptionError for an unknown --mcpu (as cpu_target_options).
TargetProperties target_properties_of(const CompileOptions& opts);

}  // namespace texc

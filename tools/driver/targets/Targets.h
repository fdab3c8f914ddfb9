// The behaviour of each target (tools/driver/TargetRegistry.h), one function per target, defined
// in this folder next to the others of its family; TargetRegistry.cpp lists them.
#pragma once
#include "tools/driver/TargetRegistry.h"

namespace texc {

TargetBehaviour interp_target();       // InterpTarget.cpp
TargetBehaviour x86_target();          // X86Target.cpp
TargetBehaviour x86_sse_target();      // X86Target.cpp
TargetBehaviour arm_target();          // ArmTarget.cpp
TargetBehaviour cuda_target();         // CudaTarget.cpp
TargetBehaviour cuda_interp_target();  // CudaTarget.cpp
TargetBehaviour vdla_target();         // VdlaTarget.cpp

/// The emitter of x86, x86-sse and arm (TargetBehaviour::write_output): obj, header, llvm, asm.
void write_llvm_cpu_output(ModuleOutput& out, const std::string& kind, const std::string& path);  // LlvmCpuOutputs.cpp

}  // namespace texc

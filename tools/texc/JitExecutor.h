// make_jit_executor: an op compiled for x86 and executed in this process (backends/llvm JitModule),
// as the OpExecutor that `texc run --target x86` hands to run_op.
//
// The op is compiled (and linked, so a missing extern symbol is reported here) when the executor is
// made; each execution calls it once on the tensors' data (op.inputs then op.outputs, which is
// LoweredFunc::args order). Parallel loops use the process's texrt thread pool.
#pragma once
#include <map>
#include <string>

#include "backends/interp/RunOp.h"
#include "backends/llvm/LLVMBackend.h"

namespace texc {

OpExecutor make_jit_executor(const LoweredFunc& func, const CpuTargetOptions& target,
                             const std::map<std::string, void*>& extern_symbols = {});

}  // namespace texc

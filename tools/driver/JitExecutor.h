// make_jit_executor: an op compiled for x86 and executed in a child process of texc (backends/llvm
// JitModule), as the OpExecutor that `texc run --target x86` hands to run_op.
//
// The op is compiled (and linked, so a missing extern symbol is reported here) in texc's process
// when the executor is made. Each execution runs in a child process (ChildProcess.h): the child
// calls the op once on the tensors (op.inputs then op.outputs, LoweredFunc::args order) and then
// times `repeat` rounds of calls (backends/llvm/TimeCalls.h: rounds of at least 1 ms, the median
// of the time of one call in each); the outputs of that first call come back to the parent
// (what run_op checks: a kernel wrong on its first call only fails), the child's times are left in
// *timing. So compiled code that faults (an out-of-bounds access the reference could
// not see, e.g. at an unchecked point) kills the child, never texc: it is an InterpError naming
// the signal, which run_op reports as a failed check. Parallel loops use the child's own texrt
// thread pool (runtime/texrt.h). A module LLJIT cannot link is an InterpError too. A target CPU
// (--mcpu, --mattr) with features the host CPU lacks is an EnvironmentError naming them (texc exits
// 2), before anything is compiled.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/interp/RunOp.h"
#include "backends/llvm/LLVMBackend.h"

namespace texc {

/// The times the child measured around its timed calls (none when repeat is 0).
struct JitTiming {
  std::vector<double> times_ms;
  double median_ms = 0;
};

/// `funcs`: the op's function last, after the functions it calls (the kernels of a graph,
/// docs/graph.md), all in one module; usually the op's function alone.
OpExecutor make_jit_executor(const std::vector<LoweredFunc>& funcs, const CpuTargetOptions& target,
                             const std::map<std::string, void*>& extern_symbols, int repeat,
                             std::shared_ptr<JitTiming> timing);

}  // namespace texc

#include "tests/schedule/ScheduleCheck.h"

#include <memory>

#include "backends/interp/CudaInterpreter.h"
#include "backends/interp/InterpError.h"
#include "backends/interp/LoopInterpreter.h"
#include "backends/llvm/LLVMBackend.h"
#include "ir/Diagnostics.h"
#include "ir/IRVisitor.h"
#include "ir/Target.h"
#include "lower/Lower.h"

namespace texc {

OpExecutor make_executor(const OpDef& op, const LoweredFunc& func, const std::string& target) {
  if (target == "interp") {
    auto interp = std::make_shared<LoopInterpreter>(func);
    return [interp](std::vector<Tensor*>& args) { interp->run(args); };
  }
  if (llvm_cpu_arch_of(target) == "x86") {  // x86, x86-sse: compiled through LLVM and run in process
    const Target* t = find_target(target);
    CpuTargetOptions cpu;
    cpu.mcpu = t->default_mcpu;  // x86: the host's CPU; x86-sse: x86-64-v2
    std::shared_ptr<JitModule> jit;
    try {
      jit = JitModule::create({func}, cpu);
    } catch (const std::runtime_error& e) {  // e.g. an extern symbol nobody provides
      throw InterpError(target + ": " + e.what());
    }
    std::string name = func.name;
    return [jit, name](std::vector<Tensor*>& args) {
      std::vector<void*> pointers;
      for (Tensor* t : args) pointers.push_back(t->data());
      jit->call(name, pointers);
    };
  }
  if (target == "cuda-interp") {  // GPU semantics and race detection on the loop interpreter
    auto interp = std::make_shared<CudaInterpreter>(func);
    return [interp](std::vector<Tensor*>& args) { interp->run(args); };
  }
  throw TargetUnavailable("target '" + target + "' is not wired into the schedule fuzzer yet (op " + op.name + ")");
}

const char* status_name(CaseOutcome::Status s) {
  switch (s) {
    case CaseOutcome::Status::Passed: return "passed";
    case CaseOutcome::Status::Mismatch: return "mismatch";
    case CaseOutcome::Status::Rejected: return "rejected";
    case CaseOutcome::Status::Error: return "error";
  }
  return "?";
}

CaseOutcome check_scheduled_op(const OpDef& op, bool no_fuse, const std::string& target, uint64_t seed,
                               bool print_changed) {
  LowerOptions options;
  options.target = target;
  options.no_fuse = no_fuse;
  options.verify = true;
  options.print_changed = print_changed;
  LoweredFunc func;
  try {
    func = lower_op(op, options);
  } catch (const UserError& e) {
    return {CaseOutcome::Status::Rejected, format_diagnostic(e.diag)};
  }
  bool vector_code = false;
  for_each_stmt(func.body, [&](const Stmt& st) {
    if (const Store* store = st->as<Store>(); store && store->value->type.is_vector()) vector_code = true;
  });
  RunOptions run;
  run.target = target;
  run.seed = seed;
  RunResult result;
  try {
    result = run_op(op, make_executor(op, func, target), run);
  } catch (const InterpError& e) {
    return {CaseOutcome::Status::Error, e.what()};
  }
  if (result.passed) return {CaseOutcome::Status::Passed, "", vector_code};
  return {CaseOutcome::Status::Mismatch, result.message, vector_code};
}

}  // namespace texc

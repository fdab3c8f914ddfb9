#include "tests/schedule/ScheduleCheck.h"

#include <memory>

#include "backends/interp/InterpError.h"
#include "backends/llvm/ArmRunner.h"
#include "ir/Diagnostics.h"
#include "ir/IRVisitor.h"
#include "lower/Lower.h"
#include "tools/driver/EnvironmentError.h"
#include "tools/driver/TargetExecutors.h"

namespace texc {

OpExecutor make_executor(const OpDef& op, const LoweredFunc& func, const std::string& target) {
  CompileOptions options;
  options.target = target;
  try {
    TargetExecutors executors(options);
    return executors.make_function_executor(func, op);
  } catch (const EnvironmentError& e) {  // e.g. no CUDA device
    throw TargetUnavailable("target '" + target + "' cannot run here (op " + op.name + "): " + e.what());
  } catch (const MissingToolError& e) {  // e.g. no cross compiler or emulator for arm
    throw TargetUnavailable("target '" + target + "' cannot run here (op " + op.name + "): " + e.what());
  }
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

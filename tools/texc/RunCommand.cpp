// `texc run FILE.tex --target T ...`: compiles every op (or --op NAME), runs it on seeded random
// inputs (or --inputs DIR), checks every output against the reference interpreter and prints one
// line (or, with --json, one JSON object) per op. Exits 0 only if every op passed.
//
// interp executes the lowered loop AST with the loop interpreter (serially, whatever --threads
// says: it reports 1 thread). Other targets need their code generator, which this build does not
// have yet: an EnvironmentError (exit 2).
#include <iostream>
#include <memory>

#include "backends/interp/InterpError.h"
#include "backends/interp/LoopInterpreter.h"
#include "backends/interp/RunOp.h"
#include "tools/texc/Commands.h"
#include "tools/texc/EnvironmentError.h"
#include "tools/texc/LowerForTarget.h"

namespace texc {

namespace {

/// Lowers and prepares `op` for cl.target; returns how to execute it on its arguments.
OpExecutor make_executor(const OpDef& op, const CommandLine& cl) {
  LoweredFunc func = lower_for_target(op, cl, knobs_from_records(cl, op));
  if (cl.target == "interp") {
    auto interp = std::make_shared<LoopInterpreter>(func);
    return [interp](std::vector<Tensor*>& args) { interp->run(args); };
  }
  throw EnvironmentError("target '" + cl.target + "' is not available yet: this build of texc cannot run it");
}

}  // namespace

int run_command(const CommandLine& cl) {
  Program program = compile_file(cl.file, frontend_options(cl));
  RunOptions options;
  options.target = cl.target;
  options.repeat = cl.repeat ? cl.repeat : (cl.target == "interp" ? 1 : 10);
  options.seed = cl.seed;
  options.inputs_dir = cl.inputs_dir;
  options.save_io_dir = cl.save_io_dir;
  options.threads = 1;
  int failed = 0;
  for (const OpDef& op : program.ops) {
    RunResult result;
    try {
      result = run_op(op, make_executor(op, cl), options);
    } catch (const InterpError& e) {  // the loop AST cannot be executed: a lowering bug
      result.op = op.name;
      result.target = cl.target;
      result.threads = options.threads;
      result.message = e.what();
    }
    if (!result.passed) ++failed;
    std::cout << (cl.json ? format_result_json(result) : format_result_line(result)) << std::endl;
  }
  return failed ? 1 : 0;
}

}  // namespace texc

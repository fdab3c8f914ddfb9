// A program that uses texc as a library, built against an installed prefix (install_test.sh):
// compiles scaled_matmul.tex for x86 and interp, runs it on its own tensors, checks both against
// the reference interpreter, writes the x86 header and object, and checks that texc's failures
// reach it as exceptions: a mistake in the source (UserError, with its diagnostic), an op the
// module lacks (OptionError), and a broken precondition of Module::run (InternalError, which the
// texc command turns into an abort, a library user into whatever it likes).
// usage: library_consumer FILE.tex OUT_DIR      prints PASS and exits 0, else says what failed.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

#include "ir/Diagnostics.h"
#include "tools/driver/Module.h"

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  if (!ok) {
    std::cerr << "FAIL: " << what << "\n";
    ++failures;
  }
}

/// Runs op `name` of `module` on seeded inputs and compares its output with the reference.
void run_and_check(const texc::Module& module, const std::string& name) {
  std::vector<texc::Tensor> args = module.arguments(name);
  const texc::CompiledOp& op = module.op(name);
  std::vector<texc::Tensor*> pointers;
  std::vector<const texc::Tensor*> inputs;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i < op.op.inputs.size()) {
      args[i].fill_random(7 + i);
      inputs.push_back(&args[i]);
    }
    pointers.push_back(&args[i]);
  }
  texc::CallTimes timing = module.run(name, pointers, 3);
  std::vector<texc::Tensor> expected = module.reference(name, inputs);
  const texc::Tensor& actual = args[op.op.inputs.size()];
  check(expected.size() == 1 && expected[0].num_elements() == actual.num_elements(), module.target() + ": output shape");
  const float* got = static_cast<const float*>(actual.data());
  const float* want = static_cast<const float*>(expected[0].data());
  double max_err = 0;
  for (int64_t e = 0; e < actual.num_elements(); ++e)
    max_err = std::max(max_err, double(std::fabs(got[e] - want[e])) / (std::fabs(want[e]) + 1.0));
  check(max_err < 1e-5, module.target() + ": max relative error " + std::to_string(max_err));
  check(timing.times_ms.size() == 3 && timing.median_ms > 0, module.target() + ": 3 timed calls");
  std::cout << module.target() << ": " << name << " max_rel_err " << max_err << ", median " << timing.median_ms
            << " ms\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: library_consumer FILE.tex OUT_DIR\n";
    return 2;
  }
  std::string file = argv[1], out = argv[2];
  texc::CompileOptions options;
  options.stdlib_dir = TEXC_STDLIB_DIR;
  try {
    options.target = "x86";
    texc::Module x86 = texc::compile(texc::ProgramSource::file(file), options);
    const texc::CompiledOp& op = x86.op("scaled_matmul");
    check(op.functions.size() == 2 && op.functions[0].name == "scaled_matmul_prepare",
          "the const input's stage is split into scaled_matmul_prepare");
    check(op.knobs.empty(), "no records, no fixed knob: every knob takes its first value");
    run_and_check(x86, "scaled_matmul");
    x86.write("header", out + "/scaled_matmul.h");
    x86.write("obj", out + "/scaled_matmul.o");
    check(std::filesystem::file_size(out + "/scaled_matmul.o") > 0, "the object file is written");

    // A fixed knob (texc's --knob TI=4) is in the op's knobs and changes the loops.
    texc::CompileOptions fixed = options;
    fixed.knobs = {{"TI", "4"}};
    texc::Module x86_ti4 = texc::compile(texc::ProgramSource::file(file), fixed);
    check(x86_ti4.op("scaled_matmul").knobs == texc::KnobConfig{{"TI", 4}}, "the fixed knob TI=4 is recorded");
    run_and_check(x86_ti4, "scaled_matmul");
    x86_ti4.write("loops", out + "/ti4.loops.txt");
    x86.write("loops", out + "/ti8.loops.txt");

    options.target = "interp";
    texc::Module interp = texc::compile(texc::ProgramSource::file(file), options);
    run_and_check(interp, "scaled_matmul");
    try {
      interp.write("obj", out + "/interp.o");
      check(false, "interp writes no object: OptionError");
    } catch (const texc::OptionError& e) {
      std::cout << "OptionError: " << e.what() << "\n";
    }

    // A mistake in the source: a UserError carrying the located diagnostic.
    try {
      texc::compile(texc::ProgramSource::source_text("broken.tex", "op broken(X: f32[4]) -> Y {\n  compute { Y[i] = Z[i] }\n}\n"),
                    options);
      check(false, "an undefined name is a UserError");
    } catch (const texc::UserError& e) {
      texc::print_diagnostic(std::cout, e.diag);
      check(e.diag.loc.line == 2, "the diagnostic is on line 2");
    }
    // An op the module does not have.
    try {
      x86.op("nope");
      check(false, "an unknown op is an OptionError");
    } catch (const texc::OptionError& e) {
      std::cout << "OptionError: " << e.what() << "\n";
    }
    // Module::run with too few tensors breaks its precondition: texc's internal error, thrown.
    try {
      std::vector<texc::Tensor> args = x86.arguments("scaled_matmul");
      x86.run("scaled_matmul", {&args[0]});
      check(false, "Module::run with one tensor is an InternalError");
    } catch (const texc::InternalError& e) {
      std::cout << "InternalError: " << e.what() << "\n";
    }
  } catch (const texc::UserError& e) {
    texc::print_diagnostic(std::cerr, e.diag);
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "unexpected exception: " << e.what() << "\n";
    return 1;
  }
  if (failures) return 1;
  std::cout << "PASS\n";
  return 0;
}

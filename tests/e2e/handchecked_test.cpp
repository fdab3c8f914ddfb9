// End-to-end tests against values worked out by hand: each tests/e2e/handchecked/NAME.tex has a
// NAME.expected file listing inputs and expected outputs (`TENSOR = v1 v2 ...`, row-major; `#`
// comments). The op is compiled by the front end, evaluated by the reference interpreter, lowered
// for `interp` and run by the loop interpreter; both must give exactly the expected values. This
// checks the oracle itself, which every other e2e test trusts.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "backends/interp/LoopInterpreter.h"
#include "backends/interp/ReferenceInterpreter.h"
#include "frontend/Frontend.h"
#include "ir/ConstEval.h"
#include "ir/Diagnostics.h"
#include "lower/Lower.h"

using namespace texc;

namespace {

const std::string kDir = TEXC_HANDCHECKED_DIR;

std::map<std::string, std::vector<double>> read_expected(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in, "cannot open " << path);
  std::map<std::string, std::vector<double>> values;
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::istringstream name_in(line.substr(0, eq)), values_in(line.substr(eq + 1));
    std::string name;
    name_in >> name;
    double v;
    while (values_in >> v) values[name].push_back(v);
  }
  return values;
}

std::vector<int64_t> shape_of(const Buffer& b) {
  std::vector<int64_t> shape;
  for (const Expr& e : b->shape) shape.push_back(*eval_int(e));
  return shape;
}

void check_tensor(const std::string& what, const Tensor& t, const std::vector<double>& want) {
  REQUIRE_MESSAGE(int64_t(want.size()) == t.num_elements(), what << " has " << t.num_elements() << " elements");
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    CAPTURE(what);
    CAPTURE(i);
    if (t.dtype().is_float()) CHECK(t.get_double(i) == want[size_t(i)]);
    else CHECK(t.get_int(i) == int64_t(want[size_t(i)]));
  }
}

void run_handchecked(const std::string& name) {
  Program program;
  try {
    program = compile_file(kDir + "/" + name + ".tex", FrontendOptions{});
  } catch (const UserError& e) {
    FAIL(format_diagnostic(e.diag));
  }
  REQUIRE(program.ops.size() == 1);
  const OpDef& op = program.ops[0];
  auto expected = read_expected(kDir + "/" + name + ".expected");

  std::vector<Tensor> tensors;
  for (const Buffer& b : op.inputs) {
    tensors.emplace_back(b->dtype, shape_of(b));
    const auto& values = expected[b->name];
    REQUIRE_MESSAGE(int64_t(values.size()) == tensors.back().num_elements(), "input " << b->name);
    for (size_t i = 0; i < values.size(); ++i) tensors.back().set_double(int64_t(i), values[i]);
  }
  for (const Buffer& b : op.outputs) {
    tensors.emplace_back(b->dtype, shape_of(b));
    tensors.back().fill_poison();
  }
  std::vector<Tensor*> args;
  for (Tensor& t : tensors) args.push_back(&t);
  std::vector<const Tensor*> inputs(args.begin(), args.begin() + op.inputs.size());

  ReferenceInterpreter reference(op, inputs);
  for (const Buffer& b : op.outputs) {
    REQUIRE_MESSAGE(expected.count(b->name), "no expected values for output " << b->name);
    check_tensor("reference " + b->name, reference.evaluate_all(b->name), expected[b->name]);
  }

  LowerOptions lower_options;
  lower_options.target = "interp";
  LoopInterpreter(lower_op(op, lower_options)).run(args);
  for (size_t o = 0; o < op.outputs.size(); ++o)
    check_tensor("loop interpreter " + op.outputs[o]->name, *args[op.inputs.size() + o], expected[op.outputs[o]->name]);
}

}  // namespace

TEST_CASE("floor division and modulo") { run_handchecked("floordiv_mod"); }
TEST_CASE("int8 requantization") { run_handchecked("int8_requant"); }
TEST_CASE("2x2 pooling") { run_handchecked("pool_2x2"); }
TEST_CASE("casts") { run_handchecked("casts"); }
TEST_CASE("select-guarded stencil") { run_handchecked("stencil_select"); }

TEST_CASE("every hand-checked file has a test case") {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kDir))
    if (entry.path().extension() == ".tex") ++files;
  CHECK(files == 5);
}

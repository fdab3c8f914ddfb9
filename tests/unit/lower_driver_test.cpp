// The lowering driver (lower/Lower.h): the pass lists per target, the after_pass hook, and the
// registry the pass tests use.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "schedule_test_support.h"

using namespace texc;
using namespace texc::testing;

namespace {
const char* kMatmul =
    "op f(A: f32[8, 4], B: f32[4, 6]) -> C {\n"
    "  compute { C[i, j] = sum(A[i, k] * B[k, j] for k in 0..4) }\n"
    "  schedule cpu { io, ii = split(C.i, 4)\n vectorize(C.j) }\n"
    "}\n";
}  // namespace

TEST_CASE("after_pass sees every pass of the target's list, in order, with the IR after it") {
  OpDef op = compile_op(kMatmul);
  LowerOptions options;
  options.target = "x86";
  std::vector<std::string> seen;
  std::string after_split, last;
  options.after_pass = [&](const std::string& pass, const LoweredFunc& func) {
    seen.push_back(pass);
    if (pass == "apply_schedule") after_split = to_string(func);
    last = to_string(func);
  };
  LoweredFunc result = lower_op(op, options);
  CHECK(seen == lowering_pass_names("x86"));
  CHECK(seen.front() == "default_loops");
  CHECK(seen.back() == "simplify_final");
  CHECK_CONTAINS(after_split, "for io in 0..2");
  CHECK(last == to_string(result));
}

TEST_CASE("the pass list is the schedule passes, the common function passes, then the target's") {
  std::vector<std::string> names = lowering_pass_names("interp");
  auto at = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) - names.begin(); };
  CHECK(at("apply_schedule") < at("lower_blocks"));
  CHECK(at("lower_blocks") < at("plan_storage"));
  CHECK(at("simplify") < at("partition_loops"));
  CHECK(at("vectorize_loops") < at("unroll_loops"));
  for (const FunctionPass& p : function_passes("interp")) {
    REQUIRE(find_function_pass(p.name) != nullptr);
    CHECK(std::string(find_function_pass(p.name)->summary) == p.summary);
  }
  CHECK(find_function_pass("apply_schedule") == nullptr);  // a schedule pass: not runnable on IR text
  CHECK(find_function_pass("no_such_pass") == nullptr);
}

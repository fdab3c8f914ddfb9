// The lowering driver (lower/Lower.h): the pass lists per target, the after_pass hook, and the
// registry the pass tests use.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "schedule_test_support.h"

#include <map>

#include "ir/IRParser.h"
#include "ir/IRVisitor.h"

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

TEST_CASE("every store names its stage after lowering, through storage planning and flattening") {
  OpDef op = compile_op(
      "op g(A: f32[8, 4], B: f32[4, 6]) -> C {\n"
      "  compute { C[i, j] = sum(A[i, k] * B[k, j] for k in 0..4) }\n"
      "  schedule cpu {\n    CL = cache_write(C, local)\n  }\n"
      "}\n");
  LowerOptions options;
  options.target = "x86";
  LoweredFunc result = lower_op(op, options);
  std::map<std::string, int> stores_per_stage;
  for_each_stmt(result.body, [&](const Stmt& s) {
    if (const Store* st = s->as<Store>()) stores_per_stage[st->stage]++;
  });
  CHECK(stores_per_stage.count("") == 0);
  CHECK(stores_per_stage["CL"] == 2);  // its init and its update
  CHECK(stores_per_stage["C"] == 1);   // the copy out of the register tile
  std::string listing = to_string(result, PrintOptions{true});
  CHECK_CONTAINS(listing, "stage(CL) CL[");
  CHECK_CONTAINS(listing, "stage(C) C[");
}

TEST_CASE("a scoped attribute is kept by the common passes, its body lowered like any other") {
  LoweredFunc f = parse_func(
      "func h(A: f32[16] input, B: f32[16] output) {\n"
      "  attr pragma(keep_me) = 1 {\n"
      "    for i in 0..16 {\n"
      "      B[i] = A[i] + 0.0f*A[i]\n"
      "    }\n"
      "  }\n"
      "  attr pragma(empty) = 1 {\n"
      "    for i in 0..0 {\n"
      "      B[i] = A[i]\n"
      "    }\n"
      "  }\n"
      "}\n");
  for (const char* pass : {"simplify", "remove_no_ops"}) {
    const FunctionPass* p = find_function_pass(pass);
    REQUIRE(p != nullptr);
    f = p->run(f, PassContext{});
  }
  std::string text = to_string(f);
  CHECK_CONTAINS(text, "attr pragma(keep_me) = 1 {");
  CHECK(text.find("pragma(empty)") == std::string::npos);  // nothing left to say it about
}

TEST_CASE("a function pass takes what it knows of the schedule from its context, in lower_op and in pass tests alike") {
  // lower_cross_thread_reductions through its entry, the `run` lower_op calls: the context's
  // reduction loops decide which thread loops are candidates, its bind locations where an error
  // points.
  const char* text =
      "func f(A: f32[64] input, S: f32[4] output) {\n"
      "  bound(threadIdx.x) tx in 0..4 {\n"
      "    S[tx] = 0.0f\n"
      "    bound(threadIdx.y) ty in 0..16 {\n"
      "      S[tx] = S[tx] + A[tx*16 + ty]\n"
      "    }\n"
      "  }\n"
      "}\n";
  const FunctionPass* p = find_function_pass("lower_cross_thread_reductions");
  REQUIRE(p != nullptr);
  CHECK(p->targets == kGpuPasses);
  LoweredFunc f = parse_func(text);

  std::set<std::string> no_reductions;  // the schedule bound no reduction loop to a thread index
  PassContext spatial;
  spatial.thread_bound_reductions = &no_reductions;
  CHECK(to_string(p->run(f, spatial)) == to_string(f));

  PassContext bound;  // ty is a reduction over threadIdx.y while threadIdx.x has 4 threads
  const uint32_t file = SourceManager::get().add("sched.tex", "bind(S.ty, threadIdx.y)\n");
  bound.bind_locs["ty"] = SourceLoc{file, 1, 12};
  try {
    p->run(f, bound);
    FAIL("expected the reduction over threadIdx.y to be rejected");
  } catch (const UserError& e) {
    CHECK(e.diag.loc.file == file);
    CHECK(e.diag.loc.col == 12);
    CHECK_CONTAINS(e.diag.message, "bind the reduction loop to threadIdx.x");
  }
}

TEST_CASE("each pass entry says which targets run it; lower_op runs exactly those") {
  CHECK(pass_targets_of("x86") == kCpuPasses);
  CHECK(pass_targets_of("interp") == kCpuPasses);
  CHECK(pass_targets_of("cuda-interp") == kGpuPasses);
  CHECK(pass_targets_of("vdla") == kVdlaPasses);
  for (const char* target : {"x86", "cuda-interp", "vdla"}) {
    for (const FunctionPass& p : function_passes(target)) CHECK((p.targets & pass_targets_of(target)) != 0);
    std::vector<std::string> names = lowering_pass_names(target);
    const bool gpu = pass_targets_of(target) == kGpuPasses;
    CHECK((std::find(names.begin(), names.end(), "make_device_function") != names.end()) == gpu);
    CHECK((std::find(names.begin(), names.end(), "gpu_default_schedule") != names.end()) == gpu);
  }
  std::vector<std::string> vdla = lowering_pass_names("vdla");
  CHECK(std::vector<std::string>(vdla.end() - 5, vdla.end()) ==
        std::vector<std::string>{"lower_blocks", "plan_storage", "flatten_storage", "simplify", "remove_no_ops"});
}

// Unit tests of backends/execute: the Executor contract every caller relies on (the outputs left
// are the checked call's; the timed rounds are time_calls' rounds of at least 1 ms of calls),
// isolate() (outputs, times and label come back from the child; a crash or an exception in the
// child is an InterpError), and that `texc run`'s path (Module::run through the target registry)
// and `texc tune`'s runner (make_tuning_runner) execute an op through the same executor: the same
// outputs, bit for bit, and one time per timed round, for x86 and interp.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>

#include "backends/execute/Executor.h"
#include "backends/execute/Isolate.h"
#include "backends/execute/JitExecutor.h"
#include "backends/interp/InterpError.h"
#include "tools/driver/Module.h"
#include "tools/driver/TuningRunner.h"
#include "runtime/texrt.h"

using namespace texc;

namespace {

/// texrt_alloc and texrt_free of the JIT-compiled code in one test, counted.
std::atomic<int> g_compiled_allocations{0};
extern "C" void* counting_alloc(int64_t bytes) {
  g_compiled_allocations.fetch_add(1);
  return texrt_alloc(bytes);
}
extern "C" void counting_free(void* p) { texrt_free(p); }

/// Spins for `us` microseconds.
void busy_wait_us(double us) {
  auto start = std::chrono::steady_clock::now();
  while (std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() < us) {
  }
}

/// An executor that writes `value` into every element of its one f32 output and reports fixed times.
class WritingExecutor : public Executor {
 public:
  explicit WritingExecutor(float value) : value_(value) {}
  CallTimes run(std::vector<Tensor*>& args, int timed_rounds) override {
    auto* out = static_cast<float*>(args.back()->data());
    for (int64_t i = 0; i < args.back()->num_elements(); ++i) out[i] = value_;
    CallTimes times;
    for (int r = 0; r < timed_rounds; ++r) times.times_ms.push_back(1.0 + r);
    times.median_ms = timed_rounds > 0 ? 1.0 + (timed_rounds - 1) / 2.0 : 0;
    times.label = "test clock";
    return times;
  }

 private:
  float value_;
};

class CrashingExecutor : public Executor {
 public:
  CallTimes run(std::vector<Tensor*>&, int) override {
    std::signal(SIGSEGV, SIG_DFL);  // doctest's handler would catch it
    std::raise(SIGSEGV);
    return {};
  }
};

class ThrowingExecutor : public Executor {
 public:
  CallTimes run(std::vector<Tensor*>&, int) override { throw InterpError("out-of-bounds read of 'A' at [7]"); }
};

const char* kMatmul = R"(
op mm(A: f32[24, 16], B: f32[16, 20]) -> C {
  compute {
    C[i, j] = sum(A[i, k] * B[k, j] for k in 0..16)
  }
  schedule cpu {
    io, ii = split(C.i, 8)
    vectorize(C.j)
  }
}
)";

}  // namespace

TEST_CASE("checked_then_timed: the outputs stay the checked call's; short calls are timed in rounds of >= 1 ms") {
  Tensor counter(Float(32), {1});
  std::vector<Tensor*> args = {&counter};
  std::vector<std::chrono::steady_clock::time_point> starts;  // of every call
  auto call = [&] {
    starts.push_back(std::chrono::steady_clock::now());
    *static_cast<float*>(counter.data()) += 1;
    busy_wait_us(50);
  };
  CallTimes untimed = checked_then_timed(args, 0, call, 0);
  CHECK(starts.size() == 1);
  CHECK(untimed.times_ms.empty());

  *static_cast<float*>(counter.data()) = 0;
  starts.clear();
  CallTimes times = checked_then_timed(args, 0, call, 4);
  CHECK(*static_cast<float*>(counter.data()) == 1);  // the checked call's output, put back
  REQUIRE(times.times_ms.size() == 4);
  CHECK(times.median_ms == median_of(times.times_ms));
  for (double t : times.times_ms) CHECK(t > 0.04);  // a call spins for 50 us
  // The time of one call, not of a round (>= 1 ms). On a loaded machine a round that loses the CPU
  // for a few ms can make a median of 4 rounds look like 1 ms a call, so the least median of a few
  // timings is what must be under 0.5 ms (10x slack).
  double least_median = times.median_ms;
  for (int attempt = 0; attempt < 4 && least_median >= 0.5; ++attempt) {
    std::vector<std::chrono::steady_clock::time_point> kept_starts = starts;
    least_median = std::min(least_median, checked_then_timed(args, 0, call, 4).median_ms);
    starts = kept_starts;
  }
  CHECK(least_median < 0.5);
  // The calls: the checked one, the warm-up (those begun in its kWarmUpMs), one that measures a
  // call, then the 4 rounds. A 50 us call is timed in rounds of about 20 calls (a round lasts at
  // least 1 ms), so the rounds hold far more than one call each.
  REQUIRE(starts.size() > 2);
  size_t warm_up = 0;
  for (size_t i = 1; i < starts.size(); ++i)
    warm_up += std::chrono::duration<double, std::milli>(starts[i] - starts[1]).count() < kWarmUpMs;
  size_t in_rounds = starts.size() - 1 - warm_up - 1;
  CHECK(in_rounds >= 4 * 2);
}

TEST_CASE("isolate: the outputs, the times and their label come back from the child") {
  Tensor input(Float(32), {3}), output(Float(32), {5});
  std::vector<Tensor*> args = {&input, &output};
  std::unique_ptr<Executor> isolated = isolate(std::make_shared<WritingExecutor>(42.0f), "the test op", 1);
  CallTimes times = isolated->run(args, 3);
  for (int64_t i = 0; i < output.num_elements(); ++i) CHECK(static_cast<float*>(output.data())[i] == 42.0f);
  CHECK(times.times_ms == std::vector<double>{1.0, 2.0, 3.0});
  CHECK(times.median_ms == 2.0);
  CHECK(times.label == "test clock");
  CHECK(isolated->run(args, 0).times_ms.empty());
}

/// The message of the InterpError `executor` isolated as `what` throws when run ("" if none).
std::string isolated_error(std::shared_ptr<Executor> executor, const std::string& what) {
  Tensor output(Float(32), {2});
  std::vector<Tensor*> args = {&output};
  try {
    isolate(std::move(executor), what, 0)->run(args, 2);
  } catch (const InterpError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("isolate: a crash or an exception in the child is an InterpError, and the caller goes on") {
  CHECK(isolated_error(std::make_shared<CrashingExecutor>(), "the compiled op 'bad'") ==
        "the compiled op 'bad' crashed (SIGSEGV, Segmentation fault) in the child process that ran it");
  CHECK(isolated_error(std::make_shared<ThrowingExecutor>(), "op 'gather'") == "out-of-bounds read of 'A' at [7]");
}

TEST_CASE("texc run's executor and texc tune's runner execute an op the same way (x86, interp)") {
  for (const char* target : {"x86", "interp"}) {
    CAPTURE(target);
    CompileOptions options;
    options.target = target;
    options.stdlib_dir = TEXC_TEST_STDLIB_DIR;
    Module module = compile(ProgramSource::source_text("mm.tex", kMatmul), options);
    std::vector<Tensor> run_args = module.arguments("mm");
    run_args[0].fill_random(1);
    run_args[1].fill_random(2);
    std::vector<Tensor> tune_args = run_args;
    std::vector<Tensor*> run_pointers, tune_pointers;
    for (size_t i = 0; i < run_args.size(); ++i) {
      run_pointers.push_back(&run_args[i]);
      tune_pointers.push_back(&tune_args[i]);
    }

    CallTimes run_times = module.run("mm", run_pointers, 3);  // texc run's path: the registry's executor
    std::unique_ptr<Runner> runner = make_tuning_runner(options);
    std::vector<double> tune_times = runner->run(module.op("mm").functions.at(0), tune_pointers, 3);

    CHECK(run_times.times_ms.size() == 3);
    CHECK(tune_times.size() == 3);
    for (double t : tune_times) CHECK(t > 0);
    REQUIRE(run_args[2].num_bytes() == tune_args[2].num_bytes());
    CHECK(std::memcmp(run_args[2].data(), tune_args[2].data(), run_args[2].num_bytes()) == 0);
    std::vector<Tensor> expected = module.reference("mm", {&run_args[0], &run_args[1]});
    const float* got = static_cast<const float*>(run_args[2].data());
    const float* want = static_cast<const float*>(expected.at(0).data());
    double max_err = 0;
    for (int64_t e = 0; e < run_args[2].num_elements(); ++e)
      max_err = std::max(max_err, double(std::fabs(got[e] - want[e])) / (std::fabs(want[e]) + 1.0));
    CHECK(max_err < 1e-5);
  }
}

TEST_CASE("the x86 executor runs a graph's entry on one workspace of its own (ir/CallerWorkspace.h)") {
  // examples/10_network.tex at S=64: a workspace of 160 KB, which the entry small_cnn allocates with
  // texrt_alloc on each call (over 64 KB); the executor calls small_cnn_with_workspace instead.
  CompileOptions options;
  options.target = "x86";
  options.stdlib_dir = TEXC_TEST_STDLIB_DIR;
  options.defines["S"] = 64;
  Module module = compile(ProgramSource::file(std::string(TEXC_TEST_STDLIB_DIR) + "/../examples/10_network.tex"), options);
  const std::vector<LoweredFunc>& funcs = module.op("small_cnn").functions;
  REQUIRE(funcs.back().workspace_bytes > 64 * 1024);
  std::vector<Tensor> args = module.arguments("small_cnn");
  for (size_t i = 0; i + 1 < args.size(); ++i) args[i].fill_random(unsigned(i + 1));
  std::vector<Tensor*> pointers;
  for (Tensor& t : args) pointers.push_back(&t);
  const std::map<std::string, void*> counting = {{"texrt_alloc", reinterpret_cast<void*>(&counting_alloc)},
                                                 {"texrt_free", reinterpret_cast<void*>(&counting_free)}};

  g_compiled_allocations = 0;
  std::unique_ptr<Executor> executor = make_jit_executor(funcs, CpuTargetOptions{}, counting);
  CallTimes times = executor->run(pointers, 3);
  CHECK(times.times_ms.size() == 3);
  CHECK(g_compiled_allocations == 0);  // no call allocated a workspace
  std::vector<uint8_t> executed(static_cast<const uint8_t*>(args.back().data()),
                                static_cast<const uint8_t*>(args.back().data()) + args.back().num_bytes());

  // The plain entry, through the same JIT: it allocates (the counter counts), the same output.
  std::unique_ptr<JitModule> jit = JitModule::create(funcs, CpuTargetOptions{}, counting);
  std::vector<void*> raw;
  for (Tensor& t : args) raw.push_back(t.data());
  std::memset(args.back().data(), 0, size_t(args.back().num_bytes()));
  jit->call("small_cnn", raw);
  CHECK(g_compiled_allocations == 1);
  CHECK(std::memcmp(executed.data(), args.back().data(), executed.size()) == 0);

  // Module::run (texc run's path, in a child process) gives the same output too.
  std::memset(args.back().data(), 0, size_t(args.back().num_bytes()));
  module.run("small_cnn", pointers, 2);
  CHECK(std::memcmp(executed.data(), args.back().data(), executed.size()) == 0);
}

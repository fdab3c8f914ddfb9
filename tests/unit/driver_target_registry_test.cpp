// Unit tests of the target registry (tools/driver/TargetRegistry.h) against the target table
// (ir/Target.h): one behaviour per described target, in the table's order, each with an executor;
// the table's predicates answer from its fields; x86-sse compiles for x86-64-v2 (SSE4.2, no AVX)
// unless --mcpu says otherwise.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "backends/llvm/CpuTargetMachine.h"
#include "ir/Target.h"
#include "tools/driver/CpuTarget.h"
#include "tools/driver/TargetRegistry.h"

using namespace texc;

TEST_CASE("every described target has one registered behaviour, in the table's order") {
  const std::vector<TargetBehaviour>& registered = registered_targets();
  const std::vector<Target>& described = all_targets();
  REQUIRE(registered.size() == described.size());
  for (size_t i = 0; i < described.size(); ++i) {
    CAPTURE(described[i].name);
    CHECK(registered[i].name == described[i].name);
    CHECK(bool(registered[i].make_executor));
    CHECK(&target_behaviour(described[i].name) == &registered[i]);
    CHECK(registered[i].run_repeat >= 1);
    // A target whose executor times its own calls reports those times (else run_op's would show).
    if (registered[i].times_own_calls) CHECK(bool(registered[i].format_run_result));
    // Its own code (obj, ptx, vdla, ...) is written by its entry's emitter; the outputs every
    // target shares (loops, graph, graph-dot) by Module::write.
    bool own_output = false;
    for (const std::string& kind : described[i].outputs)
      own_output = own_output || (kind != "loops" && kind != "graph" && kind != "graph-dot");
    CHECK(own_output == bool(registered[i].write_output));
    // A built-in intrinsic the table names is defined by the entry.
    CHECK(described[i].builtin_intrinsics.empty() == !registered[i].builtin_intrinsics);
  }
}

TEST_CASE("the table's predicates answer from its fields") {
  CHECK(is_gpu_target("cuda"));
  CHECK(is_gpu_target("cuda-interp"));
  CHECK_FALSE(is_gpu_target("x86"));
  CHECK_FALSE(is_gpu_target("no-such-target"));
  CHECK(llvm_cpu_arch_of("x86") == "x86");
  CHECK(llvm_cpu_arch_of("x86-sse") == "x86");
  CHECK(llvm_cpu_arch_of("arm") == "arm");
  CHECK(llvm_cpu_arch_of("cuda") == "");
  CHECK(is_llvm_cpu_target("x86-sse"));
  CHECK_FALSE(is_llvm_cpu_target("interp"));
  CHECK(takes_cpu_schedules("x86-sse"));
  CHECK(generates_vdla_programs("vdla"));
  CHECK_FALSE(generates_vdla_programs("x86"));
  CHECK(interprets_intrinsics("interp"));
  CHECK_FALSE(interprets_intrinsics("cuda-interp"));
  CHECK(is_host_alias("host"));
  CHECK(is_host_alias(""));
  CHECK_FALSE(is_host_alias("x86"));
}

TEST_CASE("x86-sse compiles for x86-64-v2: SSE4.2 without AVX, unless --mcpu names another CPU") {
  CompileOptions opts;
  opts.target = "x86-sse";
  CpuTargetOptions cpu = cpu_target_options(opts);
  CHECK(cpu.arch == "x86");
  CHECK(cpu.mcpu == "x86-64-v2");
  CHECK(missing_cpu_features(cpu, {"sse4.2", "avx", "avx2", "avx512f"}) ==
        std::vector<std::string>{"avx", "avx2", "avx512f"});
  opts.mcpu = "x86-64-v3";
  CHECK(cpu_target_options(opts).mcpu == "x86-64-v3");
  opts.target = "x86";  // x86 keeps the host's CPU
  opts.mcpu = "";
  CHECK(cpu_target_options(opts).mcpu == "");
}

// Unit tests of the target registry (tools/driver/TargetRegistry.h) against the target table
// (ir/Target.h): one behaviour per described target, in the table's order, each with an executor;
// the table's predicates answer from its fields.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "ir/Target.h"
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
    // A target that times its own calls reads their times back, and the reverse.
    CHECK(bool(registered[i].set_timed_calls) == bool(registered[i].timed_calls));
  }
}

TEST_CASE("the table's predicates answer from its fields") {
  CHECK(is_gpu_target("cuda"));
  CHECK(is_gpu_target("cuda-interp"));
  CHECK_FALSE(is_gpu_target("x86"));
  CHECK_FALSE(is_gpu_target("no-such-target"));
  CHECK(llvm_cpu_arch_of("x86") == "x86");
  CHECK(llvm_cpu_arch_of("arm") == "arm");
  CHECK(llvm_cpu_arch_of("cuda") == "");
  CHECK(is_llvm_cpu_target("x86"));
  CHECK_FALSE(is_llvm_cpu_target("interp"));
  CHECK(takes_cpu_schedules("x86"));
  CHECK(generates_vdla_programs("vdla"));
  CHECK_FALSE(generates_vdla_programs("x86"));
  CHECK(interprets_intrinsics("interp"));
  CHECK_FALSE(interprets_intrinsics("cuda-interp"));
  CHECK(is_host_alias("host"));
  CHECK(is_host_alias(""));
  CHECK_FALSE(is_host_alias("x86"));
}

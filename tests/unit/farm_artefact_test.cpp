// tools/farm/FarmArtefact.h: a candidate compiled on the tuner's side for a farm job (`texc tune
// --compile-on tuner`). The object emit_packed_object writes links into another process
// (JitModule::load_object) and computes what the JIT-compiled op computes; an artefact survives
// the job's JSON (base64) bit for bit and is part of the job's id; a worker refuses an artefact of
// another kind, for another triple, or using CPU features it lacks; what is not an object fails to link.
// A cuda-ptx artefact keeps its launch through the JSON and is refused by a device older than its PTX;
// a vdla-program one must be an intact program and is refused by a worker of another configuration.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <stdexcept>

#include "backends/llvm/LLVMBackend.h"
#include "tests/unit/llvm_test_ops.h"
#include "tools/farm/FarmArtefact.h"
#include "tools/farm/FarmJob.h"
#include "tuner/CpuRunners.h"

using namespace texc;
using namespace texc::llvm_test;

namespace {

CpuTargetOptions x86() { return CpuTargetOptions{"x86", "", "", 3}; }

std::vector<float> added(JitModule& m, int64_t n) {
  std::vector<float> a(n), b(n), c(n, 0);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = 0.5f + float(i);
    b[i] = -3.0f + 0.25f * float(i);
  }
  m.call("add", {a.data(), b.data(), c.data()});
  for (int64_t i = 0; i < n; ++i) REQUIRE(c[i] == a[i] + b[i]);
  return c;
}

}  // namespace

TEST_CASE("base64 round-trips every byte value and every length's padding") {
  std::string all;
  for (int c = 0; c < 256; ++c) all += char(c);
  for (size_t n = 0; n <= all.size(); n += (n < 8 ? 1 : 37)) {
    std::string bytes = all.substr(0, n);
    std::string text = base64_encode(bytes);
    CHECK(text.size() == (n + 2) / 3 * 4);
    REQUIRE(base64_decode(text));
    CHECK(*base64_decode(text) == bytes);
  }
  CHECK(base64_encode("texc") == "dGV4Yw==");
  CHECK(!base64_decode("dGV4Yw="));     // not a multiple of 4
  CHECK(!base64_decode("dGV4Y!=="));    // not the alphabet
  CHECK(!base64_decode("dG=4Ywxx"));    // padding in the middle
}

TEST_CASE("an object compiled once links into the process and computes the op") {
  const int64_t n = 1000;
  std::string object = emit_packed_object({elementwise_add(n)}, x86());
  REQUIRE(object.size() > 4);
  CHECK(object.substr(0, 4) == "\x7f" "ELF");
  std::unique_ptr<JitModule> m = JitModule::load_object(object, {"add"}, x86());
  added(*m, n);
  CHECK(m->lookup("add.packed") != nullptr);
  // An op the object does not define, and bytes that are no object, fail to link.
  CHECK_THROWS_AS(JitModule::load_object(object, {"sub"}, x86()), std::runtime_error);
  CHECK_THROWS_AS(JitModule::load_object(std::string(64, 'x'), {"add"}, x86()), std::runtime_error);
}

TEST_CASE("compile_farm_artefact: the object for this CPU, with what it was built for") {
  FarmArtefact a = compile_farm_artefact(elementwise_add(64), x86(), 30);
  Machine here = x86_machine(x86());
  CHECK(a.kind == "x86-object");
  CHECK(a.triple == here.triple);
  CHECK(a.cpu == here.cpu);
  CHECK(a.features == here.features);
  CHECK(a.entry == "add");
  added(*JitModule::load_object(a.bytes, {a.entry}, x86()), 64);
  CHECK(artefact_refusal(a, "x86", here) == "");
  CHECK_THROWS_WITH_AS(compile_farm_artefact(elementwise_add(64), CpuTargetOptions{"vdla", "", "", 3}, 30),
                       "texc compiles shipped artefacts for x86 and arm only, not vdla", std::runtime_error);
}

TEST_CASE("compile_farm_artefact for arm: the aarch64 object, its driver and the argument sizes") {
  CpuTargetOptions arm{"arm", "", "", 3};
  FarmArtefact a = compile_farm_artefact(elementwise_add(64), arm, 30);
  CHECK(a.kind == "arm-object");
  CHECK(a.triple.rfind("aarch64", 0) == 0);
  CHECK(a.bytes.substr(0, 4) == "\x7f" "ELF");
  CHECK(a.driver.find("add(") != std::string::npos);
  CHECK(a.input_bytes == std::vector<int64_t>{256, 256});
  CHECK(a.output_bytes == std::vector<int64_t>{256});
  ParsedArtefact back = parse_farm_artefact(a.to_json());
  REQUIRE(back.artefact);
  CHECK(back.artefact->driver == a.driver);
  CHECK(back.artefact->input_bytes == a.input_bytes);
  CHECK(back.artefact->output_bytes == a.output_bytes);
  CHECK(artefact_refusal(a, "arm", x86_machine(arm)) == "");
  CHECK(artefact_refusal(a, "x86", x86_machine(x86())).rfind("a shipped arm-object for aarch64", 0) == 0);
  Json no_driver = a.to_json();
  for (auto& member : no_driver.object)
    if (member.first == "driver") member.second = Json::str("");
  CHECK(parse_farm_artefact(no_driver).error == "an arm-object artefact with no driver");
}

TEST_CASE("a worker refuses an artefact of another kind, triple or CPU") {
  FarmArtefact a;
  a.kind = "x86-object";
  a.triple = "x86_64-unknown-linux-gnu";
  a.cpu = "znver5";
  a.features = {"avx2", "avx512f", "fma"};
  a.entry = "add";
  a.bytes = "\x7f" "ELF";
  Machine worker{"AMD EPYC", "x86_64-unknown-linux-gnu", "znver5", {"avx", "avx2", "avx512f", "fma"}};
  CHECK(artefact_refusal(a, "x86", worker) == "");
  CHECK(artefact_refusal(a, "arm", worker) ==
        "a shipped x86-object for x86_64-unknown-linux-gnu (znver5), but this worker measures arm and runs "
        "arm-objects only");
  CHECK(artefact_refusal(a, "cuda", worker) ==
        "a shipped x86-object for x86_64-unknown-linux-gnu (znver5), but this worker measures cuda and runs "
        "cuda-ptxs only");
  CHECK(artefact_refusal(a, "vdla", worker) ==
        "a shipped x86-object for x86_64-unknown-linux-gnu (znver5), but this worker measures vdla and runs "
        "vdla-programs only");
  CHECK(artefact_refusal(a, "interp", worker) ==
        "a shipped x86-object for x86_64-unknown-linux-gnu (znver5), but this worker measures interp and runs no shipped "
        "artefacts");
  FarmArtefact arm = a;
  arm.kind = "arm-object";
  arm.triple = "aarch64-unknown-linux-gnu";
  CHECK(artefact_refusal(arm, "x86", worker) ==
        "a shipped arm-object for aarch64-unknown-linux-gnu (znver5), but this worker measures x86 and runs "
        "x86-objects only");
  Machine other_triple = worker;
  other_triple.triple = "i686-unknown-linux-gnu";
  CHECK(artefact_refusal(a, "x86", other_triple) ==
        "a shipped x86-object for x86_64-unknown-linux-gnu, but this worker runs i686-unknown-linux-gnu");
  Machine avx2_only{"Intel Core", "x86_64-unknown-linux-gnu", "haswell", {"avx", "avx2", "fma"}};
  CHECK(artefact_refusal(a, "x86", avx2_only) ==
        "a shipped x86-object built for znver5 with avx512f, which this worker's CPU (haswell) lacks");
}

TEST_CASE("a job's artefact survives its JSON and is part of its id") {
  FarmJob job;
  job.device = "x86-test";
  job.sources.main = "a.tex";
  job.sources.files = {{"a.tex", "op add1(A: f32[4]) -> B {\n  compute { B[i] = A[i] + 1.0 }\n}\n"}};
  job.op = "add1";
  const std::string without = job.id();
  job.artefact = compile_farm_artefact(elementwise_add(16), x86(), 30);
  ParsedJob parsed = parse_farm_job(job.to_json());
  REQUIRE(parsed.job);
  REQUIRE(parsed.job->artefact);
  CHECK(parsed.job->artefact->bytes == job.artefact->bytes);
  CHECK(parsed.job->artefact->features == job.artefact->features);
  CHECK(parsed.job->id() == job.id());
  CHECK(job.id() != without);
  FarmJob changed = job;
  changed.artefact->bytes[20] ^= 1;
  CHECK(changed.id() != job.id());
  // Malformed artefacts make a malformed job.
  std::string text = job.to_json();
  std::string bad_bytes = text;
  bad_bytes.replace(bad_bytes.find("\"bytes\": \"") + 10, 4, "!!!!");
  CHECK(parse_farm_job(bad_bytes).error == "an artefact whose bytes are not base64");
  std::string no_entry = text;
  no_entry.replace(no_entry.find("\"entry\": \"add\""), 14, "\"entry\": \"\"");
  CHECK(parse_farm_job(no_entry).error == "an artefact with no entry");
}

TEST_CASE("a cuda-ptx artefact: its launch survives the JSON; a worker refuses PTX newer than its device") {
  FarmArtefact a;
  a.kind = "cuda-ptx";
  a.triple = kCudaArtefactTriple;
  a.cpu = "sm_80";
  a.entry = "mm";
  a.bytes = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry mm() { ret; }\n";
  a.launch.grid = {16, 2, 1};
  a.launch.block = {128, 1, 1};
  a.launch.shared_bytes = 50000;
  ParsedArtefact back = parse_farm_artefact(a.to_json());
  REQUIRE(back.artefact);
  CHECK(back.artefact->bytes == a.bytes);
  CHECK(back.artefact->launch.grid == a.launch.grid);
  CHECK(back.artefact->launch.block == a.launch.block);
  CHECK(back.artefact->launch.shared_bytes == 50000);
  CHECK(back.artefact->launch.zeroed_args.empty());  // no split-K: no "zeroed" member
  FarmArtefact split_k = a;  // its output C (argument 2, 127 x 255 f32) zeroed before each launch
  split_k.launch.zeroed_args = {{2u, uint64_t(127 * 255 * 4)}};
  ParsedArtefact split_back = parse_farm_artefact(split_k.to_json());
  REQUIRE(split_back.artefact);
  CHECK(split_back.artefact->launch.zeroed_args == split_k.launch.zeroed_args);
  Json bad_zeroed = split_k.to_json();
  for (auto& member : bad_zeroed.object)
    if (member.first == "zeroed") member.second.array[0].array.pop_back();
  CHECK(parse_farm_artefact(bad_zeroed).error == "a cuda-ptx artefact whose zeroed is not [argument, bytes] pairs");
  Json zero_block = a.to_json();
  for (auto& member : zero_block.object)
    if (member.first == "block") member.second.array[0] = Json::num(0);
  CHECK(parse_farm_artefact(zero_block).error == "a cuda-ptx artefact whose block is not 3 sizes");
  Json no_grid = a.to_json();
  for (auto& member : no_grid.object)
    if (member.first == "grid") member.second = Json::arr();
  CHECK(parse_farm_artefact(no_grid).error == "a cuda-ptx artefact with no grid of 3 sizes");
  CHECK(artefact_kind_of("cuda") == "cuda-ptx");
  CHECK(artefact_kind_of("cuda-interp") == "");
  Machine sm90{"", kCudaArtefactTriple, "sm_90", {}}, sm75{"", kCudaArtefactTriple, "sm_75", {}};
  CHECK(artefact_refusal(a, "cuda", sm90) == "");  // the driver compiles older PTX for a newer device
  CHECK(artefact_refusal(a, "cuda", sm75) == "a shipped cuda-ptx for sm_80, newer than this worker's device (sm_75)");
  FarmArtefact unknown = a;
  unknown.cpu = "sm_1000";
  CHECK(artefact_refusal(unknown, "cuda", sm90).rfind("a shipped cuda-ptx for sm_1000, which is not a PTX target texc knows", 0) == 0);
  CHECK(artefact_refusal(a, "x86", Machine{"", "x86_64-unknown-linux-gnu", "znver5", {}}) ==
        "a shipped cuda-ptx for nvptx64-nvidia-cuda (sm_80), but this worker measures x86 and runs x86-objects only");
}

TEST_CASE("a vdla-program artefact: its configuration's id, an intact program, refused by another configuration") {
  vdla::VdlaConfig base, slower = base;
  slower.dram_latency_cycles += 7;
  CHECK(vdla_config_id(base) == vdla_config_id(vdla::VdlaConfig{}));
  CHECK(vdla_config_id(base) != vdla_config_id(slower));
  CHECK(vdla_config_id(base).rfind("config-", 0) == 0);
  CHECK(artefact_kind_of("vdla") == "vdla-program");
  FarmArtefact a;
  a.kind = "vdla-program";
  a.triple = kVdlaArtefactTriple;
  a.cpu = vdla_config_id(base);
  a.entry = "conv";
  a.bytes = "not a program";
  CHECK(parse_farm_artefact(a.to_json()).error.rfind("a vdla-program artefact that is not a VDLA program: ", 0) == 0);
  Machine worker{"", kVdlaArtefactTriple, vdla_config_id(base), {}}, other{"", kVdlaArtefactTriple, vdla_config_id(slower), {}};
  CHECK(artefact_refusal(a, "vdla", worker) == "");
  CHECK(artefact_refusal(a, "vdla", other) == "a shipped vdla-program for VDLA configuration " + vdla_config_id(base) +
                                                  ", but this worker simulates " + vdla_config_id(slower));
}

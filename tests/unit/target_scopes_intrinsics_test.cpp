// Unit tests of what a target declares besides its passes: its memory scopes (a rank and a tag,
// ir/IR.h's MemScope; the vdla target's on-chip buffers declared in its entry of ir/Target.cpp and
// named by buffer in backends/vdla/VdlaScopes.h), how a schedule's scope name resolves through the
// target being compiled, and its built-in intrinsics: vdla.gemm defined from the accelerator's
// configuration (backends/vdla/VdlaIntrinsics.h), handed to the lowering by the driver's target
// entry (tools/driver/TargetRegistry.h), so that a configuration of another block tensorizes
// another nest.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "backends/vdla/VdlaIntrinsics.h"
#include "backends/vdla/VdlaScopes.h"
#include "ir/IRParser.h"
#include "ir/IRPrinter.h"
#include "ir/Target.h"
#include "schedule_test_support.h"
#include "tools/driver/TargetRegistry.h"

using namespace texc;
using namespace texc::testing;

namespace {

std::vector<int64_t> shape_of(const Buffer& b) {
  std::vector<int64_t> dims;
  for (const Expr& d : b->shape) {
    int64_t v = -1;
    REQUIRE(is_const_int(d, &v));
    dims.push_back(v);
  }
  return dims;
}

// A dense layer on VDLA tiles of BLOCK_OUT output lanes and BLOCK_IN reduction lanes, scheduled
// as tests/vdla/alu_two_tiles.tex's first op: the accumulator tile in vdla.acc, the operands in
// vdla.inp and vdla.wgt, the output-lane loop tensorized with vdla.gemm.
std::string dense_vdla(int64_t block_in, int64_t block_out) {
  std::string in = std::to_string(block_in), out = std::to_string(block_out);
  return "op d(X: i8[3, 2, " + in + "], W: i8[2, 2, " + out + ", " + in + "]) -> Y {\n"
         "  compute {\n"
         "    Acc[m, nb, no: " + out + "] = sum(i32(X[m, kb, ki]) * i32(W[nb, kb, no, ki]) for kb in 0..2, ki in 0.." + in + ")\n"
         "    Y[m, nb, no] = i8(min(max(Acc[m, nb, no] >> 6, -128), 127))\n"
         "  }\n"
         "  schedule vdla {\n"
         "    AccL = cache_write(Acc, vdla.acc)\n"
         "    inline(Acc)\n"
         "    compute_at(AccL, Y.nb)\n"
         "    reorder(AccL.kb, AccL.no, AccL.ki)\n"
         "    XL = cache_read(X, vdla.inp, AccL)\n"
         "    WL = cache_read(W, vdla.wgt, AccL)\n"
         "    compute_at(XL, AccL.kb)\n"
         "    compute_at(WL, AccL.kb)\n"
         "    tensorize(AccL.no, vdla.gemm)\n"
         "  }\n"
         "}\n";
}

LoweredFunc lower_vdla(const OpDef& op, const vdla::VdlaConfig& config) {
  LowerOptions options;
  options.target = "vdla";
  options.builtin_intrinsics = vdla::builtin_intrinsics(config);
  return lower_op(op, options);
}

}  // namespace

TEST_CASE("a memory scope is a rank and a tag; the untagged scopes are the ranks") {
  CHECK(MemScope::Global.name() == "global");
  CHECK(MemScope::Shared.name() == "shared");
  CHECK(MemScope::Local.name() == "local");
  MemScope inp{StorageRank::Local, "vdla.inp"};
  CHECK(inp.name() == "vdla.inp");
  CHECK(inp != MemScope::Local);  // a tagged memory is not the rank's plain one
  CHECK(MemScope::Local < inp);
}

TEST_CASE("each target declares its scopes; vdla declares its three on-chip buffers") {
  CHECK(scope_names_of("interp") == "global, local");
  CHECK(scope_names_of("x86") == "global, local");
  CHECK(scope_names_of("cuda") == "global, shared, local");
  CHECK(scope_names_of("vdla") == "global, vdla.inp, vdla.wgt, vdla.acc");
  CHECK(scope_names() == std::vector<std::string>{"global", "local", "shared", "vdla.inp", "vdla.wgt", "vdla.acc"});
  for (const char* tag : {"vdla.inp", "vdla.wgt", "vdla.acc"}) {
    CAPTURE(tag);
    std::optional<MemScope> s = find_scope("vdla", tag);
    REQUIRE(s);
    CHECK(s->rank == StorageRank::Local);
    CHECK(s->tag == tag);
    CHECK_FALSE(find_scope("x86", tag));
    CHECK_FALSE(find_scope("cuda", tag));
    CHECK(find_any_scope(tag) == s);
  }
  CHECK(find_scope("cuda-interp", "shared") == MemScope::Shared);
  CHECK_FALSE(find_scope("arm", "shared"));
  CHECK_FALSE(find_scope("vdla", "local"));
  CHECK_FALSE(find_scope("no-such-target", "global"));
  CHECK_FALSE(find_any_scope("vdla.out"));
  // The VDLA generator's names for the buffers are the target's declarations.
  CHECK(vdla::scope_of(vdla::OnChip::Inp) == *find_scope("vdla", "vdla.inp"));
  CHECK(vdla::scope_of(vdla::OnChip::Wgt) == *find_scope("vdla", "vdla.wgt"));
  CHECK(vdla::scope_of(vdla::OnChip::Acc) == *find_scope("vdla", "vdla.acc"));
  CHECK(vdla::on_chip_buffer(*find_scope("vdla", "vdla.wgt")) == vdla::OnChip::Wgt);
  CHECK_FALSE(vdla::on_chip_buffer(MemScope::Local));
  CHECK_FALSE(vdla::on_chip_buffer(MemScope::Global));
}

TEST_CASE("the IR text names a declared scope and reads it back with its rank") {
  std::string text =
      "func f(A: i8[16] input, B: i8[16] output) {\n"
      "  allocate T: i8[16] vdla.inp {\n"
      "    for i in 0..16 {\n"
      "      T[i] = A[i]\n"
      "    }\n"
      "    for i in 0..16 {\n"
      "      B[i] = T[i]\n"
      "    }\n"
      "  }\n"
      "}\n";
  LoweredFunc f = parse_func(text);
  std::string printed = to_string(f);
  CHECK(printed.find("vdla.inp") != std::string::npos);
  CHECK(to_string(parse_func(printed)) == printed);
}

TEST_CASE("a schedule's scope resolves through the target being compiled") {
  std::string cpu_op = R"(
op f(A: f32[64]) -> B {
  compute { B[i] = A[i] * 2.0 }
  schedule cpu { AS = cache_read(A, vdla.inp, B) }
}
)";
  Diagnostic d = schedule_error(cpu_op);
  CHECK(d.id == DiagId::ScopeNotOnTarget);
  CHECK(d.message == "memory scope 'vdla.inp' is not available on target 'interp' (its scopes: global, local)");
  CHECK(d.loc.line == 4);
  CHECK(d.loc.col == 37);
  // local is a rank every target has.
  check_correct(R"(
op f(A: f32[64]) -> B {
  compute { B[i] = A[i] * 2.0 }
  schedule cpu { AS = cache_read(A, local, B) }
}
)");
}

TEST_CASE("vdla.gemm is the GEMM micro-op of the configuration") {
  vdla::VdlaConfig spec;
  IntrinsicDef gemm = vdla::gemm_intrinsic(spec);
  CHECK(gemm.name == "vdla.gemm");
  CHECK(gemm.lower_kind == "vdla.gemm");
  REQUIRE(gemm.inputs.size() == 2);
  REQUIRE(gemm.outputs.size() == 1);
  CHECK(shape_of(gemm.inputs[0]) == std::vector<int64_t>{16});
  CHECK(shape_of(gemm.inputs[1]) == std::vector<int64_t>{16, 16});
  CHECK(shape_of(gemm.outputs[0]) == std::vector<int64_t>{16});

  vdla::VdlaConfig narrow;
  narrow.block_in = 32;
  narrow.block_out = 8;
  gemm = vdla::gemm_intrinsic(narrow);
  CHECK(shape_of(gemm.inputs[0]) == std::vector<int64_t>{32});
  CHECK(shape_of(gemm.inputs[1]) == std::vector<int64_t>{8, 32});
  CHECK(shape_of(gemm.outputs[0]) == std::vector<int64_t>{8});
  REQUIRE(gemm.stages.size() == 1);
  CHECK(gemm.stages[0].axes.size() == 1);

  vdla::VdlaConfig batched;
  batched.batch = 2;
  gemm = vdla::gemm_intrinsic(batched);
  CHECK(shape_of(gemm.inputs[0]) == std::vector<int64_t>{2, 16});
  CHECK(shape_of(gemm.outputs[0]) == std::vector<int64_t>{2, 16});
  CHECK(gemm.stages[0].axes.size() == 2);
}

TEST_CASE("the driver's target entries define exactly the built-ins the table names") {
  for (const Target& t : all_targets()) {
    CAPTURE(t.name);
    CompileOptions opts;
    opts.target = t.name;
    std::vector<std::string> defined;
    for (const IntrinsicDef& d : builtin_intrinsics_of(opts)) defined.push_back(d.name);
    CHECK(defined == t.builtin_intrinsics);
  }
  // vdla's follows --vdla-config.
  std::string path = "target_scopes_intrinsics_test_block8.json";
  {
    std::ofstream f(path);
    // Smaller buffers with the smaller block, so that their depths keep fitting the instructions.
    f << "{\"block_in\": 8, \"block_out\": 8, \"inp_buffer_bytes\": 16384, \"wgt_buffer_bytes\": 65536, "
         "\"acc_buffer_bytes\": 65536}\n";
  }
  CompileOptions opts;
  opts.target = "vdla";
  opts.vdla_config = path;
  std::vector<IntrinsicDef> defs = builtin_intrinsics_of(opts);
  std::remove(path.c_str());
  REQUIRE(defs.size() == 1);
  CHECK(shape_of(defs[0].inputs[1]) == std::vector<int64_t>{8, 8});
}

TEST_CASE("tensorize(L, vdla.gemm) matches the block of the configuration it is given") {
  vdla::VdlaConfig spec, block8;
  block8.block_in = 8;
  block8.block_out = 8;
  // 16-lane tiles: the spec's block.
  OpDef op16 = compile_op(dense_vdla(16, 16));
  CHECK(to_string(lower_vdla(op16, spec)).find("tensorized(vdla.gemm)") != std::string::npos);
  // 8-lane tiles: an accelerator of block 8 takes them; the spec's does not.
  OpDef op8 = compile_op(dense_vdla(8, 8));
  CHECK(to_string(lower_vdla(op8, block8)).find("tensorized(vdla.gemm)") != std::string::npos);
  try {
    lower_vdla(op8, spec);
    FAIL("an 8-lane tile tensorized with the 16-lane vdla.gemm");
  } catch (const UserError& e) {
    CHECK(e.diag.id == DiagId::TensorizeMismatch);
    CHECK(std::string(e.what()).find("cannot tensorize loop 'AccL.no' with 'vdla.gemm'") != std::string::npos);
  }
  // Reduction lanes and output lanes come from their own fields.
  vdla::VdlaConfig wide_in = spec;
  wide_in.block_in = 32;
  OpDef op_in32 = compile_op(dense_vdla(32, 16));
  CHECK(to_string(lower_vdla(op_in32, wide_in)).find("tensorized(vdla.gemm)") != std::string::npos);
}

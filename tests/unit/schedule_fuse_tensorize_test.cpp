// Automatic fusion by stage kind (lower/AutoFuse.cpp) and tensorize (lower/schedule/Tensorize.cpp):
// lowered for the interp target, run by the loop interpreter (tensorized nests call the extern
// functions of backends/interp/ExternRegistry.h) and compared with the reference interpreter; a
// `lower llvm` intrinsic is also lowered for x86 and checked as text.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "schedule_test_support.h"

using namespace texc;
using namespace texc::testing;

namespace {

// The convolution of language.md written out in the op (so that no imported schedule applies):
// a zero-padding stage Xp, the reduction Y and the elementwise R.
std::string conv_relu(const std::string& schedule) {
  return R"(
op conv_relu(X: f32[1, 3, 10, 10], W: f32[4, 3, 3, 3]) -> R {
  compute {
    Xp[n, c, y: 12, x: 12] = select(y >= 1 && y < 11 && x >= 1 && x < 11, X[n, c, y - 1, x - 1], 0.0)
    Y[n, f, oy: 10, ox: 10] = sum(Xp[n, c, oy + ry, ox + rx] * W[f, c, ry, rx] for c in 0..3, ry in 0..3, rx in 0..3)
    R[n, f, y, x] = max(Y[n, f, y, x], 0.0)
  }
)" + (schedule.empty() ? "" : "  schedule cpu {\n" + schedule + "\n  }\n") + "}\n";
}

}  // namespace

TEST_CASE("auto-fusion: the pad is inlined and relu is computed in the convolution's output loop") {
  std::string text = conv_relu("");
  check_correct(text);
  std::string planned = ir_after(text, "plan_storage");
  CHECK_NOT_CONTAINS(planned, "allocate Xp");              // inlined into the convolution
  CHECK_CONTAINS(planned, "allocate Y: f32[1, 1, 1, 1]");  // one point per output-loop iteration
  CHECK_CONTAINS(planned, "R[R.n");
}

TEST_CASE("--no-fuse keeps every stage stored in full") {
  std::string text = conv_relu("");
  check_correct(text, /*no_fuse=*/true);
  std::string planned = ir_after(text, "plan_storage", /*no_fuse=*/true);
  CHECK_CONTAINS(planned, "allocate Xp: f32[1, 3, 12, 12]");
  CHECK_CONTAINS(planned, "allocate Y: f32[1, 4, 10, 10]");
}

TEST_CASE("auto-fusion follows the schedule of the reduction: reduction loop outside spatial loops") {
  // oyo, Y.c, oyi: the reduction loop c sits outside the spatial loops oyi and Y.ox, so relu runs
  // after the c loop over a 4-row strip (with a tail strip of 2 rows).
  std::string text = conv_relu(
      "oyo, oyi = split(Y.oy, 4)\n"
      "reorder(oyo, Y.c, oyi, Y.ox, Y.ry, Y.rx)\n");
  check_correct(text);
  CHECK_CONTAINS(ir_after(text, "plan_storage"), "allocate Y: f32[1, 1, 4, 10]");
}

TEST_CASE("auto-fusion with a tiled, vectorized reduction") {
  std::string text = R"(
op dense_relu(A: f32[13, 16], B: f32[16, 21], bias: f32[21]) -> R {
  compute {
    C[i, j] = sum(A[i, k] * B[k, j] for k in 0..16)
    T[i, j] = C[i, j] + bias[j]
    R[i, j] = max(T[i, j], 0.0)
  }
  schedule cpu {
    io, jo, ii, ji = tile(C.i, C.j, 4, 8)
    reorder(io, jo, C.k, ii, ji)
    vectorize(ji)
    parallel(io)
  }
}
)";
  check_correct(text);
  std::string planned = ir_after(text, "plan_storage");
  CHECK_CONTAINS(planned, "allocate C: f32[4, 8]");
  CHECK_NOT_CONTAINS(planned, "allocate T");
}

TEST_CASE("auto-fusion shares the reduction's guards on loops outside its output loop") {
  // ty3o*2 + ty3i < 85 guards C's iterations past the fused (li1, C.j) range; those map to points
  // of the next row block (li1 = 5), which Q must not recompute from an unwritten C.
  std::string text = R"(
op int8_matmul(A: i8[13, 11], B: i8[11, 17]) -> Q {
  compute {
    C[i, j] = sum(i32(A[i, k]) * i32(B[k, j]) for k in 0..11)
    Q[i, j] = i8(min(max(C[i, j] >> 2, -128), 127))
  }
  schedule cpu {
    lo1, li1 = split(C.i, 5)
    lf2 = fuse(li1, C.j)
    tx3o, ty3o, tx3i, ty3i = tile(lo1, lf2, 4, 2)
    parallel(ty3o)
  }
}
)";
  check_correct(text);
  CHECK_CONTAINS(ir_after(text, "plan_storage"), "allocate C: i32[1, 1]");
}

TEST_CASE("auto-fusion follows the reduction's own loops when its points per iteration are no box") {
  // fo is the output loop; the fused (li, j) loop split by 4 gives it scattered points of two rows,
  // and the guard fo*4 + fi < 85 inside it excludes points of the next row block: Q is not computed
  // over a box but in a copy of C's spatial loop fi under C's guards, at exactly C's points, and C
  // is allocated per iteration of fo (the two rows four points can touch), not whole.
  std::string text = R"(
op int8_matmul(A: i8[13, 11], B: i8[11, 17]) -> Q {
  compute {
    C[i, j] = sum(i32(A[i, k]) * i32(B[k, j]) for k in 0..11)
    Q[i, j] = i8(min(max(C[i, j] >> 2, -128), 127))
  }
  schedule cpu {
    lo, li = split(C.i, 5)
    f = fuse(li, C.j)
    fo, fi = split(f, 4)
    reorder(lo, fo, C.k, fi)
  }
}
)";
  check_correct(text);
  std::string planned = ir_after(text, "plan_storage");
  CHECK_CONTAINS(planned, "allocate C: i32[2, 17]");
  CHECK_CONTAINS(planned, "if (lo*5 + (fo*4 + fi)/17 < 13 && fo*4 + fi < 85) {\n            Q[");
}

TEST_CASE("conv2d imported from the standard library, with relu, is correct with its own schedule") {
  check_correct(R"(
import nn.conv2d
op conv_relu(X: f32[1, 3, 10, 10], W: f32[4, 3, 3, 3]) -> R {
  compute {
    Y = conv2d(X, W, pad = 1)
    R[n, f, y, x] = max(Y[n, f, y, x], 0.0)
  }
}
)");
}

TEST_CASE("auto-fusion after cache_write: the consumer follows the copy out of the register tile") {
  std::string text = R"(
op mm_relu(A: f32[30, 20], B: f32[20, 27]) -> R {
  compute {
    C[i, j] = sum(A[i, k] * B[k, j] for k in 0..20)
    R[i, j] = max(C[i, j], 0.0)
  }
  schedule cpu {
    CL = cache_write(C, local)
    io, ii = split(C.i, 8)
    jo, ji = split(C.j, 8)
    reorder(io, jo, ii, ji)
    compute_at(CL, jo)
    vectorize(ji)
  }
}
)";
  check_correct(text);
  std::string planned = ir_after(text, "plan_storage");
  CHECK_CONTAINS(planned, "allocate C: f32[1, 8]");
  CHECK_CONTAINS(planned, "allocate CL: f32[8, 8] local");
}

TEST_CASE("a consumer the schedule names is not fused") {
  std::string text = conv_relu("rxo, rxi = split(R.x, 4)\n");
  check_correct(text);
  CHECK_CONTAINS(ir_after(text, "plan_storage"), "allocate Y: f32[1, 4, 10, 10]");
}

namespace {

std::string dot16_op(const std::string& schedule, const std::string& weight_type = "i8[32, 16]",
                     const std::string& weight_access = "W[o, k]", int k_extent = 16) {
  std::string k = std::to_string(k_extent);
  return R"(
intrinsic dot16(a: i8[16], b: i8[16, 16]) -> c {
  compute { c[j] = sum(i32(a[k]) * i32(b[j, k]) for k in 0..16) }
  lower extern "my_dot16"
}
op gemv(X: i8[4, )" +
         k + "], W: " + weight_type + R"() -> Y {
  compute { Y[n, o] = sum(i32(X[n, k]) * i32()" +
         weight_access + ") for k in 0.." + k + R"() }
  schedule cpu {
)" + schedule +
         "\n  }\n}\n";
}

}  // namespace

TEST_CASE("tensorize with an extern intrinsic") {
  std::string text = dot16_op("oo, oi = split(Y.o, 16)\ntensorize(oi, dot16)");
  check_correct(text);
  std::string planned = ir_after(text, "plan_storage");
  CHECK_CONTAINS(planned, "call my_dot16(");
  CHECK_NOT_CONTAINS(planned, "for oi");
}

TEST_CASE("tensorize into an intermediate computed at its consumer's loop") {
  // The extern call writes Y through a pointer with the strides tensorize checked against Y's full
  // shape, so plan_storage keeps Y whole.
  std::string text = R"(
intrinsic dot16(a: i8[16], b: i8[16, 16]) -> c {
  compute { c[j] = sum(i32(a[k]) * i32(b[j, k]) for k in 0..16) }
  lower extern "my_dot16"
}
op gemv_add(X: i8[4, 16], W: i8[32, 16]) -> Z {
  compute {
    Y[n, o] = sum(i32(X[n, k]) * i32(W[o, k]) for k in 0..16)
    Z[n, o] = Y[n, o] * 3 + 1
  }
  schedule cpu {
    compute_at(Y, Z.n)
    oo, oi = split(Y.o, 16)
    tensorize(oi, dot16)
  }
}
)";
  check_correct(text);
  std::string planned = ir_after(text, "plan_storage");
  CHECK_CONTAINS(planned, "allocate Y: i32[4, 32]");
  CHECK_CONTAINS(planned, "call my_dot16(");
}

TEST_CASE("tensorize diagnostics say which part did not match") {
  SUBCASE("shape") {
    Diagnostic d = schedule_error(dot16_op("oo, oi = split(Y.o, 8)\ntensorize(oi, dot16)"));
    CHECK(d.id == DiagId::TensorizeMismatch);
    CHECK(d.message ==
          "cannot tensorize loop 'oi' with 'dot16': shape/extent: loop 'oi' has extent 8 but the intrinsic's axis "
          "'j' has extent 16");
  }
  SUBCASE("stride") {
    Diagnostic d = schedule_error(dot16_op("oo, oi = split(Y.o, 16)\ntensorize(oi, dot16)", "i8[16, 32]", "W[k, o]"));
    CHECK(d.message ==
          "cannot tensorize loop 'oi' with 'dot16': stride: the stride of buffer 'W' for loop 'oi' is 1 but the "
          "intrinsic's 'b' has 16 for axis 'j'");
  }
  SUBCASE("element type") {
    Diagnostic d = schedule_error(dot16_op("oo, oi = split(Y.o, 16)\ntensorize(oi, dot16)", "i16[32, 16]"));
    CHECK(d.message ==
          "cannot tensorize loop 'oi' with 'dot16': element type: 'W' is i16 but the intrinsic's 'b' is i8");
  }
  SUBCASE("incomplete reduction") {
    Diagnostic d = schedule_error(
        dot16_op("oo, oi = split(Y.o, 16)\nko, ki = split(Y.k, 16)\nreorder(oo, ko, oi, ki)\ntensorize(oi, dot16)",
                 "i8[32, 32]", "W[o, k]", 32));
    CHECK(d.message ==
          "cannot tensorize loop 'oi' with 'dot16': the reduction of 'Y' over 'k' is not complete under loop 'oi' "
          "(loop 'ko' outside it also drives it)");
  }
  SUBCASE("a target built-in") {
    Diagnostic d = schedule_error(dot16_op("oo, oi = split(Y.o, 16)\ntensorize(oi, vdla.gemm)"));
    CHECK(d.id == DiagId::IntrinsicNotAvailable);
    CHECK(d.message == "intrinsic 'vdla.gemm' is not available on target 'interp'");
  }
}

namespace {

// An accumulation over kb (outside the tensorized loop) and ki (inside it), tensorized with an
// LLVM target intrinsic (vpdpbusd's pattern).
const char* kVnniOp = R"(
intrinsic vnni(a: u8[4], b: i8[16, 4]) -> c {
  compute { c[j] = sum(i32(a[k]) * i32(b[j, k]) for k in 0..4) }
  lower llvm "llvm.x86.avx512.vpdpbusd.512"
}
op acc(X: u8[3, 5, 4], W: i8[2, 5, 16, 4]) -> Acc {
  compute { Acc[m, nb, no: 16] = sum(i32(X[m, kb, ki]) * i32(W[nb, kb, no, ki]) for kb in 0..5, ki in 0..4) }
  schedule cpu {
    reorder(Acc.m, Acc.nb, Acc.kb, Acc.no, Acc.ki)
    tensorize(Acc.no, vnni)
  }
}
)";

}  // namespace

TEST_CASE("tensorize with a lower llvm intrinsic: interp runs the matched loops") {
  check_correct(kVnniOp);
  std::string lowered = ir_after(kVnniOp, "lower_blocks");
  CHECK_NOT_CONTAINS(lowered, "llvm.x86");
  CHECK_CONTAINS(lowered, "for Acc.ki");
}

TEST_CASE("tensorize with a lower llvm intrinsic: on x86 one call per reduction step, after the hoisted init") {
  std::string lowered = ir_after(kVnniOp, "lower_blocks", false, "x86");
  // The output's address and element count first, then the inputs' (parameter order).
  CHECK_CONTAINS(lowered, "call llvm.x86.avx512.vpdpbusd.512(address_of:i64(Acc[Acc.m, Acc.nb, 0]), 16, "
                          "address_of:i64(X[Acc.m, Acc.kb, 0]), 4, address_of:i64(W[Acc.nb, Acc.kb, 0, 0]), 64)");
  CHECK_NOT_CONTAINS(lowered, "for Acc.ki");
  // The accumulator is reset over the 16 lanes before the loop over kb.
  size_t init = lowered.find("= 0i32"), kb = lowered.find("for Acc.kb");
  REQUIRE(init != std::string::npos);
  REQUIRE(kb != std::string::npos);
  CHECK(init < kb);
}

TEST_CASE("tensorize with a lower llvm intrinsic of another CPU target") {
  OpDef op = compile_op(kVnniOp);
  LowerOptions options;
  options.target = "arm";
  try {
    lower_op(op, options);
    FAIL("expected an error");
  } catch (const UserError& e) {
    CHECK(e.diag.message ==
          "intrinsic 'vnni' lowers to 'llvm.x86.avx512.vpdpbusd.512', an instruction of target 'x86', not of target "
          "'arm'; tensorize with it in a `schedule x86` block");
  }
}

namespace {

// kVnniOp with `requires` and a knob that chooses the instruction (as nn.int8_cpu's D8X_VNNI).
const char* kVnniKnobOp = R"(
intrinsic vnni(a: u8[4], b: i8[16, 4]) -> c {
  compute { c[j] = sum(i32(a[k]) * i32(b[j, k]) for k in 0..4) }
  lower llvm "llvm.x86.avx512.vpdpbusd.512" requires "avx512vnni"
}
op acc(X: u8[3, 5, 4], W: i8[2, 5, 16, 4]) -> Acc {
  compute { Acc[m, nb, no: 16] = sum(i32(X[m, kb, ki]) * i32(W[nb, kb, no, ki]) for kb in 0..5, ki in 0..4) }
  schedule x86 {
    knob U in [2, 1]
    knob V in [true, false]
    if V {
      reorder(Acc.m, Acc.nb, Acc.kb, Acc.no, Acc.ki)
      tensorize(Acc.no, vnni)
    } else {
      reorder(Acc.m, Acc.nb, Acc.kb, Acc.ki, Acc.no)
      vectorize(Acc.no)
    }
  }
}
)";

// A CPU that lacks avx512vnni (and nothing else).
CpuFeatureQuery without_vnni() {
  CpuFeatureQuery cpu;
  cpu.description = "x86 --mcpu test";
  cpu.missing = [](const std::vector<std::string>& features) {
    std::vector<std::string> out;
    for (const std::string& f : features)
      if (f == "avx512vnni") out.push_back(f);
    return out;
  };
  return cpu;
}

}  // namespace

TEST_CASE("a CPU without the tensorized instruction: a knob the user did not set takes a value without it") {
  OpDef op = compile_op(kVnniKnobOp);
  LowerOptions options;
  options.target = "x86";
  options.cpu_features = without_vnni();
  std::vector<Remark> remarks;
  options.remarks = &remarks;
  std::string lowered = to_string(lower_op(op, options));
  CHECK_NOT_CONTAINS(lowered, "llvm.x86");
  REQUIRE(remarks.size() >= 1);
  CHECK(remarks[0].message ==
        "tensorize with 'vnni' left out: target x86 --mcpu test lacks avx512vnni, which 'llvm.x86.avx512.vpdpbusd.512' "
        "requires; the schedule runs with knob V = false instead of true");
  CHECK(remarks[0].loc.line == 13);
  // A CPU with the instruction, or no query: the call stays.
  options.cpu_features = CpuFeatureQuery{};
  CHECK_CONTAINS(to_string(lower_op(op, options)), "llvm.x86.avx512.vpdpbusd.512");
}

TEST_CASE("a CPU without the tensorized instruction the user chose: an error at the tensorize") {
  OpDef op = compile_op(kVnniKnobOp);
  LowerOptions options;
  options.target = "x86";
  options.cpu_features = without_vnni();
  options.knobs = {{"V", 1}};  // --knob V=true
  try {
    lower_op(op, options);
    FAIL("expected an error");
  } catch (const UserError& e) {
    CHECK(e.diag.message ==
          "cannot tensorize with 'vnni' on target x86 --mcpu test: the CPU lacks avx512vnni, which "
          "'llvm.x86.avx512.vpdpbusd.512' requires; choose a CPU that has it (--mcpu, --mattr +avx512vnni) or a "
          "schedule without this tensorize");
    CHECK(e.diag.loc.line == 13);
    CHECK(e.diag.loc.col == 25);
  }
  // Another knob set: V, not set, still gives way.
  options.knobs = {{"U", 1}};
  CHECK_NOT_CONTAINS(to_string(lower_op(op, options)), "llvm.x86");
  // interp evaluates the pattern: nothing is asked.
  options.target = "interp";
  CHECK_NOTHROW(lower_op(op, options));
}

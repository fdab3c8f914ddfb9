// Front end: compile_source on good inputs (the OpDef produced: stages, shapes, types, schedules)
// and on bad inputs (the diagnostic's id, location and message).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "frontend/Suggest.h"
#include "frontend/Frontend.h"
#include "ir/ConstEval.h"
#include "ir/Diagnostics.h"
#include "ir/IRPrinter.h"
#include "ir/Op.h"

using namespace texc;

namespace {

FrontendOptions stdlib_options() {
  FrontendOptions o;
  o.stdlib_dir = TEXC_TEST_STDLIB_DIR;
  return o;
}

Program compile(const std::string& text, FrontendOptions options = stdlib_options()) {
  return compile_source("test.tex", text, options);
}

/// The diagnostic compile() throws; fails the test if it does not throw.
Diagnostic error_of(const std::string& text, FrontendOptions options = stdlib_options()) {
  try {
    compile(text, options);
  } catch (const UserError& e) {
    return e.diag;
  }
  FAIL("expected a UserError");
  return {};
}

std::vector<int64_t> shape_of(const Buffer& b) {
  std::vector<int64_t> out;
  for (const Expr& e : b->shape) {
    int64_t v = -1;
    REQUIRE(is_const_int(e, &v));
    out.push_back(v);
  }
  return out;
}

/// Line and column (1-based) of the `occurrence`-th occurrence of `needle` in `text`.
std::pair<uint32_t, uint32_t> where(const std::string& text, const std::string& needle, int occurrence = 1) {
  size_t pos = std::string::npos;
  for (int k = 0; k < occurrence; ++k) pos = text.find(needle, pos == std::string::npos ? 0 : pos + 1);
  REQUIRE(pos != std::string::npos);
  uint32_t line = 1, col = 1;
  for (size_t i = 0; i < pos; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

/// Compiles TEXT, which must fail with diagnostic ID at the OCC-th occurrence of NEEDLE, with MSG.
#define CHECK_ERROR_AT(TEXT, ID, NEEDLE, OCC, MSG)              \
  do {                                                         \
    std::string text_ = (TEXT);                                \
    Diagnostic d_ = error_of(text_);                           \
    auto [line_, col_] = where(text_, NEEDLE, OCC);            \
    CHECK_MESSAGE(d_.id == DiagId::ID, std::string(diag_name(d_.id)));      \
    CHECK(d_.loc.line == line_);                               \
    CHECK(d_.loc.col == col_);                                 \
    CHECK(d_.message == (MSG));                                \
  } while (0)

const char* kMatmul = R"(
param M = 64
param N = 32
param K = 16
op matmul(A: f32[M, K], B: f32[K, N]) -> C {
  compute {
    C[i, j] = sum(A[i, k] * B[k, j] for k in 0..K)
  }
  schedule cpu {
    io, ii = split(C.i, 32)
    ko, ki = split(C.k, 4)
    reorder(io, ko, ii, ki)
    parallel(io)
  }
}
)";

}  // namespace

TEST_CASE("matmul elaborates to one reduction stage with constant shapes") {
  Program p = compile(kMatmul);
  REQUIRE(p.ops.size() == 1);
  const OpDef& op = p.ops[0];
  CHECK(op.name == "matmul");
  REQUIRE(op.inputs.size() == 2);
  CHECK(shape_of(op.inputs[0]) == std::vector<int64_t>{64, 16});
  CHECK(op.inputs[0]->role == BufferRole::Input);
  REQUIRE(op.stages.size() == 1);
  const Stage& c = op.stages[0];
  CHECK(c.name == "C");
  CHECK(shape_of(c.buffer) == std::vector<int64_t>{64, 32});
  CHECK(c.buffer->dtype == Float(32));
  CHECK(c.buffer->role == BufferRole::Output);
  REQUIRE(c.axes.size() == 2);
  CHECK(c.axes[0].var->name == "i");
  CHECK(c.axes[0].var->type == Index());
  const Reduce* r = c.body->as<Reduce>();
  REQUIRE(r);
  CHECK(r->reduce_kind == ReduceKind::Sum);
  REQUIRE(r->axes.size() == 1);
  CHECK(r->axes[0].var->name == "k");
  CHECK(is_const_int(r->axes[0].extent, 16));
  REQUIRE(op.outputs.size() == 1);
  CHECK(op.outputs[0] == c.buffer);
  REQUIRE(op.schedules.size() == 1);
  CHECK(op.schedules[0].target == "cpu");
  CHECK(op.schedules[0].items.size() == 4);
  auto& split = std::get<SchedPrimitive>(op.schedules[0].items[0]);
  CHECK(split.primitive == "split");
  CHECK(split.results == std::vector<std::string>{"io", "ii"});
  CHECK(split.args[0].name == "C.i");
  CHECK(is_const_int(split.args[1].value, 32));
}

TEST_CASE("count_flops: a multiply-add is 2 FLOPs; index arithmetic in a select's condition counts none") {
  // A 3-tap convolution with its padding as a condition: 8 points x 3 taps x (mul + add).
  Program p = compile(R"(
op conv1d(X: f32[8], K: f32[3]) -> Y {
  compute {
    Y[i: 8] = sum(select(i + r >= 1 && i + r - 1 < 8, X[i + r - 1] * K[r], 0.0) for r in 0..3)
  }
}
)");
  REQUIRE(p.ops.size() == 1);
  CHECK(count_flops(p.ops[0]) == 8 * 3 * 2);
  CHECK(count_flops(compile(kMatmul).ops[0]) == 64.0 * 32 * 16 * 2);
}

TEST_CASE("-D overrides a param and binds a dimension variable of an entry op") {
  FrontendOptions o = stdlib_options();
  o.defines["M"] = 8;
  Program p = compile(kMatmul, o);
  CHECK(shape_of(p.ops[0].stages[0].buffer) == std::vector<int64_t>{8, 32});

  const char* vec = "op add(A: f32[N], B: f32[N]) -> C { compute { C[i] = A[i] + B[i] } }";
  CHECK_ERROR_AT(vec, UnboundDimension, "N", 1,
                 "dimension 'N' of entry op 'add' is unknown; make it a param or pass -D N=VALUE");
  o.defines.clear();
  o.defines["N"] = 100;
  Program q = compile(vec, o);
  CHECK(shape_of(q.ops[0].stages[0].buffer) == std::vector<int64_t>{100});
}

TEST_CASE("conv_relu expands the imported conv2d into its stages") {
  Program p = compile(R"(
import nn.conv2d
param S = 8
op conv_relu(X: f32[1, 4, S, S], W: f32[6, 4, 3, 3]) -> R {
  compute {
    Y = conv2d(X, W, pad = 1)
    R[n, f, y, x] = max(Y[n, f, y, x], 0.0)
  }
}
)");
  const OpDef& op = p.ops[0];
  REQUIRE(op.stages.size() == 3);
  CHECK(op.stages[0].name == "Xp");
  CHECK(shape_of(op.stages[0].buffer) == std::vector<int64_t>{1, 4, 10, 10});
  CHECK(op.stages[0].origin_call == "conv2d");
  CHECK(op.stages[1].name == "Y");
  CHECK(shape_of(op.stages[1].buffer) == std::vector<int64_t>{1, 6, 8, 8});
  CHECK(op.stages[1].buffer->role == BufferRole::Intermediate);
  CHECK(op.stages[2].name == "R");
  CHECK(op.stages[2].buffer->role == BufferRole::Output);
  // Y reads the caller's Xp buffer, which reads the caller's input X.
  const Reduce* r = op.stages[1].body->as<Reduce>();
  REQUIRE(r);
  CHECK(r->axes.size() == 3);
  CHECK(op.stages[0].buffer.get() != nullptr);
}

TEST_CASE("two calls of one op rename the second call's intermediates") {
  Program p = compile(R"(
import nn.conv2d
op twice(X: f32[1, 2, 6, 6], W: f32[2, 2, 3, 3]) -> Z {
  compute {
    Y = conv2d(X, W, pad = 1)
    Z = conv2d(Y, W, pad = 1)
  }
  schedule cpu { parallel(Z.f) }
}
)");
  const OpDef& op = p.ops[0];
  REQUIRE(op.stages.size() == 4);
  CHECK(op.stages[0].name == "Xp");
  CHECK(op.stages[1].name == "Y");
  CHECK(op.stages[2].name == "Z_Xp");
  CHECK(op.stages[3].name == "Z");
  CHECK(op.outputs[0]->name == "Z");
}

TEST_CASE("a callee's schedule is carried with stage renames unless the caller schedules its stages") {
  const char* lib = R"(
op scale(X: f32[N]) -> Y {
  compute { T[i] = X[i] * 2.0; Y[i] = T[i] + 1.0 }
  schedule cpu { io, ii = split(Y.i, 4) ; vectorize(ii) }
}
)";
  auto dir = std::filesystem::temp_directory_path() / "texc_frontend_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "scale_lib.tex") << lib;
  FrontendOptions o = stdlib_options();
  o.include_dirs.push_back(dir.string());
  Program p = compile(R"(
import "scale_lib.tex"
op user(A: f32[16]) -> B { compute { B = scale(A) } }
)", o);
  const OpDef& op = p.ops[0];
  REQUIRE(op.schedules.size() == 1);
  auto& split = std::get<SchedPrimitive>(op.schedules[0].items[0]);
  CHECK(split.stage_renames.at("Y") == "B");
  CHECK(split.stage_renames.at("T") == "T");

  Program q = compile(R"(
import "scale_lib.tex"
op user(A: f32[16]) -> B { compute { B = scale(A) } schedule x86 { parallel(B.i) } }
)", o);
  REQUIRE(q.ops[0].schedules.size() == 1);
  CHECK(q.ops[0].schedules[0].target == "x86");
}

TEST_CASE("types: literals adapt, casts convert, comparisons give bool") {
  Program p = compile(R"(
op t(A: i8[4], B: f16[4]) -> C, D, E {
  compute {
    C[i] = i32(A[i]) * 3 + 1
    D[i] = B[i] * 0.5
    E[i] = A[i] > 2
  }
}
)");
  const OpDef& op = p.ops[0];
  CHECK(op.stages[0].buffer->dtype == Int(32));
  CHECK(op.stages[1].buffer->dtype == Float(16));
  CHECK(op.stages[2].buffer->dtype == Bool());
  CHECK(op.outputs.size() == 3);
}

TEST_CASE("knobs: lists, factors and ifs") {
  Program p = compile(R"(
param N = 12
op k(A: f32[N]) -> B {
  compute { B[i] = A[i] }
  schedule cpu {
    knob T in factors(N)
    knob U in [true, false]
    o, i2 = split(B.i, T)
    if U { unroll(i2) } else { vectorize(i2) }
  }
}
)");
  const auto& items = p.ops[0].schedules[0].items;
  auto& t = std::get<SchedKnob>(items[0]);
  CHECK(t.values == std::vector<int64_t>{12, 1, 2, 3, 4, 6});  // the default first: the largest divisor <= 32
  auto& u = std::get<SchedKnob>(items[1]);
  CHECK(u.is_bool);
  CHECK(u.values == std::vector<int64_t>{1, 0});
  auto steps = instantiate_schedule({&p.ops[0].schedules[0]}, {{"U", 0}});
  REQUIRE(steps.size() == 2);
  CHECK(steps[1].prim.primitive == "vectorize");
  CHECK(steps[0].int_args[1] == 12);  // T takes its first value
}

TEST_CASE("factors(N): the default is the largest divisor up to 32, then the others in increasing order") {
  auto factors = [](int n) {
    Program p = compile("param N = " + std::to_string(n) + R"(
op k(A: f32[N]) -> B {
  compute { B[i] = A[i] }
  schedule cpu {
    knob T in factors(N)
    o, i2 = split(B.i, T)
  }
}
)");
    return std::get<SchedKnob>(p.ops[0].schedules[0].items[0]).values;
  };
  CHECK(factors(512) == std::vector<int64_t>{32, 1, 2, 4, 8, 16, 64, 128, 256, 512});
  CHECK(factors(96) == std::vector<int64_t>{32, 1, 2, 3, 4, 6, 8, 12, 16, 24, 48, 96});
  CHECK(factors(49) == std::vector<int64_t>{7, 1, 49});
  CHECK(factors(37) == std::vector<int64_t>{1, 37});  // a prime above 32: only 1 is small enough
  CHECK(factors(1) == std::vector<int64_t>{1});
}

TEST_CASE("schedule values: params, sizes and knobs with arithmetic, min and max") {
  Program p = compile(R"(
op k(A: f32[30], pad: int = 1) -> B {
  compute { W = 30; B[i] = A[i] }
  schedule cpu {
    knob T in [8, 64]
    o, i2 = split(B.i, min(W, T) + pad - 1)
    if T > 8 && pad > 0 { unroll(i2) }
  }
}
)");
  std::vector<const ScheduleBlock*> blocks = {&p.ops[0].schedules[0]};
  auto small = instantiate_schedule(blocks, {{"T", 8}});
  REQUIRE(small.size() == 1);
  CHECK(small[0].int_args[1] == 8);
  auto large = instantiate_schedule(blocks, {{"T", 64}});
  REQUIRE(large.size() == 2);
  CHECK(large[0].int_args[1] == 30);
  CHECK(large[1].prim.primitive == "unroll");
}

TEST_CASE("intrinsics are elaborated and visible to tensorize") {
  Program p = compile(R"(
intrinsic dot4(a: i8[4], b: i8[4, 4]) -> c {
  compute { c[j] = sum(i32(a[k]) * i32(b[j, k]) for k in 0..4) }
  lower extern "my_dot4"
}
op use(X: i8[8, 4], W: i8[4, 4]) -> Y {
  compute { Y[m, j] = sum(i32(X[m, k]) * i32(W[j, k]) for k in 0..4) }
  schedule cpu { tensorize(Y.j, dot4) }
}
)");
  REQUIRE(p.ops.size() == 1);
  const IntrinsicDef& d = p.ops[0].intrinsics.at("dot4");
  CHECK(d.lower_kind == "extern");
  CHECK(d.symbol == "my_dot4");
  CHECK(d.stages.size() == 1);
  CHECK(shape_of(d.outputs[0]) == std::vector<int64_t>{4});
}

TEST_CASE("reductions with offsets and nested inside larger expressions") {
  Program p = compile(R"(
op pool(X: f32[10]) -> Y {
  compute { Y[i: 8] = sum(X[i + r] for r in 1..3) / 2.0 }
}
)");
  const Stage& y = p.ops[0].stages[0];
  const Binary* div = y.body->as<Binary>();
  REQUIRE(div);
  CHECK(div->op == BinaryOp::Div);
  REQUIRE(div->a->as<Reduce>());
  CHECK(is_const_int(div->a->as<Reduce>()->axes[0].extent, 2));
}

TEST_CASE("multi-output calls, a file imported by two files is loaded once, -I and params of libraries") {
  auto dir = std::filesystem::temp_directory_path() / "texc_frontend_test_multi";
  std::filesystem::create_directories(dir / "lib");
  std::ofstream(dir / "lib" / "common.tex") << "param P = 3\n";
  std::ofstream(dir / "lib" / "minmax.tex") << R"(
import "common.tex"
op minmax(X: f32[N, M]) -> Lo, Hi {
  compute {
    Lo[i] = min(X[i, j] for j in 0..M)
    Hi[i] = max(X[i, j] for j in 0..M)
  }
  schedule cpu { parallel(Lo.i) }
}
)";
  std::ofstream(dir / "lib" / "twice.tex") << R"(
import "common.tex"
op twice(X: f32[N]) -> Y { compute { Y[i] = X[i] * 2.0 } }
)";
  FrontendOptions o = stdlib_options();
  o.include_dirs.push_back((dir / "lib").string());
  Program p = compile(R"(
import "minmax.tex"
import "twice.tex"
op f(A: f32[8, P]) -> R, S {
  compute {
    L, H = minmax(A)
    R = twice(L)
    S[i] = H[i] - L[i]
  }
}
)", o);
  const OpDef& op = p.ops[0];
  REQUIRE(op.stages.size() == 4);
  CHECK(op.stages[0].name == "L");
  CHECK(op.stages[1].name == "H");
  CHECK(op.stages[2].name == "R");
  CHECK(op.stages[3].name == "S");
  CHECK(shape_of(op.inputs[0]) == std::vector<int64_t>{8, 3});
  CHECK(op.stages[0].body->as<Reduce>()->reduce_kind == ReduceKind::Min);
  REQUIRE(op.outputs.size() == 2);
  CHECK(op.outputs[0]->name == "R");
  CHECK(op.outputs[1]->name == "S");
  REQUIRE(op.schedules.size() == 1);
  CHECK(std::get<SchedPrimitive>(op.schedules[0].items[0]).stage_renames.at("Lo") == "L");

  std::string bad = "import \"minmax.tex\"\nop g(A: f32[2, 2]) -> B { compute { B = minmax(A) } }";
  Diagnostic d = error_of(bad, o);
  CHECK(d.id == DiagId::CallResultCount);
  CHECK(d.loc.line == where(bad, "B =").first);
  CHECK(d.loc.col == where(bad, "B =").second);
  CHECK(d.message == "'minmax' has 2 output(s) but 1 name(s) are bound");
}

TEST_CASE("casts, integer types and shifts") {
  Program p = compile(R"(
op q(A: u8[16], S: i32[16]) -> B, C {
  compute {
    B[i] = (i32(A[i]) << 2) >> 1
    C[i] = f16(S[i]) * 0.25 + f16(1)
  }
}
)");
  CHECK(p.ops[0].stages[0].buffer->dtype == Int(32));
  CHECK(p.ops[0].stages[1].buffer->dtype == Float(16));
  CHECK_ERROR_AT("op q(A: u8[4]) -> B { compute { B[i] = A[i] + 300 } }", LiteralOutOfRange, "300", 1,
                 "the literal 300 does not fit in u8");
}

// ---- errors: id, location, message

TEST_CASE("syntax errors are located, with a readable message") {
  CHECK_ERROR_AT("op f(A: f32[4]) -> B {\n  compute { B[i = A[i] }\n}\n", SyntaxError, "=", 1,
                 "expected ',' or ']' but found '='");
  CHECK_ERROR_AT("param N = 4 @", SyntaxError, "@", 1, "unexpected character '@'");
  CHECK_ERROR_AT("param N = 99999999999999999999", IntLiteralTooLarge, "9", 1,
                 "integer literal '99999999999999999999' is too large (the limit is 9223372036854775807)");
  Diagnostic eof = error_of("op f(A: f32[4]) -> B { compute { B[i] = A[i] }\n");
  CHECK(eof.loc.line == 2);
  CHECK(eof.loc.col == 1);
  CHECK(eof.message == "expected '}', 'compute' or 'schedule' but found end of file");
}

TEST_CASE("names, ranks and extents") {
  CHECK_ERROR_AT("op f(A: f32[4, 4]) -> B { compute { B[i, j] = A[i, j, 0] } }", RankMismatch, "A[i, j, 0]", 1,
                 "tensor 'A' has rank 2 but is indexed with 3 indices");
  CHECK_ERROR_AT("op f(A: f32[4]) -> B { compute { B[i] = Q[i] } }", UnknownName, "Q", 1, "unknown name 'Q'");
  CHECK_ERROR_AT("op f(Alpha: f32[4]) -> B { compute { B[i] = Alpah[i] } }", UnknownNameSuggest, "Alpah", 1,
                 "unknown name 'Alpah'; did you mean 'Alpha'?");
  CHECK_ERROR_AT("op f(A: f32[4]) -> B { compute { B[i, j] = A[i] } }", ExtentNotInferable, "j", 1,
                 "cannot infer the extent of index 'j' (it is never used alone as a subscript); write it as 'j: EXTENT'");
  CHECK_ERROR_AT("op f(A: f32[4], C: f32[5]) -> B { compute { B[i] = A[i] + C[i] } }", ExtentConflict, "i]", 3,
                 "index 'i' gets extent 4 from 'A' but extent 5 from 'C'; write it as 'i: EXTENT'");
  CHECK_ERROR_AT("op f(A: f32[4]) -> B { compute { B[i: 4] = A[i + 1] } }", OutOfBoundsRead, "i + 1", 1,
                 "read of 'A' out of bounds: subscript 1 ranges over [1, 4] but the dimension has extent 4");
  // Guarded by select: fine.
  compile("op f(A: f32[4]) -> B { compute { B[i: 4] = select(i < 3, A[i + 1], 0.0) } }");
  // Not provable (i - i is 0, but the interval is not exact): fine.
  compile("op f(A: f32[4]) -> B { compute { B[i: 4] = A[i - i + 3] } }");
  std::string twice = "op f(A: f32[4]) -> B { compute { T[i] = A[i]; T[i] = A[i]; B[i] = T[i] } }";
  CHECK_ERROR_AT(twice, Redefinition, "T[i] =", 2, "'T' is already defined");
  Diagnostic d = error_of(twice);
  REQUIRE(d.notes.size() == 1);
  CHECK(d.notes[0].loc.col == where(twice, "T[i] =", 1).second);
  CHECK_ERROR_AT("op f(A: f32[4]) -> B { compute { B[i] = T[i]; T[i] = A[i] } }", UsedBeforeDefinition, "T", 1,
                 "'T' is used before it is defined");
}

TEST_CASE("types") {
  CHECK_ERROR_AT("op f(A: f32[4], I: i32[4]) -> B { compute { B[i] = A[i] + I[i] } }", TypeMismatch, "+", 1,
                 "operands of '+' have different types f32 and i32; convert one with a cast such as f32(...)");
  CHECK_ERROR_AT("op f(A: f32[4]) -> B { compute { B[i] = A[i] << 1 } }", NeedsInteger, "<<", 1,
                 "operands of '<<' must be integers, not f32");
  CHECK_ERROR_AT("op f(A: i32[4]) -> B { compute { B[i] = A[i] * 0.5 } }", LiteralTypeMismatch, "0.5", 1,
                 "the float literal 0.5 cannot be used with an operand of type i32; write an integer or cast");
  CHECK_ERROR_AT("op f(A: f32[4]) -> B { compute { B[i] = A[i] + i } }", TypeMismatch, "+", 1,
                 "operands of '+' have different types f32 and i64; convert one with a cast such as f32(...)");
}

TEST_CASE("calls of ops") {
  CHECK_ERROR_AT("import nn.conv2d\nop g(X: f32[1, 2, 5, 5], W: f32[3, 2, 3, 3]) -> Y {\n"
                 "  compute { Y = conv2d(X, W, pd = 1) }\n}\n",
                 CallUnknownAttributeSuggest, "pd", 1, "'conv2d' has no attribute 'pd'; did you mean 'pad'?");
  CHECK_ERROR_AT("import nn.conv2d\nop g(X: f32[1, 2, 5, 5], W: f32[3, 4, 3, 3]) -> Y {\n"
                 "  compute { Y = conv2d(X, W) }\n}\n",
                 CallShapeMismatch, "W)", 1,
                 "shape mismatch in call of 'conv2d': axis 1 of 'W' has extent 4 but 'Wt' needs 2 there (axes count from 0)");
  CHECK_ERROR_AT("import nn.conv2d\nop g(X: f32[1, 2, 5, 5]) -> Y {\n  compute { Y = conv2d(X) }\n}\n",
                 CallTensorArity, "conv2d(", 1, "'conv2d' takes 2 tensor argument(s) but 1 were given");
  CHECK_ERROR_AT("op a(X: f32[4]) -> Y { compute { Y = a(X) } }", RecursiveCall, "a(X)", 1,
                 "op 'a' calls itself (a -> a)");
}

TEST_CASE("schedules") {
  std::string head = "op f(A: f32[8]) -> B { compute { B[i] = A[i] } schedule cpu { ";
  CHECK_ERROR_AT(head + "paralel(B.i) } }", UnknownPrimitiveSuggest, "paralel", 1,
                 "unknown schedule primitive 'paralel'; did you mean 'parallel'?");
  CHECK_ERROR_AT(head + "parallel(B.q) } }", LoopNotInStage, "q)", 1, "stage 'B' has no loop 'q' (its loops are i)");
  CHECK_ERROR_AT(head + "parallel(Q.i) } }", UnknownStage, "Q.i", 1, "unknown stage 'Q'");
  CHECK_ERROR_AT(head + "o, i = split(B.i, T) } }", UnknownKnob, "T)", 1, "unknown knob 'T'");
  CHECK_ERROR_AT(head + "vectorize(ii) } }", UnknownLoop, "ii", 1, "unknown loop 'ii'");
  CHECK_ERROR_AT(head + "o, i = split(B.i, 2) o, i2 = split(i, 2) } }", Redefinition, "o, i2", 1,
                 "'o' is already defined");
}

TEST_CASE("--op selects one entry op; an unknown one is an error") {
  FrontendOptions o = stdlib_options();
  o.only_op = "matmul";
  CHECK(compile(kMatmul, o).ops.size() == 1);
  o.only_op = "nope";
  Diagnostic d = error_of(kMatmul, o);
  CHECK(d.id == DiagId::UnknownEntryOp);
  CHECK(d.message == "--op nope: the file defines no op named 'nope'");
}

TEST_CASE("params are scoped by file: an op sees its file's params and its imports', never its importer's") {
  auto dir = std::filesystem::temp_directory_path() / "texc_frontend_test_param_scope";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "shapes.tex") << "param D = 8\nop scale(X: f32[D]) -> Y { compute { Y[i] = X[i] * 2.0 } }\n";
  std::ofstream(dir / "act.tex") << "op act(X: f32[N, H]) -> Y { compute { Y[n, h] = max(X[n, h], 0.0) } }\n";
  FrontendOptions o = stdlib_options();
  o.include_dirs.push_back(dir.string());
  // The importer's H does not bind the H of act's signature: it is act's own dimension variable.
  Program p = compile("import \"act.tex\"\nparam H = 8\nop f(X: f32[2, 5]) -> Y { compute { Y = act(X) } }\n", o);
  CHECK(shape_of(p.ops[0].outputs[0]) == std::vector<int64_t>{2, 5});
  // An imported param is visible to the importer; its own param of the same name shadows it there,
  // while the imported op keeps its file's value.
  p = compile("import \"shapes.tex\"\nop f(A: f32[D]) -> B { compute { B = scale(A) } }\n", o);
  CHECK(shape_of(p.ops[0].inputs[0]) == std::vector<int64_t>{8});
  p = compile("import \"shapes.tex\"\nparam D = 16\nop f(A: f32[8], Z: f32[D]) -> B { compute { B = scale(A) } }\n", o);
  CHECK(shape_of(p.ops[0].inputs[1]) == std::vector<int64_t>{16});
  std::string bad = "import \"shapes.tex\"\nparam D = 16\nop f(A: f32[D]) -> B { compute { B = scale(A) } }\n";
  Diagnostic d = error_of(bad, o);
  CHECK(d.id == DiagId::CallShapeMismatch);
}

TEST_CASE("ops are scoped by file: a file's own op shadows an imported one; two imported ones clash") {
  auto dir = std::filesystem::temp_directory_path() / "texc_frontend_test_op_scope";
  std::filesystem::create_directories(dir);
  // lib.tex's outer calls its own helper; the importer defines a helper of its own.
  std::ofstream(dir / "lib.tex") << "op helper(X: f32[N]) -> Y { compute { Y[i] = X[i] * 2.0 } }\n"
                                    "op outer(X: f32[N]) -> Y { compute { Y = helper(X) } }\n";
  std::ofstream(dir / "other.tex") << "op helper(X: f32[N]) -> Y { compute { Y[i] = X[i] + 1.0 } }\n";
  FrontendOptions o = stdlib_options();
  o.include_dirs.push_back(dir.string());
  Program p = compile(
      "import \"lib.tex\"\n"
      "op helper(X: f32[4]) -> Y { compute { Y = outer(X) } }\n"  // calls lib's outer, which calls lib's helper
      "op mine(X: f32[4]) -> Y { compute { Y = helper(X) } }\n",  // calls this file's helper
      o);
  REQUIRE(p.ops.size() == 2);
  CHECK(to_string(p.ops[0].stages.back().body).find("2.0") != std::string::npos);  // lib helper: X * 2.0
  // Two imported files that both define helper: an error where both become visible.
  Diagnostic d = error_of("import \"lib.tex\"\nimport \"other.tex\"\nop f(X: f32[4]) -> Y { compute { Y = outer(X) } }\n", o);
  CHECK(d.id == DiagId::Redefinition);
  CHECK(d.message == "'helper' is already defined");
}

TEST_CASE("a carried schedule names the callee's own inputs, whatever the caller calls them") {
  // matmul's schedule packs its input B; the caller passes its own B as matmul's A.
  Program p = compile("import linalg.matmul\nop f(B: f32[8, 4], A: f32[4, 6]) -> C { compute { C = matmul(B, A) } }\n");
  REQUIRE(!p.ops[0].schedules.empty());
  bool renamed = false;
  for (const SchedItem& item : p.ops[0].schedules[0].items)
    if (auto* prim = std::get_if<SchedPrimitive>(&item); prim && !prim->stage_renames.empty())
      renamed = prim->stage_renames.at("A") == "B" && prim->stage_renames.at("B") == "A";
  CHECK(renamed);
}

TEST_CASE("did-you-mean: every name as close as the closest, at most three, quoted as alternatives") {
  std::vector<std::string> names = {"exp", "exp2", "expm1", "erf", "erfc", "log", "log2", "log1p"};
  CHECK(closest_names("expp", names) == std::vector<std::string>{"exp", "exp2"});
  CHECK(closest_names("erff", names) == std::vector<std::string>{"erf", "erfc"});
  CHECK(closest_names("lg", names) == std::vector<std::string>{"log"});
  CHECK(closest_names("log3", names, 1) == std::vector<std::string>{"log"});
  CHECK(closest_names("log3", names) == std::vector<std::string>{"log", "log2"});
  CHECK(closest_names("tangent", names).empty());
  CHECK(quoted_alternatives({"a"}) == "'a'");
  CHECK(quoted_alternatives({"a", "b"}) == "'a' or 'b'");
  CHECK(quoted_alternatives({"a", "b", "c"}) == "'a', 'b' or 'c'");
}

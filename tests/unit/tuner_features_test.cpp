// tuner/Features.h on small loop nests, against values computed by hand from the loops printed in
// the comments (the IR after "simplify", where the tuner takes it).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <cmath>

#include "schedule_test_support.h"
#include "tuner/Features.h"

using namespace texc;
using namespace texc::testing;

namespace {

LoweredFunc after_simplify(const std::string& text) {
  OpDef op = compile_op(text);
  LowerOptions options;
  options.target = "x86";
  LoweredFunc seen;
  options.after_pass = [&](const std::string& pass, const LoweredFunc& f) {
    if (pass == "simplify") seen = f;
  };
  lower_op(op, options);
  REQUIRE(seen.body);
  return seen;
}

void check_touch(const BufferTouch& t, const char* name, double count, double accesses, double stride) {
  INFO("buffer " << t.buffer);
  CHECK(t.buffer == name);
  CHECK(t.count == count);
  CHECK(t.accesses == accesses);
  CHECK(t.reuse == doctest::Approx(accesses / count));
  CHECK(t.stride == stride);
}

// for io in 0..2 { for ii in 0..4 { vectorized C.j in 0..6 {
//   C[io*24 + ii*6 + C.j] = 0.0f
//   for C.k in 0..4 { C[io*24 + ii*6 + C.j] = C[io*24 + ii*6 + C.j] + A[io*16 + ii*4 + C.k]*B[C.k*6 + C.j] } } } }
const char* kMatmul =
    "op mm(A: f32[8, 4], B: f32[4, 6]) -> C {\n"
    "  compute { C[i, j] = sum(A[i, k] * B[k, j] for k in 0..4) }\n"
    "  schedule cpu { io, ii = split(C.i, 4)\n vectorize(C.j) }\n"
    "}\n";

}  // namespace

TEST_CASE("a split, vectorized matmul: per level extent, annotation, depth, touches, reuse, strides, footprint") {
  NestFeatures nest = analyze_loop_nest(after_simplify(kMatmul));
  REQUIRE(nest.levels.size() == 4);
  const LoopLevel& k = nest.levels[0];  // innermost first
  CHECK(k.var == "C.k");
  CHECK(k.extent == 4);
  CHECK(k.kind == ForKind::Serial);
  CHECK(k.depth == 3);
  CHECK(k.topdown == 2 * 4 * 6 * 4);
  CHECK(k.bottomup == 4);
  REQUIRE(k.buffers.size() == 3);
  check_touch(k.buffers[0], "C", 1, 8, 0);   // written and read 4 times each, same element
  check_touch(k.buffers[1], "A", 4, 4, 1);
  check_touch(k.buffers[2], "B", 4, 4, 6);
  CHECK(k.footprint_bytes == (1 + 4 + 4) * 4);

  const LoopLevel& j = nest.levels[1];
  CHECK(j.var == "C.j");
  CHECK(j.kind == ForKind::Vectorized);
  CHECK(j.depth == 2);
  CHECK(j.bottomup == 24);
  check_touch(j.buffers[0], "C", 6, 24 + 24 + 6, 1);  // the update's write and read, and the init
  check_touch(j.buffers[1], "A", 4, 24, 0);
  check_touch(j.buffers[2], "B", 24, 24, 1);
  CHECK(j.footprint_bytes == (6 + 4 + 24) * 4);

  const LoopLevel& ii = nest.levels[2];
  CHECK(ii.var == "ii");
  check_touch(ii.buffers[0], "C", 24, 96 + 96 + 24, 6);
  check_touch(ii.buffers[1], "A", 16, 96, 4);
  check_touch(ii.buffers[2], "B", 24, 96, 0);

  const LoopLevel& io = nest.levels[3];
  CHECK(io.depth == 0);
  CHECK(io.topdown == 2);
  CHECK(io.bottomup == 192);
  check_touch(io.buffers[0], "C", 48, 432, 24);
  check_touch(io.buffers[1], "A", 32, 192, 16);
  check_touch(io.buffers[2], "B", 24, 192, 0);  // capped by nothing: B has 24 elements
  CHECK(io.footprint_bytes == (48 + 32 + 24) * 4);

  CHECK(nest.float_add == 192);
  CHECK(nest.float_mul == 192);
  CHECK(nest.float_div == 0);
  CHECK(nest.loads == 3 * 192);
  CHECK(nest.stores == 192 + 48);
  CHECK(nest.num_loops == 4);
  CHECK(nest.vectorized_loops == 1);
  CHECK(nest.parallel_loops == 0);
  CHECK(nest.num_stores == 2);
}

TEST_CASE("the flattened vector: fixed length, log2(1+x) magnitudes, one-hot annotations, cache fits") {
  NestFeatures nest = analyze_loop_nest(after_simplify(kMatmul));
  CacheSizes caches{128, 300, 1 << 20};  // tiny caches so the footprints fall on both sides
  std::vector<float> v = flatten_features(nest, caches);
  REQUIRE(v.size() == size_t(kFeatureLength));
  // level 0 = C.k: present, log2(1+4), serial, depth 3, footprint 36 bytes fits L1 (128)
  CHECK(v[0] == 1);
  CHECK(v[1] == doctest::Approx(std::log2(5.0)));
  CHECK(v[2] == 1);  // serial
  CHECK(v[4] == 0);  // not vectorized
  CHECK(v[7] == 3);
  CHECK(v[10] == doctest::Approx(std::log2(37.0)));
  CHECK(v[11] == 1);
  // buffer slot 2 (B) of level 0: count 4, reuse 1, stride 6, not unit stride
  const int b = 14 + 2 * 4;
  CHECK(v[b] == doctest::Approx(std::log2(5.0)));
  CHECK(v[b + 1] == doctest::Approx(1.0));
  CHECK(v[b + 2] == doctest::Approx(std::log2(7.0)));
  CHECK(v[b + 3] == 0);
  // level 1 = C.j: vectorized; footprint 136 bytes does not fit L1 (128), fits L2 (300)
  CHECK(v[kLevelLength + 4] == 1);
  CHECK(v[kLevelLength + 11] == 0);
  CHECK(v[kLevelLength + 12] == 1);
  // levels 4..7 are absent: zeros
  for (int i = 4 * kLevelLength; i < kMaxLevels * kLevelLength; ++i) CHECK(v[i] == 0);
  // global: float adds first
  CHECK(v[kMaxLevels * kLevelLength] == doctest::Approx(std::log2(193.0)));
}

TEST_CASE("parallel and unrolled loops and a transposed read: annotations and a non-unit innermost stride") {
  // for i in 0..16 (parallel) { for j in 0..4 (unrolled) { T[i*4 + j] = X[j*16 + i] * 2 } }
  NestFeatures nest = analyze_loop_nest(after_simplify(
      "op t(X: f32[4, 16]) -> T {\n"
      "  compute { T[i, j] = X[j, i] * 2.0 }\n"
      "  schedule cpu { parallel(T.i)\n unroll(T.j) }\n"
      "}\n"));
  REQUIRE(nest.levels.size() == 2);
  CHECK(nest.levels[0].kind == ForKind::Unrolled);
  CHECK(nest.levels[1].kind == ForKind::Parallel);
  check_touch(nest.levels[0].buffers[0], "T", 4, 4, 1);
  check_touch(nest.levels[0].buffers[1], "X", 4, 4, 16);
  check_touch(nest.levels[1].buffers[1], "X", 64, 64, 1);
  CHECK(nest.float_mul == 64);
  CHECK(nest.parallel_loops == 1);
  CHECK(nest.unrolled_loops == 1);
}

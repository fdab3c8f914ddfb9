// lower_cross_thread_reductions (lower/gpu/CrossThreadReduction.h): reduction loops bound to
// threadIdx.* on small nests. Each kernel is checked for the shape of its reduction (shuffles,
// the warps' shared buffer, barriers, the single write) and run on cuda-interp (threads phase by
// phase, shuffles exchanged through memory: lower/gpu/ShuffleExchange.h) against the reference.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "gpu_test_support.h"

#include "ir/IRMutator.h"
#include "ir/IRParser.h"
#include "ir/Intrinsics.h"
#include "lower/gpu/CrossThreadReduction.h"
#include "lower/gpu/VirtualThreads.h"

using namespace texc;
using namespace texc::testing;

namespace {

// Lowers `text` for cuda-interp, runs it with two seeds; returns the kernel's text.
std::string check_on_cuda_interp(const std::string& text, const std::string& launch) {
  OpDef op = compile_op(text);
  LoweredFunc f = lower_cuda(op);
  CHECK(launch_of(f) == launch);
  for (uint64_t seed : {1, 7}) {
    std::string failure = run_on_cuda_interp(op, f, seed);
    CHECK_MESSAGE(failure.empty(), failure);
  }
  return to_string(f);
}

Diagnostic cuda_error(const std::string& text) {
  try {
    lower_cuda(compile_op(text));
  } catch (const UserError& e) {
    return e.diag;
  }
  FAIL("no diagnostic");
  return {};
}

// shuffle_down(v, k) -> v: the lanes exchange nothing.
Stmt without_exchange(const Stmt& s) {
  class Remover : public IRMutator {
   protected:
    Expr mutate(const Call* op, const Expr& self) override {
      if (is_intrinsic_call(op, Intrinsic::ShuffleDown)) return mutate_expr(op->args[0]);
      return IRMutator::mutate(op, self);
    }
  };
  return Remover().mutate_stmt(s);
}

const char* kSum100 =
    "op rowsum(A: f32[6, 100]) -> S {\n"
    "  compute { S[i] = sum(A[i, k] for k in 0..100) }\n"
    "  schedule cuda {\n"
    "    ko, ki = split(S.k, 64)\n"
    "    reorder(ki, ko)\n"
    "    bind(S.i, blockIdx.x)\n"
    "    bind(ki, threadIdx.x)\n"
    "  }\n}\n";

}  // namespace

TEST_CASE("a sum over 100 elements on 64 threads: shuffles in each warp, the two warps through shared memory") {
  std::string text = check_on_cuda_interp(kSum100, "blockIdx.x=6 threadIdx.x=64 ");
  CHECK_CONTAINS(text, "allocate S_red: f32[1] local");
  CHECK_CONTAINS(text, "allocate S_warps: f32[2] shared");
  CHECK(count_of(text, "shuffle_down(") == 6);  // 16 8 4 2 1 in each warp, then 1 across the two warps
  CHECK(count_of(text, "thread_barrier()") == 1);
  CHECK_CONTAINS(text, "if (ki == 0)");  // the result, written once
  CHECK(!contains(text, "S[S.i] = 0"));  // the init is the first thread's register
}

TEST_CASE("without the exchange the warps' values never meet: the result is wrong") {
  OpDef op = compile_op(kSum100);
  LoweredFunc f = lower_cuda(op);
  f.body = without_exchange(f.body);
  CHECK(!run_on_cuda_interp(op, f).empty());
}

TEST_CASE("a max on 48 threads (neither a multiple of 32 nor a power of two): absent lanes are skipped") {
  std::string text = check_on_cuda_interp(
      "op rowmax(A: f32[5, 200]) -> M {\n"
      "  compute { M[i] = max(A[i, k] for k in 0..200) }\n"
      "  schedule cuda {\n"
      "    ko, ki = split(M.k, 48)\n"
      "    reorder(ki, ko)\n"
      "    bind(M.i, blockIdx.x)\n"
      "    bind(ki, threadIdx.x)\n"
      "  }\n}\n",
      "blockIdx.x=5 threadIdx.x=48 ");
  CHECK_CONTAINS(text, "max(M_red[0], M_shfl[0])");
  CHECK_CONTAINS(text, "if (ki < 32 && ki%32 < 16)");  // lane + 16 exists (< 48) and is in the warp
}

TEST_CASE("min and prod on integers, and a reduction smaller than a warp") {
  check_on_cuda_interp(
      "op rowmin(A: i32[3, 50]) -> M {\n"
      "  compute { M[i] = min(A[i, k] for k in 0..50) }\n"
      "  schedule cuda {\n"
      "    ko, ki = split(M.k, 40)\n"
      "    reorder(ki, ko)\n"
      "    bind(M.i, blockIdx.x)\n"
      "    bind(ki, threadIdx.x)\n"
      "  }\n}\n",
      "blockIdx.x=3 threadIdx.x=40 ");
  std::string text = check_on_cuda_interp(
      "op rowprod(A: i64[4, 6]) -> P {\n"
      "  compute { P[i] = prod(A[i, k] for k in 0..6) }\n"
      "  schedule cuda {\n"
      "    bind(P.i, blockIdx.x)\n"
      "    bind(P.k, threadIdx.x)\n"
      "  }\n}\n",
      "blockIdx.x=4 threadIdx.x=6 ");
  CHECK(count_of(text, "shuffle_down(") == 3);  // 4 2 1: six lanes in one warp
  CHECK(!contains(text, "thread_barrier()"));
}

TEST_CASE("2-D thread blocks: each threadIdx.y row reduces over threadIdx.x on its own") {
  // 64 threads per row: rows aligned to warps, each row's two warps through its own slots.
  std::string text = check_on_cuda_interp(
      "op rowsum(A: f32[8, 130]) -> S {\n"
      "  compute { S[i] = sum(A[i, k] for k in 0..130) }\n"
      "  schedule cuda {\n"
      "    io, ii = split(S.i, 4)\n"
      "    ko, ki = split(S.k, 64)\n"
      "    reorder(io, ii, ki, ko)\n"
      "    bind(io, blockIdx.x)\n"
      "    bind(ii, threadIdx.y)\n"
      "    bind(ki, threadIdx.x)\n"
      "  }\n}\n",
      "blockIdx.x=2 threadIdx.x=64 threadIdx.y=4 ");
  CHECK_CONTAINS(text, "allocate S_warps: f32[8] shared");
  // 24 threads per row: rows straddle warps; the first thread of a row adds its warps' values.
  text = check_on_cuda_interp(
      "op rowmax(A: f32[9, 50]) -> M {\n"
      "  compute { M[i] = max(A[i, k] for k in 0..50) }\n"
      "  schedule cuda {\n"
      "    io, ii = split(M.i, 3)\n"
      "    ko, ki = split(M.k, 24)\n"
      "    reorder(io, ii, ki, ko)\n"
      "    bind(io, blockIdx.x)\n"
      "    bind(ii, threadIdx.y)\n"
      "    bind(ki, threadIdx.x)\n"
      "  }\n}\n",
      "blockIdx.x=3 threadIdx.x=24 threadIdx.y=3 ");
  CHECK_CONTAINS(text, "allocate M_warps: f32[6] shared");
  CHECK_CONTAINS(text, "for w in 0..");
}

TEST_CASE("a thread loop inside the serial reduction loop: one cross-thread reduction per iteration") {
  std::string text = check_on_cuda_interp(
      "op rowsum(A: f32[3, 96]) -> S {\n"
      "  compute { S[i] = sum(A[i, k] for k in 0..96) }\n"
      "  schedule cuda {\n"
      "    ko, ki = split(S.k, 32)\n"
      "    bind(S.i, blockIdx.x)\n"
      "    bind(ki, threadIdx.x)\n"
      "  }\n}\n",
      "blockIdx.x=3 threadIdx.x=32 ");
  CHECK_CONTAINS(text, "S[S.i] = 0");                 // the init stays, by every thread
  CHECK_CONTAINS(text, "S[S.i] = S[S.i] + S_red[0]");  // each iteration adds its total
}

TEST_CASE("a reduction into a local buffer: every thread gets the total through shared memory") {
  check_on_cuda_interp(
      "op rowsum(A: f32[4, 70]) -> S {\n"
      "  compute { S[i] = sum(A[i, k] for k in 0..70) }\n"
      "  schedule cuda {\n"
      "    SL = cache_write(S, local)\n"
      "    bind(S.i, blockIdx.x)\n"
      "    compute_at(SL, S.i)\n"
      "    ko, ki = split(SL.k, 32)\n"
      "    reorder(ki, ko)\n"
      "    bind(ki, threadIdx.x)\n"
      "  }\n}\n",
      "blockIdx.x=4 threadIdx.x=32 ");
}

TEST_CASE("rfactor's partial sums, reduced across threads") {
  std::string text = check_on_cuda_interp(
      "op rowsum(A: f32[4, 256]) -> S {\n"
      "  compute { S[i] = sum(A[i, k] * A[i, k] for k in 0..256) }\n"
      "  schedule cuda {\n"
      "    ko, ki = split(S.k, 64)\n"
      "    SF = rfactor(S, ki)\n"
      "    compute_at(SF, S.i)\n"
      "    bind(S.i, blockIdx.x)\n"
      "    bind(SF.ki, threadIdx.x)\n"
      "    bind(ki, threadIdx.x)\n"
      "  }\n}\n",
      "blockIdx.x=4 threadIdx.x=64 ");
  CHECK_CONTAINS(text, "shuffle_down(");
}

TEST_CASE("what the lowering cannot do is a diagnostic at the bind") {
  Diagnostic d = cuda_error(
      "op f(A: f32[64, 64]) -> S {\n"
      "  compute { S[i] = sum(A[i, k] for k in 0..64) }\n"
      "  schedule cuda {\n"
      "    io, ii = split(S.i, 8)\n"
      "    ko, ki = split(S.k, 16)\n"
      "    reorder(io, ii, ki, ko)\n"
      "    bind(io, blockIdx.x)\n"
      "    bind(ii, threadIdx.x)\n"
      "    bind(ki, threadIdx.y)\n"
      "  }\n}\n");
  CHECK(d.id == DiagId::GpuCrossThreadNotInnermost);
  CHECK(d.loc.line == 9);
  d = cuda_error(
      "op f(A: f32[8, 64]) -> S {\n"
      "  compute { S[i] = sum(A[i, k] for k in 0..64) }\n"
      "  schedule cuda {\n"
      "    reorder(S.k, S.i)\n"
      "    bind(S.k, threadIdx.x)\n"
      "  }\n}\n");
  CHECK(d.id == DiagId::GpuCrossThreadSpatialInside);
  CHECK(d.loc.line == 5);
}

TEST_CASE("a reduction under a condition on the thread index cannot reach its barriers: an error") {
  // No schedule makes this (guards of a thread's rows go inside the reduction loop, below), so the
  // pass runs on IR text.
  LoweredFunc f = parse_func(
      "func f(A: f32[256] input, S: f32[4] output) {\n"
      "  bound(threadIdx.y) ty in 0..4 {\n"
      "    if (ty < 3) {\n"
      "      bound(threadIdx.x) tx in 0..64 {\n"
      "        S[ty] = S[ty] + A[ty*64 + tx]\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "}\n");
  try {
    lower_cross_thread_reductions(f.body);
    FAIL("no diagnostic");
  } catch (const UserError& e) {
    CHECK(e.diag.id == DiagId::GpuCrossThreadDivergent);
    CHECK_CONTAINS(e.diag.message, "lies under condition 'ty < 3'");
  }
}

TEST_CASE("rows past the tensor's end (10 rows in blocks of 4): the guard goes around the updates and the write") {
  std::string text = check_on_cuda_interp(
      "op f(A: f32[10, 64]) -> S {\n"
      "  compute { S[i] = sum(A[i, k] for k in 0..64) }\n"
      "  schedule cuda {\n"
      "    io, ii = split(S.i, 4)\n"
      "    bind(io, blockIdx.x)\n"
      "    bind(ii, threadIdx.y)\n"
      "    bind(S.k, threadIdx.x)\n"
      "  }\n}\n",
      "blockIdx.x=3 threadIdx.x=64 threadIdx.y=4 ");
  CHECK_CONTAINS(text, "if (S.k == 0 && io*4 + ii < 10)");
}

TEST_CASE("one thread loop reducing two results is an error naming both") {
  LoweredFunc f = parse_func(
      "func f(A: f32[64] input, S: f32[1] output, T: f32[1] output) {\n"
      "  bound(threadIdx.x) tx in 0..64 {\n"
      "    S[0] = S[0] + A[tx]\n"
      "    T[0] = max(T[0], A[tx])\n"
      "  }\n"
      "}\n");
  try {
    lower_cross_thread_reductions(f.body);
    FAIL("no diagnostic");
  } catch (const UserError& e) {
    CHECK(e.diag.id == DiagId::GpuCrossThreadTwoUpdates);
    CHECK_CONTAINS(e.diag.message, "reduces two elements ('S' and 'T')");
  }
}

TEST_CASE("a threadIdx.y of the kernel that no loop around the reduction binds gets one") {
  std::string text = check_on_cuda_interp(
      "op f(A: f32[4, 64]) -> Y {\n"
      "  compute {\n"
      "    S[i] = sum(A[i, k] for k in 0..64)\n"
      "    Y[i, j] = A[i, j] / S[i]\n"
      "  }\n"
      "  schedule cuda {\n"
      "    SS = cache_write(S, shared)\n"
      "    inline(S)\n"
      "    compute_at(SS, Y.i)\n"
      "    bind(Y.i, blockIdx.x)\n"
      "    jo, ji = split(Y.j, 32)\n"
      "    bind(jo, threadIdx.y)\n"
      "    bind(ji, threadIdx.x)\n"
      "    ko, ki = split(SS.k, 32)\n"
      "    reorder(ki, ko)\n"
      "    bind(ki, threadIdx.x)\n"
      "  }\n}\n",
      "blockIdx.x=4 threadIdx.x=32 threadIdx.y=2 ");
  CHECK(text.find("bound(threadIdx.y) ty in 0..2") < text.find("bound(threadIdx.x) ki in 0..32"));
  CHECK_CONTAINS(text, "if (ki == 0 && ty == 0)");  // one row writes, the others only repeat it
  CHECK_CONTAINS(text, "thread_barrier()");          // SS is read by every thread after thread 0 wrote it
}

TEST_CASE("virtual threads: each reduces its own row between the same barriers, in its own slots") {
  std::string text = check_on_cuda_interp(
      "op rowsum(A: f32[8, 100]) -> S {\n"
      "  compute { S[i] = sum(A[i, k] for k in 0..100) }\n"
      "  schedule cuda {\n"
      "    io, iv = split(S.i, 2)\n"
      "    ko, ki = split(S.k, 64)\n"
      "    reorder(io, iv, ki, ko)\n"
      "    bind(io, blockIdx.x)\n"
      "    bind(iv, vthread)\n"
      "    bind(ki, threadIdx.x)\n"
      "  }\n}\n",
      "blockIdx.x=4 threadIdx.x=64 ");
  CHECK_CONTAINS(text, "allocate S_warps: f32[4] shared");  // 2 warps x 2 virtual threads
  CHECK_CONTAINS(text, "S_warps[iv*2 + ki/32] = S_red[iv]");
}

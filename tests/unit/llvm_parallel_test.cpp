// Tests of parallel loops: compiled `parallel` loops run their iterations on several threads of
// texrt's pool (TEXC_NUM_THREADS / texrt_set_num_threads), correctly, nested ones too.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>

#include "backends/llvm/LLVMBackend.h"
#include "runtime/texrt.h"
#include "tests/unit/llvm_test_ops.h"

using namespace texc;
using namespace texc::llvm_test;

namespace {

std::mutex g_mutex;
std::set<std::thread::id> g_threads;

// Called by the compiled loop body: records the calling thread and takes a little time, so that
// every worker gets a share of the tasks.
extern "C" void texc_test_record_thread(int64_t task) {
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  std::lock_guard<std::mutex> lock(g_mutex);
  g_threads.insert(std::this_thread::get_id());
}

/// parallel i in 0..n { record_thread(i); Out[i] = A[i] * 2 }
LoweredFunc recording_op(int64_t n) {
  Buffer a = input("A", Int(32), n), out = output("Out", Int(32), n);
  Var i = Variable::make("i");
  Stmt record = Evaluate::make(Call::make(Int(32), "texc_test_record_thread", {Expr(i)}, CallKind::Extern));
  Stmt body = Seq::make({record, store(out, i, load(a, i) * make_int(2, Int(32)))});
  return {"record", {a, out}, loop(i, 0, n, body, ForKind::Parallel), {{n}, {n}}};
}

size_t threads_used(JitModule& m, int64_t n) {
  std::vector<int32_t> a(n), out(n, 0);
  for (int64_t i = 0; i < n; ++i) a[i] = int32_t(i * 3 - 7);
  g_threads.clear();
  m.call("record", {a.data(), out.data()});
  for (int64_t i = 0; i < n; ++i) REQUIRE(out[i] == a[i] * 2);
  return g_threads.size();
}

}  // namespace

TEST_CASE("parallel loops run on TEXC_NUM_THREADS threads") {
  const int64_t n = 64;
  auto m = JitModule::create({recording_op(n)}, CpuTargetOptions{},
                             {{"texc_test_record_thread", reinterpret_cast<void*>(&texc_test_record_thread)}});
  setenv("TEXC_NUM_THREADS", "2", 1);
  texrt_set_num_threads(0);  // back to the default, which reads TEXC_NUM_THREADS
  CHECK(texrt_get_num_threads() == 2);
  CHECK(threads_used(*m, n) == 2);

  texrt_set_num_threads(3);
  CHECK(texrt_get_num_threads() == 3);
  CHECK(threads_used(*m, n) == 3);

  texrt_set_num_threads(1);
  CHECK(threads_used(*m, n) == 1);
  unsetenv("TEXC_NUM_THREADS");
  texrt_set_num_threads(0);
}

TEST_CASE("nested parallel loops and many small tasks") {
  // parallel i in 0..M { parallel j in 0..N { C[i*N + j] = i * 1000 + j } }
  const int64_t M = 17, N = 300;
  Buffer c = output("C", Int(64), M * N);
  Var i = Variable::make("i"), j = Variable::make("j");
  Stmt inner = loop(j, 0, N, store(c, Expr(i) * N + j, Expr(i) * 1000 + j), ForKind::Parallel);
  LoweredFunc f{"nested", {c}, loop(i, 0, M, inner, ForKind::Parallel), {{M, N}}};
  texrt_set_num_threads(4);
  auto m = JitModule::create({f}, CpuTargetOptions{});
  for (int repeat = 0; repeat < 20; ++repeat) {
    std::vector<int64_t> out(M * N, -1);
    m->call("nested", {out.data()});
    for (int64_t a = 0; a < M; ++a)
      for (int64_t b = 0; b < N; ++b) REQUIRE(out[a * N + b] == a * 1000 + b);
  }
  texrt_set_num_threads(0);
}

TEST_CASE("a parallel loop with a non-zero min captures scalars of the enclosing scope") {
  // let s = S[0] in parallel i in 5..+20 { Out[i - 5] = A[i] + s }
  Buffer s = input("S", Float(32), 1), a = input("A", Float(32), 25), out = output("Out", Float(32), 20);
  Var i = Variable::make("i"), sv = Variable::make("s", Float(32));
  Stmt body = LetStmt::make(sv, load(s, i64(0)),
                            loop(i, 5, 20, store(out, Expr(i) - 5, load(a, i) + Expr(sv)), ForKind::Parallel));
  auto m = JitModule::create({LoweredFunc{"offset", {s, a, out}, body, {}}}, CpuTargetOptions{});
  float scalar = 0.25f;
  std::vector<float> av(25), o(20, 0);
  for (int k = 0; k < 25; ++k) av[k] = float(k);
  texrt_set_num_threads(3);
  m->call("offset", {&scalar, av.data(), o.data()});
  for (int k = 0; k < 20; ++k) CHECK(o[k] == float(k + 5) + 0.25f);
  texrt_set_num_threads(0);
}

TEST_CASE("texrt_alloc is 64-byte aligned") {
  for (int64_t bytes : {0, 1, 63, 64, 65, 1 << 20}) {
    void* p = texrt_alloc(bytes);
    REQUIRE(p != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(p) % 64 == 0);
    texrt_free(p);
  }
}

// cuda-interp's race detector (backends/interp/CudaInterpreter.h): hand-written kernels in the IR
// text form (ir/IRParser.h) and lowered ones with their barriers removed, each run on cuda-interp.
// A race names the buffer, the element, both threads (block and thread coordinates), whether each
// read or wrote and the loop of each access; kernels without races run and compute right.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "gpu_test_support.h"

#include "backends/interp/CudaInterpreter.h"
#include "backends/interp/InterpError.h"
#include "ir/IRMutator.h"
#include "ir/IRParser.h"
#include "ir/Intrinsics.h"
#include "lower/gpu/InsertBarriers.h"

using namespace texc;
using namespace texc::testing;

namespace {

std::vector<int64_t> constant_shape(const Buffer& b) {
  std::vector<int64_t> shape;
  for (const Expr& e : b->shape) shape.push_back(e->as<IntImm>()->value);
  return shape;
}

// Runs a kernel on cuda-interp: input element i holds i, outputs start at 0. Returns the
// InterpError's message ("" when it ran); *tensors gets the arguments afterwards.
std::string run_kernel(const LoweredFunc& f, std::vector<Tensor>* tensors = nullptr) {
  std::vector<Tensor> args;
  for (const Buffer& b : f.args) {
    args.emplace_back(b->dtype, constant_shape(b));
    if (b->role == BufferRole::Input)
      for (int64_t i = 0; i < args.back().num_elements(); ++i) args.back().set_double(i, double(i));
  }
  std::vector<Tensor*> pointers;
  for (Tensor& t : args) pointers.push_back(&t);
  std::string message;
  try {
    CudaInterpreter(f).run(pointers);
  } catch (const InterpError& e) {
    message = e.what();
  }
  if (tensors) *tensors = std::move(args);
  return message;
}

std::string run_kernel(const std::string& text, std::vector<Tensor>* tensors = nullptr) {
  return run_kernel(parse_func(text), tensors);
}

const char* kSharedReversal =
    "func f(A: f32[64] input, C: f32[64] output) {\n"
    "  allocate S: f32[64] shared {\n"
    "    bound(threadIdx.x) tx in 0..64 {\n"
    "      S[tx] = A[tx]\n"
    "%s"
    "      C[tx] = S[63 - tx]\n"
    "    }\n"
    "  }\n"
    "}\n";

std::string shared_reversal(const std::string& between) {
  std::string text = kSharedReversal;
  text.replace(text.find("%s"), 2, between);
  return text;
}

}  // namespace

TEST_CASE("a shared tile read by another thread with no barrier after the write: a race naming buffer, element, threads and loops") {
  std::string message = run_kernel(shared_reversal(""));
  // The threads run one after another: thread 31 reads S[32] (nobody wrote it yet), then thread
  // 32 writes it.
  CHECK(message ==
        "data race on shared buffer 'S' element [32]: thread (block 0, thread 31) reads it in loop 'tx' "
        "(C[tx] = S[63 - tx]), thread (block 0, thread 32) writes it in loop 'tx' (S[tx] = A[tx]), with no "
        "barrier between them");
}

TEST_CASE("the same kernel with a barrier between the write and the read runs and computes right") {
  std::vector<Tensor> t;
  CHECK(run_kernel(shared_reversal("      thread_barrier()\n"), &t) == "");
  for (int64_t i = 0; i < 64; ++i) CHECK(t[1].get_double(i) == double(63 - i));
}

TEST_CASE("a tile refilled in a serial loop without the barrier at the end of the body: a race in that loop") {
  const char* text =
      "func f(A: f32[256] input, C: f32[64] output) {\n"
      "  allocate S: f32[64] shared {\n"
      "    bound(threadIdx.x) tx in 0..64 {\n"
      "      C[tx] = 0.0f\n"
      "      for k in 0..4 {\n"
      "        S[tx] = A[k*64 + tx]\n"
      "        thread_barrier()\n"
      "        C[tx] = C[tx] + S[63 - tx]\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "}\n";
  // Iteration 0's read of S[0] by thread 63 and iteration 1's write of it by thread 0 meet in one
  // phase.
  CHECK(run_kernel(text) ==
        "data race on shared buffer 'S' element [0]: thread (block 0, thread 63) reads it in loop 'k' "
        "(C[tx] = C[tx] + S[63 - tx]), thread (block 0, thread 0) writes it in loop 'k' (S[tx] = A[k*64 + tx]), "
        "with no barrier between them");
}

TEST_CASE("an element read by several threads, then written by one of them: the race names another reader") {
  const char* text =
      "func f(A: f32[64] input, C: f32[64] output) {\n"
      "  allocate S: f32[1] shared {\n"
      "    bound(threadIdx.x) tx in 0..4 {\n"
      "      C[tx] = S[0]\n"
      "      if (tx == 2) {\n"
      "        S[0] = A[tx]\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "}\n";
  std::string message = run_kernel(text);
  CHECK_CONTAINS(message, "data race on shared buffer 'S' element [0]: thread (block 0, thread 0) reads it");
  CHECK_CONTAINS(message, "thread (block 0, thread 2) writes it");
}

TEST_CASE("two blocks writing one element of a global buffer race, whatever the barriers") {
  const char* text =
      "func g(A: f32[64] input, C: f32[8] output) {\n"
      "  bound(blockIdx.x) bx in 0..8 {\n"
      "    bound(threadIdx.x) tx in 0..8 {\n"
      "      C[tx] = A[bx*8 + tx]\n"
      "      thread_barrier()\n"
      "    }\n"
      "  }\n"
      "}\n";
  CHECK(run_kernel(text) ==
        "data race on global buffer 'C' element [0]: thread (block 0, thread 0) writes it in loop 'tx' "
        "(C[tx] = A[bx*8 + tx]), thread (block 1, thread 0) writes it in loop 'tx' (C[tx] = A[bx*8 + tx]); "
        "blocks run in no fixed order (write each element from one block)");
}

TEST_CASE("a block reading what another block wrote to a global intermediate races") {
  const char* text =
      "func g(A: f32[64] input, C: f32[64] output) {\n"
      "  allocate T: f32[64] global {\n"
      "    bound(blockIdx.x) bx in 0..8 {\n"
      "      bound(threadIdx.x) tx in 0..8 {\n"
      "        T[bx*8 + tx] = A[bx*8 + tx]\n"
      "        thread_barrier()\n"
      "        C[bx*8 + tx] = T[63 - bx*8 - tx]\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "}\n";
  std::string message = run_kernel(text);
  // Block 3's thread 7 reads T[32], which block 4's thread 0 writes later.
  CHECK_CONTAINS(message, "data race on global buffer 'T' element [32]: thread (block 3, thread 7) reads it");
  CHECK_CONTAINS(message, "thread (block 4, thread 0) writes it in loop 'tx' (T[bx*8 + tx] = A[bx*8 + tx])");
  CHECK_CONTAINS(message, "blocks run in no fixed order");
}

TEST_CASE("no race: each thread its own elements, re-read and re-written; a shared value read by every thread after a barrier") {
  const char* text =
      "func f(A: f32[2, 64] input, C: f32[2, 64] output) {\n"
      "  bound(blockIdx.x) bx in 0..2 {\n"
      "    allocate S: f32[65] shared {\n"
      "      bound(threadIdx.y) ty in 0..4 {\n"
      "        bound(threadIdx.x) tx in 0..16 {\n"
      "          S[ty*16 + tx] = A[bx, ty*16 + tx]\n"
      "          S[ty*16 + tx] = S[ty*16 + tx]*2.0f\n"
      "          if (tx == 0 && ty == 0) {\n"
      "            S[64] = A[bx, 0]\n"
      "          }\n"
      "          thread_barrier()\n"
      "          C[bx, ty*16 + tx] = S[ty*16 + tx] + S[64]\n"
      "          C[bx, ty*16 + tx] = C[bx, ty*16 + tx] + 1.0f\n"
      "        }\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "}\n";
  std::vector<Tensor> t;
  CHECK(run_kernel(text, &t) == "");
  for (int64_t i = 0; i < 128; ++i) CHECK(t[1].get_double(i) == double(2 * i + (i / 64) * 64 + 1));
}

TEST_CASE("threads in two dimensions are named by their (x, y) coordinates") {
  const char* text =
      "func f(A: f32[64] input, C: f32[64] output) {\n"
      "  allocate S: f32[64] shared {\n"
      "    bound(threadIdx.y) ty in 0..4 {\n"
      "      bound(threadIdx.x) tx in 0..16 {\n"
      "        S[ty*16 + tx] = A[ty*16 + tx]\n"
      "        C[ty*16 + tx] = S[(ty*16 + tx + 1) % 64]\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "}\n";
  CHECK_CONTAINS(run_kernel(text),
                 "element [1]: thread (block 0, thread (0, 0)) reads it in loop 'tx' (C[ty*16 + tx] = "
                 "S[(ty*16 + tx + 1)%64]), thread (block 0, thread (1, 0)) writes it");
}

TEST_CASE("an out-of-bounds access names the buffer, the thread and the loop") {
  const char* text =
      "func f(A: f32[64] input, C: f32[64] output) {\n"
      "  bound(blockIdx.x) bx in 0..2 {\n"
      "    bound(threadIdx.x) tx in 0..32 {\n"
      "      C[bx*32 + tx] = A[bx*32 + tx + 1]\n"
      "    }\n"
      "  }\n"
      "}\n";
  CHECK(run_kernel(text) ==
        "out-of-bounds load from 'A' at [64]: index 64 in dimension 0 is outside [0, 64) (shape [64]) (thread "
        "(block 1, thread 31) in loop 'tx' (C[bx*32 + tx] = A[bx*32 + tx + 1]))");
}

TEST_CASE("a barrier only part of the block reaches is reported, naming the thread loop") {
  const char* text =
      "func f(A: f32[64] input, C: f32[64] output) {\n"
      "  allocate S: f32[64] shared {\n"
      "    bound(threadIdx.x) tx in 0..64 {\n"
      "      if (tx < 32) {\n"
      "        S[tx] = A[tx]\n"
      "        thread_barrier()\n"
      "        C[tx] = S[31 - tx]\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "}\n";
  CHECK(run_kernel(text) ==
        "a barrier is not reached by every thread of the block: it lies under a condition or loop that depends on "
        "threadIdx.x (loop 'threadIdx.x')");
}

TEST_CASE("TVM's tiled matmul runs without a race on cuda-interp; without its barriers, its shared tiles race") {
  OpDef op = compile_op(kTiledMatmul);
  LoweredFunc f = lower_cuda(op);
  std::string failure = run_on_cuda_interp(op, f);
  CHECK_MESSAGE(failure.empty(), failure);
  f.body = without_thread_barriers(f.body);
  std::string message = run_on_cuda_interp(op, f);
  // Thread (0, 0) of block (0, 0) reads the whole first row of the tiles in its first ko iteration
  // (elements no other thread wrote yet), then refills its own element in the next one; thread
  // (1, 0) fills the element next to it, which thread (0, 0) read.
  CHECK_CONTAINS(message, "data race on shared buffer 'AS' element [1]: thread (block (0, 0), thread (0, 0)) reads it "
                          "in loop 'ki' (C[");
  CHECK_CONTAINS(message, "thread (block (0, 0), thread (1, 0)) writes it in loop 'ax' (AS[ay*16 + ax] = A[");
  CHECK_CONTAINS(message, "with no barrier between them");
}

TEST_CASE("virtual threads of one thread run in order: reading another virtual thread's element is no race") {
  OpDef op = compile_op(kVirtualThreadReversal);
  std::string failure = run_on_cuda_interp(op, lower_cuda(op));
  CHECK_MESSAGE(failure.empty(), failure);
}

TEST_CASE("insert_barriers' kernels (tests/passes/cases/insert_barriers_*) run race-free; without the pass they race") {
  const char* kernels[] = {
      // RAW and the loop-carried WAR of a tile refilled every iteration.
      "func f(A: f32[16, 64] input, C: f32[64] output) {\n"
      "  allocate S: f32[64] shared {\n"
      "    bound(threadIdx.x) tx in 0..64 {\n"
      "      C[tx] = 0.0f\n"
      "      for k in 0..16 {\n"
      "        S[tx] = A[k, tx]\n"
      "        C[tx] = C[tx] + S[63 - tx]\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "}\n",
      // Double buffering with prefetch.
      "func g(A: f32[8, 64] input, C: f32[64] output) {\n"
      "  allocate S: f32[2, 64] shared {\n"
      "    bound(threadIdx.x) tx in 0..64 {\n"
      "      C[tx] = 0.0f\n"
      "      S[0, tx] = A[0, tx]\n"
      "      for k in 0..8 {\n"
      "        if (k < 7) {\n"
      "          S[(k + 1)%2, tx] = A[k + 1, tx]\n"
      "        }\n"
      "        C[tx] = C[tx] + S[k%2, 63 - tx]\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "}\n",
  };
  for (const char* text : kernels) {
    LoweredFunc f = parse_func(text);
    CHECK_CONTAINS(run_kernel(f), "data race on shared buffer 'S'");
    f.body = insert_barriers(f.body);
    std::vector<Tensor> t;
    CHECK(run_kernel(f, &t) == "");
    // C[tx] sums A[k, 63 - tx] over k (input element i holds i).
    const int64_t rows = t[0].shape()[0];
    for (int64_t tx = 0; tx < 64; ++tx) {
      double expected = 0;
      for (int64_t k = 0; k < rows; ++k) expected += double(k * 64 + 63 - tx);
      CHECK(t[1].get_double(tx) == expected);
    }
  }
}

// Async copies (lower/gpu/DoubleBuffer.h): cuda-interp makes each copy of a pragma(async_copy)
// fill when the thread issues it, so the detector sees its write there; the commit and wait do not
// order the block's threads. A pipeline whose reads of a half follow the wait without a barrier is
// a race on the element another thread's copy wrote; with insert_barriers' barriers it runs right.
namespace {
const char* kPipelined =
    "func f(A: f32[256] input, C: f32[64] output) {\n"
    "  bound(threadIdx.x) t in 0..64 {\n"
    "    C[t] = 0.0f\n"
    "  }\n"
    "  allocate S: f32[128] shared {\n"
    "    attr pragma(async_copy) = 1 {\n"
    "      bound(threadIdx.x) tx in 0..64 {\n"
    "        S[tx] = A[tx]\n"
    "      }\n"
    "    }\n"
    "    async_copy_commit()\n"
    "    for k in 0..4 {\n"
    "      if (k < 3) {\n"
    "        attr pragma(async_copy) = 1 {\n"
    "          bound(threadIdx.x) tx in 0..64 {\n"
    "            S[(k + 1)%2*64 + tx] = A[k*64 + tx + 64]\n"
    "          }\n"
    "        }\n"
    "      }\n"
    "      async_copy_commit()\n"
    "      async_copy_wait(1i32)\n"
    "      bound(threadIdx.x) ty in 0..64 {\n"
    "        C[ty] = C[ty] + S[k%2*64 + 63 - ty]\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "}\n";
}  // namespace

TEST_CASE("an async-copy pipeline without barriers: the wait orders only the thread's own copies, a race") {
  std::string message = run_kernel(kPipelined);
  CHECK_CONTAINS(message, "data race on shared buffer 'S' element [");
  CHECK_CONTAINS(message, "writes it in loop 'tx'");
  CHECK_CONTAINS(message, "reads it in loop 'ty'");
}

TEST_CASE("the async-copy pipeline with insert_barriers' barriers runs and computes the sums of the reversed rows") {
  LoweredFunc f = parse_func(kPipelined);
  f.body = insert_barriers(f.body);
  std::vector<Tensor> tensors;
  REQUIRE(run_kernel(f, &tensors) == "");
  for (int64_t t = 0; t < 64; ++t) {
    double want = 0;
    for (int64_t k = 0; k < 4; ++k) want += double(k * 64 + 63 - t);
    CHECK(tensors[1].get_double(t) == want);
  }
}

// Split-K (lower/gpu/CrossBlockReduction.h): atomic adds of one element by several threads and
// blocks are no race, and they sum right; a plain store of the element by another block is.
const char* kAtomicSums =
    "func f(A: f32[64] input, S: f32[2] output) {\n"
    "  bound(blockIdx.x) bx in 0..4 {\n"
    "    bound(threadIdx.x) tx in 0..16 {\n"
    "      atomic_add(S[tx%2], A[bx*16 + tx])\n"
    "%s"
    "    }\n"
    "  }\n"
    "}\n";

std::string atomic_sums(const std::string& after) {
  std::string text = kAtomicSums;
  text.replace(text.find("%s"), 2, after);
  return text;
}

TEST_CASE("atomic adds of one element by the threads of four blocks: no race, the sums are right") {
  std::vector<Tensor> t;
  CHECK(run_kernel(atomic_sums(""), &t) == "");
  CHECK(t[1].get_double(0) == double(0 + 2 + 4 + 6 + 8 + 10 + 12 + 14) * 4 + 16.0 * 8 * (0 + 1 + 2 + 3));
  CHECK(t[1].get_double(1) == t[1].get_double(0) + 32.0);
}

TEST_CASE("a plain store racing with atomic adds of the element: a race naming the atomic update") {
  // Thread 0 of block 0 overwrites S[0] after its own atomic add; thread 2 of block 0 adds to it
  // atomically in the same phase: the plain store races with the atomic update.
  CHECK(run_kernel(atomic_sums("      if (tx == 0) {\n        S[0] = 1.0f\n      }\n")) ==
        "data race on global buffer 'S' element [0]: thread (block 0, thread 0) writes it in loop 'tx' "
        "(S[0] = 1.0f), thread (block 0, thread 2) adds to it atomically in loop 'tx' (atomic_add(S[tx%2], "
        "A[bx*16 + tx])), with no barrier between them");
}

TEST_CASE("a plain read of an element other blocks add to atomically: a race across blocks") {
  const char* text =
      "func f(A: f32[64] input, S: f32[2] output, T: f32[4] output) {\n"
      "  bound(blockIdx.x) bx in 0..4 {\n"
      "    atomic_add(S[0], A[bx])\n"
      "    T[bx] = S[0]\n"
      "  }\n"
      "}\n";
  std::string message = run_kernel(text);
  CHECK(message.find("data race on global buffer 'S' element [0]: thread (block 0, thread 0) reads it") == 0);
  CHECK(message.find("thread (block 1, thread 0) adds to it atomically") != std::string::npos);
  CHECK(message.find("blocks run in no fixed order") != std::string::npos);
}

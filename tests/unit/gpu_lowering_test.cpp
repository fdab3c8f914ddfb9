// The GPU lowering (lower/gpu/, the cuda pass list of lower/Lower.cpp): Device functions with
// their launch extents, the default schedule of ops without `schedule cuda`, hoisted shared
// buffers and barriers. The kernels' bound loops run serially on the loop interpreter (one
// thread after another), which checks the default schedule's index arithmetic against the
// reference where no thread reads what another wrote.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "gpu_test_support.h"

#include "ir/IRMutator.h"
#include "ir/Intrinsics.h"
#include "backends/interp/CudaInterpreter.h"
#include "backends/interp/InterpError.h"
#include "ir/Schedule.h"
#include "lower/gpu/VirtualThreads.h"

using namespace texc;
using namespace texc::testing;

TEST_CASE("a tiled matmul with shared tiles (TVM's schedule) gets RAW and WAR barriers and runs right on cuda-interp") {
  OpDef op = compile_op(kTiledMatmul);
  LoweredFunc f = lower_cuda(op);
  CHECK(launch_of(f) == "blockIdx.x=5 blockIdx.y=4 threadIdx.x=16 threadIdx.y=16 ");
  std::string text = to_string(f);
  CHECK(count_of(text, "thread_barrier()") == 2);  // after the fills (RAW), end of the ko body (WAR)
  std::string failure = run_on_cuda_interp(op, f);
  CHECK_MESSAGE(failure.empty(), failure);
}

TEST_CASE("the same kernel without its barriers: its threads race on the shared tiles") {
  OpDef op = compile_op(kTiledMatmul);
  LoweredFunc f = lower_cuda(op);
  f.body = without_thread_barriers(f.body);
  CHECK_CONTAINS(run_on_cuda_interp(op, f), "data race on shared buffer 'AS'");
}

TEST_CASE("an elementwise op without a cuda schedule: fused, 256 threads per block, one per element") {
  OpDef op = compile_op("op f(A: f32[1000, 30]) -> B {\n  compute { B[i, j] = A[i, j] * 2.0 }\n}\n");
  LoweredFunc f = lower_cuda(op);
  CHECK(f.kind == FunctionKind::Device);
  CHECK(launch_of(f) == "blockIdx.x=118 threadIdx.x=256 ");
  CHECK_CONTAINS(to_string(f), "if (B.bx*256 + B.tx < 30000)");  // 30000 is no multiple of 256
  std::string failure = run_and_compare(op, f);
  CHECK_MESSAGE(failure.empty(), failure);
}

TEST_CASE("a reduction without a cuda schedule: one thread per output, the reduction serial inside") {
  OpDef op = compile_op(
      "op mm(A: f32[64, 32], W: f32[32, 48]) -> C {\n"
      "  compute { C[i, j] = sum(A[i, k] * W[k, j] for k in 0..32) }\n}\n");
  LoweredFunc f = lower_cuda(op);
  CHECK(launch_of(f) == "blockIdx.x=12 threadIdx.x=256 ");
  CHECK_CONTAINS(to_string(f), "for C.k in 0..32");
  std::string failure = run_and_compare(op, f);
  CHECK_MESSAGE(failure.empty(), failure);
}

TEST_CASE("stages left apart run in one block, ordered by a barrier") {
  OpDef op = compile_op(
      "op two(A: f32[64]) -> B {\n"
      "  compute {\n    T[i] = A[i] * 2.0\n    B[i: 64] = T[63 - i] + 1.0\n  }\n"
      "  schedule cuda { compute_root(T) }\n}\n");
  LoweredFunc f = lower_cuda(op);
  CHECK(launch_of(f) == "threadIdx.x=64 ");
  std::string text = to_string(f);
  CHECK(count_of(text, "thread_barrier()") == 1);
  CHECK(text.find("T[T.tx] =") < text.find("thread_barrier()"));
  CHECK(text.find("thread_barrier()") < text.find("B[B.tx] ="));
}

TEST_CASE("a scheduled kernel keeps its bindings; its shared tile is allocated once per block, before the threads") {
  OpDef op = compile_op(
      "op f(A: f32[64, 64]) -> B {\n"
      "  compute { B[i, j: 64] = A[i, 63 - j] }\n"
      "  schedule cuda {\n"
      "    AS = cache_read(A, shared, B)\n"
      "    bind(B.i, blockIdx.x)\n"
      "    bind(B.j, threadIdx.x)\n"
      "    compute_at(AS, B.i)\n"
      "    bind(AS.d1, threadIdx.x)\n"
      "  }\n}\n");
  LoweredFunc f = lower_cuda(op);
  CHECK(launch_of(f) == "blockIdx.x=64 threadIdx.x=64 ");
  std::string text = to_string(f);
  CHECK_CONTAINS(text, "allocate AS: f32[64] shared");
  CHECK(text.find("allocate AS") < text.find("bound(threadIdx.x)"));
  CHECK(count_of(text, "thread_barrier()") == 1);
}

TEST_CASE("the shared memory limit follows --arch") {
  const char* text =
      "op f(A: f32[4, 20000]) -> B {\n"
      "  compute { B[i, j] = A[i, j] * 2.0 }\n"
      "  schedule cuda {\n"
      "    AS = cache_read(A, shared, B)\n"
      "    bind(B.i, blockIdx.x)\n"
      "    jo, ji = split(B.j, 250)\n"
      "    bind(ji, threadIdx.x)\n"
      "    compute_at(AS, B.i)\n"
      "  }\n}\n";
  OpDef op = compile_op(text);
  CHECK(lower_cuda(op, "sm_80").kind == FunctionKind::Device);  // 80000 bytes <= 166912
  try {
    lower_cuda(op, "sm_75");  // 80000 bytes > 65536
    FAIL("expected the shared memory error");
  } catch (const UserError& e) {
    CHECK(e.diag.id == DiagId::GpuSharedTooLarge);
  }
}

TEST_CASE("virtual threads become serial loops in each thread, with a local copy per virtual thread") {
  OpDef op = compile_op(kVirtualThreadReversal);
  LoweredFunc f = lower_cuda(op);
  CHECK(launch_of(f) == "blockIdx.x=64 threadIdx.x=16 ");
  std::string text = to_string(f);
  CHECK_CONTAINS(text, "allocate BL: f32[4] local");
  CHECK_CONTAINS(text, "unrolled jo in 0..4");  // one constant copy index per virtual thread
  CHECK(!contains(text, "vthread"));
  // The shared tile is filled before the barrier, read after it; every iteration of jo reads its
  // own BL element.
  CHECK(text.find("AS[ao*16 + ai] =") < text.find("thread_barrier()"));
  CHECK(text.find("thread_barrier()") < text.find("unrolled jo in 0..4"));
  CHECK_CONTAINS(text, "BL[jo] = AS[");
  std::string failure = run_on_cuda_interp(op, f);
  CHECK_MESSAGE(failure.empty(), failure);
}

TEST_CASE("a stage computed inside a thread loop is local, one inside a block loop shared (infer_gpu_scopes)") {
  // Computed at the thread loop: one element per thread, in local memory (global, every thread
  // computed all of C and raced with the others).
  OpDef per_thread = compile_op(
      "op f(A: i8[13, 11], B: i8[11, 17]) -> Q {\n"
      "  compute {\n"
      "    C[i, j] = sum(i32(A[i, k]) * i32(B[k, j]) for k in 0..11)\n"
      "    Q[i, j] = i8(min(max(C[i, j] >> 2, -128), 127))\n"
      "  }\n"
      "  schedule cuda {\n"
      "    o1, i1 = split(Q.j, 16)\n    reorder(Q.i, o1, i1)\n"
      "    bind(Q.i, blockIdx.y)\n    bind(o1, blockIdx.x)\n    bind(i1, threadIdx.x)\n"
      "    compute_at(C, i1)\n"
      "  }\n}\n");
  LoweredFunc f = lower_cuda(per_thread);
  CHECK_CONTAINS(to_string(f), "allocate C: i32[1] local");
  std::string failure = run_on_cuda_interp(per_thread, f);
  CHECK_MESSAGE(failure.empty(), failure);
  // Computed at the block loop, its loops bound to the threads: the block's region, shared.
  OpDef per_block = compile_op(
      "op g(A: f32[64, 32]) -> B {\n"
      "  compute {\n"
      "    T[i, j] = A[i, j] * 2.0\n"
      "    B[i, j: 31] = T[i, j] + T[i, j + 1]\n"
      "  }\n"
      "  schedule cuda {\n"
      "    bind(B.i, blockIdx.x)\n    bind(B.j, threadIdx.x)\n"
      "    compute_at(T, B.i)\n"
      "    to, ti = split(T.j, 31)\n    bind(ti, threadIdx.x)\n"
      "  }\n}\n");
  f = lower_cuda(per_block);
  CHECK_CONTAINS(to_string(f), "allocate T: f32[32] shared");
  failure = run_on_cuda_interp(per_block, f);
  CHECK_MESSAGE(failure.empty(), failure);
}

// TVM's matmul schedule with register blocking: the local accumulator is attached at the block
// loop (its loops bound to the threads, the k tiles outside them, the shared fills at the k tile),
// so it must be sized for one thread, not for the block's whole tile.
const char* kRegisterBlockedMatmul =
    "op mm(A: f32[13, 7], B: f32[7, 37]) -> C {\n"
    "  compute { C[i, j] = sum(A[i, k] * B[k, j] for k in 0..7) }\n"
    "  schedule cuda {\n"
    "    AS = cache_read(A, shared, C)\n    BS = cache_read(B, shared, C)\n    CL = cache_write(C, local)\n"
    "    io, jo, ii, ji = tile(C.i, C.j, 8, 16)\n    ty, yi = split(ii, 2)\n    tx, xi = split(ji, 2)\n"
    "    reorder(io, jo, ty, tx, yi, xi)\n"
    "    bind(io, blockIdx.y)\n    bind(jo, blockIdx.x)\n    bind(ty, threadIdx.y)\n    bind(tx, threadIdx.x)\n"
    "    compute_at(CL, jo)\n    cty, cyi = split(CL.i, 2)\n    ctx, cxi = split(CL.j, 2)\n    ko, ki = split(CL.k, 4)\n"
    "    reorder(ko, cty, ctx, ki, cyi, cxi)\n    bind(cty, threadIdx.y)\n    bind(ctx, threadIdx.x)\n"
    "    compute_at(AS, ko)\n    compute_at(BS, ko)\n"
    "    af = fuse(AS.i, AS.k)\n    ao, ax = split(af, 8)\n    aoo, ay = split(ao, 4)\n    bind(ay, threadIdx.y)\n    bind(ax, threadIdx.x)\n"
    "    bf = fuse(BS.k, BS.j)\n    bo, bx = split(bf, 8)\n    boo, by = split(bo, 4)\n    bind(by, threadIdx.y)\n    bind(bx, threadIdx.x)\n"
    "  }\n}\n";

TEST_CASE("a local accumulator attached at the block loop is one thread's tile (2x2), indexed without the thread") {
  OpDef op = compile_op(kRegisterBlockedMatmul);
  LoweredFunc f = lower_cuda(op);
  CHECK(launch_of(f) == "blockIdx.x=3 blockIdx.y=2 threadIdx.x=8 threadIdx.y=4 ");
  std::string text = to_string(f);
  CHECK_CONTAINS(text, "allocate CL: f32[4] local");  // was f32[128]: the block's 8x16 tile per thread
  CHECK_CONTAINS(text, "CL[cyi*2 + cxi] = 0.0f");
  CHECK_CONTAINS(text, "C[io*296 + ty*74 + yi*37 + jo*16 + tx*2 + xi] = CL[yi*2 + xi]");
  std::string failure = run_on_cuda_interp(op, f);
  CHECK_MESSAGE(failure.empty(), failure);
}

TEST_CASE("a split whose factor exceeds the extent, bound to a thread, keeps the factor as its extent (guarded)") {
  // AS's fill is 2x3 = 6 elements; split by the 4 x 2 threads of the block, its threadIdx.y loop
  // would have 3 iterations against the 4 of the compute's.
  OpDef op = compile_op(
      "op f(A: f32[8, 3]) -> B {\n"
      "  compute { B[i, j] = A[i, j] + A[i, 2 - j] }\n"
      "  schedule cuda {\n"
      "    AS = cache_read(A, shared, B)\n"
      "    io, ii = split(B.i, 2)\n    bind(io, blockIdx.x)\n"
      "    f = fuse(ii, B.j)\n    ty, tx = split(f, 2)\n    ty2, ty3 = split(ty, 4)\n"
      "    bind(ty3, threadIdx.y)\n    bind(tx, threadIdx.x)\n"
      "    compute_at(AS, io)\n    af = fuse(AS.i, AS.d1)\n    ao, ax = split(af, 2)\n    aoo, ay = split(ao, 4)\n"
      "    bind(ay, threadIdx.y)\n    bind(ax, threadIdx.x)\n"
      "  }\n}\n");
  LoweredFunc f = lower_cuda(op);
  CHECK(launch_of(f) == "blockIdx.x=4 threadIdx.x=2 threadIdx.y=4 ");
  CHECK_CONTAINS(to_string(f), "bound(threadIdx.y) ay in 0..4");
  std::string failure = run_on_cuda_interp(op, f);
  CHECK_MESSAGE(failure.empty(), failure);
}

TEST_CASE("the intermediates of a one-block kernel are shared memory (a kernel cannot allocate global memory)") {
  OpDef op = compile_op(
      "op two(A: f32[64]) -> B {\n"
      "  compute {\n    T[i] = A[i] * 2.0\n    B[i: 64] = T[63 - i] + 1.0\n  }\n"
      "  schedule cuda { compute_root(T) }\n}\n");
  LoweredFunc f = lower_cuda(op);
  std::string text = to_string(f);
  CHECK_CONTAINS(text, "allocate T: f32[64] shared");
  std::string failure = run_on_cuda_interp(op, f);
  CHECK_MESSAGE(failure.empty(), failure);
}

TEST_CASE("GPU targets drop the cuda schedules carried from two or more calls (one kernel per op)") {
  std::vector<ScheduleBlock> blocks(4);
  blocks[0].target = "cuda", blocks[0].origin = "C";  // from C = matmul(...)
  blocks[1].target = "cuda", blocks[1].origin = "D";  // from D = matmul(...)
  blocks[2].target = "cuda";                          // the op's own
  blocks[3].target = "cpu", blocks[3].origin = "C";
  for (const char* target : {"cuda", "cuda-interp"}) {
    auto chosen = select_schedule_blocks(blocks, target);
    REQUIRE(chosen.size() == 1);
    CHECK(chosen[0] == &blocks[2]);
  }
  CHECK(select_schedule_blocks(blocks, "x86").size() == 1);  // CPUs keep every call's blocks
  blocks.erase(blocks.begin() + 1);                          // one call: its block stays
  CHECK(select_schedule_blocks(blocks, "cuda").size() == 2);
}

TEST_CASE("a per-thread local accumulator in a grid of one block is indexed by constants (registers)") {
  // One 16 x 64 tile covers C: the block loops have one iteration, which the scheduled indices
  // have simplified away but the region's min had kept (CL[... - io*32 - jo*2] before).
  std::string text = kRegisterBlockedMatmul;
  auto replace = [&](const std::string& from, const std::string& to) { text.replace(text.find(from), from.size(), to); };
  replace("tile(C.i, C.j, 8, 16)", "tile(C.i, C.j, 16, 64)");
  replace("ao, ax = split(af, 8)\n    aoo, ay = split(ao, 4)", "ao, ax = split(af, 19)\n    aoo, ay = split(ao, 7)");
  replace("bo, bx = split(bf, 8)\n    boo, by = split(bo, 4)", "bo, bx = split(bf, 19)\n    boo, by = split(bo, 7)");
  OpDef op = compile_op(text);
  LoweredFunc f = lower_cuda(op);
  CHECK(launch_of(f) == "blockIdx.x=1 blockIdx.y=1 threadIdx.x=19 threadIdx.y=7 ");
  std::string out = to_string(f);
  CHECK_CONTAINS(out, "CL[cyi*2 + cxi] = 0.0f");
  CHECK_CONTAINS(out, "= CL[yi*2 + xi]");
  std::string failure = run_on_cuda_interp(op, f);
  CHECK_MESSAGE(failure.empty(), failure);
}

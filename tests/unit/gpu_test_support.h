// What the GPU lowering tests share: lowering an op for cuda-interp, its launch extents as text,
// and running it on cuda-interp (threads phase by phase between barriers, checked for data races:
// backends/interp/CudaInterpreter.h) against the reference interpreter.
#pragma once
#include <string>

#include "backends/interp/CudaInterpreter.h"
#include "backends/interp/InterpError.h"
#include "lower/gpu/Barriers.h"
#include "schedule_test_support.h"

namespace texc::testing {

inline LoweredFunc lower_cuda(const OpDef& op, const std::string& arch = "") {
  LowerOptions options;
  options.target = "cuda-interp";
  options.arch = arch;
  return lower_op(op, options);
}

/// "blockIdx.x=3 threadIdx.x=8 ".
inline std::string launch_of(const LoweredFunc& f) {
  std::string out;
  for (const auto& e : f.launch.thread_extents) out += e.tag + "=" + to_string(e.extent) + " ";
  return out;
}

/// "" when `f` (lowered from `op`) runs on cuda-interp with inputs of `seed` and matches the
/// reference; else why not (a race, a wrong result, an interpreter error).
inline std::string run_on_cuda_interp(const OpDef& op, const LoweredFunc& f, uint64_t seed = 1) {
  try {
    CudaInterpreter interpreter(f);
    OpExecutor execute = [&](std::vector<Tensor*>& args) { interpreter.run(args); };
    RunOptions options;
    options.seed = seed;
    RunResult result = run_op(op, execute, options);
    return result.passed ? "" : result.message + "\n" + to_string(f);
  } catch (const InterpError& e) {
    return e.what();
  }
}

/// TVM's tiled matmul schedule: 16x16 blocks, shared A and B tiles per k step of 16, filled
/// cooperatively by the block's 16x16 threads.
inline const char* const kTiledMatmul =
    "op mm(A: f32[64, 48], B: f32[48, 80]) -> C {\n"
    "  compute { C[i, j] = sum(A[i, k] * B[k, j] for k in 0..48) }\n"
    "  schedule cuda {\n"
    "    AS = cache_read(A, shared, C)\n"
    "    BS = cache_read(B, shared, C)\n"
    "    io, jo, ii, ji = tile(C.i, C.j, 16, 16)\n"
    "    ko, ki = split(C.k, 16)\n"
    "    reorder(io, jo, ko, ii, ji, ki)\n"
    "    bind(io, blockIdx.y)\n    bind(jo, blockIdx.x)\n    bind(ii, threadIdx.y)\n    bind(ji, threadIdx.x)\n"
    "    compute_at(AS, ko)\n    compute_at(BS, ko)\n"
    "    af = fuse(AS.i, AS.k)\n    ay, ax = split(af, 16)\n    bind(ay, threadIdx.y)\n    bind(ax, threadIdx.x)\n"
    "    bf = fuse(BS.k, BS.j)\n    by, bx = split(bf, 16)\n    bind(by, threadIdx.y)\n    bind(bx, threadIdx.x)\n"
    "  }\n}\n";

/// B[i, j] = A[i, 63 - j] + 1 with a shared copy of A's row, 64 columns as 4 virtual threads x 16
/// threads, a local result per virtual thread: each thread reads elements other virtual threads
/// of other threads loaded.
inline const char* const kVirtualThreadReversal =
    "op f(A: f32[64, 64]) -> B {\n"
    "  compute { B[i, j: 64] = A[i, 63 - j] + 1.0 }\n"
    "  schedule cuda {\n"
    "    AS = cache_read(A, shared, B)\n"
    "    BL = cache_write(B, local)\n"
    "    bind(B.i, blockIdx.x)\n"
    "    jo, ji = split(B.j, 16)\n"
    "    bind(jo, vthread)\n"
    "    bind(ji, threadIdx.x)\n"
    "    compute_at(BL, ji)\n"
    "    compute_at(AS, B.i)\n"
    "    ao, ai = split(AS.d1, 16)\n"
    "    bind(ai, threadIdx.x)\n"
    "  }\n}\n";

}  // namespace texc::testing

// Features: a fixed-length description of a lowered loop nest for the cost model, computed from
// the loop AST (not from knob indices), so a model learns across shapes and ops (AutoTVM's
// "itervar" features, Chen et al., NeurIPS 2018, §2.1, made fixed-length).
//
// Input: a LoweredFunc after the common function passes (flattened, simplified; the tuner takes it
// from LowerOptions::after_pass at "simplify"), where loops still carry their annotations
// (parallel, vectorized, unrolled, thread-bound) and every buffer is one-dimensional.
//
// analyze_loop_nest finds the dominant store (the one executed most, weighted by its arithmetic)
// and describes each loop around it, innermost first:
//   extent; annotation; depth (0 = outermost); topdown (product of the extents of this loop and
//   those around it); bottomup (iterations of this loop's body, itself included);
//   per buffer (in order of first appearance in the dominant store: the stored buffer, then the
//   loads) over one full execution of this loop: touch count (distinct elements, AutoTVM's count:
//   the product of the extents of this loop and those inside it along which the index moves,
//   capped at the buffer's size; the largest over the buffer's accesses), reuse (accesses / count,
//   over every store inside the loop) and stride (the change of the index when this loop's
//   variable steps by one, other loops at their minimum);
//   footprint (bytes of every buffer touched inside the loop, by the counts above) against the
//   L1/L2/L3 cache sizes.
// Then whole-function counts, each statement weighted by its trip count: float add/sub, mul,
// div/mod, other float ops (min, max, compares, math calls), integer ops, loads, stores; and the
// numbers of loops by annotation, stores and allocations.
//
// flatten_features makes the fixed-length vector (kFeatureLength numbers): kMaxLevels loop slots
// (absent loops are zeros with a presence flag 0), kMaxBuffers buffer slots per loop, then the
// global counts; magnitudes as log2(1 + x) (negative x: -log2(1 - x)), as AutoTVM does.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/Function.h"
#include "lower/analysis/CacheInfo.h"

namespace texc {

struct BufferTouch {
  std::string buffer;
  int elem_bytes = 4;
  double count = 0;     // distinct elements touched during one execution of the loop
  double accesses = 0;  // loads and stores of it during one execution of the loop
  double reuse = 0;     // accesses / count
  double stride = 0;    // index change per step of this loop's variable
};

struct LoopLevel {
  std::string var;      // the loop variable's name (for tests and debugging)
  double extent = 1;
  ForKind kind = ForKind::Serial;
  int depth = 0;        // 0 = outermost
  double topdown = 1;
  double bottomup = 1;
  double footprint_bytes = 0;
  std::vector<BufferTouch> buffers;  // the dominant store's buffers, first-appearance order
};

struct NestFeatures {
  std::vector<LoopLevel> levels;  // the loops around the dominant store, innermost first
  double float_add = 0, float_mul = 0, float_div = 0, float_other = 0, int_ops = 0;
  double loads = 0, stores = 0;   // dynamic counts over the whole function
  int num_loops = 0, parallel_loops = 0, vectorized_loops = 0, unrolled_loops = 0, bound_loops = 0;
  int num_stores = 0, num_allocs = 0;
  double alloc_bytes = 0;
};

constexpr int kMaxLevels = 8;
constexpr int kMaxBuffers = 4;
constexpr int kLevelLength = 14 + 4 * kMaxBuffers;
constexpr int kGlobalLength = 16;
constexpr int kFeatureLength = kMaxLevels * kLevelLength + kGlobalLength;
/// Changes whenever the meaning or order of the features changes: records carry it, and features
/// of another version are not used for transfer.
constexpr int kFeatureVersion = 1;

NestFeatures analyze_loop_nest(const LoweredFunc& func);
std::vector<float> flatten_features(const NestFeatures& nest, const CacheSizes& caches);
inline std::vector<float> extract_features(const LoweredFunc& func, const CacheSizes& caches) {
  return flatten_features(analyze_loop_nest(func), caches);
}

}  // namespace texc

// plan_storage: allocates every intermediate buffer where it is used, at the size it needs.
//
// Runs after lower_blocks, while buffers are still indexed per dimension in their stage's full
// coordinates. For each buffer that is not a function argument, finds the innermost loop that
// encloses every access (root if none), and the region the accesses touch during one iteration of
// that loop (loops inside it relaxed over their ranges, loops outside kept symbolic). The buffer
// becomes an Allocate of that region's extents wrapped around that loop's body (or the whole
// function), and every access is shifted by the region's min. An extent that is not constant is
// replaced by a constant upper bound; a region that cannot be bounded keeps the full shape. A
// region is never larger than the full shape. A buffer passed to an extern call (address_of, from
// tensorize) keeps its full extent in every dimension the call may touch beyond its element: all
// of them, or, for a `lower llvm` intrinsic whose operand lies in one block of the innermost
// dimensions (a 16-lane accumulator row Acc[n, fb, oy, ox, 0..16]), only those (BufferAccess.h),
// so the strides tensorize checked inside the block hold in the smaller buffer. Arguments are left
// alone.
// A `local` buffer (one per thread) allocated outside the threadIdx loops of its accesses is
// sized for one thread: with every access under one loop of each of the same thread tags, those
// loops are kept symbolic (not relaxed), and each access is shifted by the region's min with its
// own loop of each tag (a cache_write(C, local) attached at a block loop, whose loops are bound to
// threads: TMxTN accumulators per thread, not the block's whole tile).
// A buffer named in `aligns` (storage_align, lower/schedule/StorageAlign.cpp) has its last
// dimension padded to the smallest extent E' >= E with E' % factor == offset (E constant), so its
// rows (the stride of its second-to-last dimension) are E' elements apart; the accesses stay the
// same, the padding is never touched.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/IR.h"

namespace texc {

/// The rows of a buffer padded to a multiple of `factor` plus `offset` elements.
struct StorageAlign {
  int64_t factor = 1;
  int64_t offset = 0;
};
using StorageAligns = std::map<std::string, StorageAlign>;  // by buffer name

Stmt plan_storage(const Stmt& body, const std::vector<Buffer>& args, const StorageAligns& aligns = {});

}  // namespace texc

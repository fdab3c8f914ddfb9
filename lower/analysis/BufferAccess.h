// Which statements read and write which buffers, at which indices, under which loops: the one
// access analysis that bound inference (compute_at, auto-fusion), storage planning and
// vectorization share.
//
// Blocks (before lower_blocks) count as accesses of the stage they compute: the loads and stores
// inside a Block (predicate, init, body) are reported with the Block's iter vars replaced by their
// bindings, so the indices are expressions of the enclosing loops. After lower_blocks the plain
// Loads and Stores are reported as they are. An extern call's `address_of(B[...])` argument (left
// by tensorize) is reported as a store and a load that may touch more than its element: any
// element of B, or, where the call gives the element count of a `lower llvm` intrinsic's operand
// (`address_of(B[base]), n`: the n elements from base in row-major order) and that run lies inside
// one block of B's innermost dimensions, those dimensions whole at base's outer indices. Each
// access carries its enclosing loops (outermost first), whose thread tags and kinds say how a
// region must be relaxed (lower/analysis/Region.h).
#pragma once
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/IR.h"

namespace texc {

struct BufferAccess {
  Stmt stmt;                      // the Block, Store or extern-call Evaluate that accesses
  std::string stage;              // the Block's stage ("" outside Blocks)
  std::vector<Expr> indices;      // with a Block's iter vars replaced by their bindings
  std::vector<const For*> loops;  // enclosing loops, outermost first
  bool is_store = false;
  bool whole_buffer = false;      // an extern call argument: elements beyond `indices` may be touched
  // For an extern call argument: the dimensions from this one inward may be touched over their
  // whole extent; those before it only at `indices` (0: any element of the buffer).
  size_t whole_from_dim = 0;
};

/// Every load (and/or store) of `buffer` under root.
std::vector<BufferAccess> find_accesses(const Stmt& root, const BufferNode* buffer, bool loads, bool stores);

/// Every access of every buffer under root, except the buffers in `skip`.
struct AccessMap {
  std::unordered_map<const BufferNode*, std::vector<BufferAccess>> by_buffer;
  std::vector<Buffer> order;  // the buffers in the order of their first access
};
AccessMap collect_accesses(const Stmt& root, const std::unordered_set<const BufferNode*>& skip = {});

}  // namespace texc

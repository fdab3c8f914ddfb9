// inject_intrinsics — a step of the VDLA pipeline (backends/vdla/Codegen.cpp): VTA's
// InjectALUIntrin, the GEMM half of its tensorize lowering, and the recognition of the copies that
// its InjectDMAIntrin then fits. One leaf of the loop AST — a statement that is one kind of
// accelerator work, as classify_leaf judges by the stores under it — becomes pending stream entries
// (lowering/Stream.h) for one virtual thread. Loop AST -> stream: a leaf's loops are run with
// concrete values (the walk, lowering/WalkLoops.h, has set every loop outside the leaf in `env`),
// because the rows each iteration touches decide the instruction.
//
// Assumes: `leaf` is classified `info` (Load, Reset, Gemm or StoreOut); `places` knows every
// on-chip buffer and argument the leaf touches, for the context's thread.
// Guarantees, per kind, entries of the context's thread appended to `out` in program order:
//   - Load (copies into vdla.inp / vdla.wgt / vdla.acc from an argument, `select(c, X[...], 0)`
//     for padding): one pending LOAD of INP, WGT, ACC (i32) or ACC8 (i8) with each on-chip row's
//     DRAM row or padding, comment "load STAGE"; nothing if every point is guarded off;
//   - Reset (stores of 0 into vdla.acc): one GEMM reset nest over the rows it zeroes;
//   - Gemm (`tensorized(vdla.gemm)` nests, loops outside them): one GEMM nest, a micro-op instance
//     (acc, inp, wgt rows) per nest reached, guarded-off tail points skipped;
//   - StoreOut (an argument stored from a vdla.acc tile through `>>`, `<<`, `+`, `-`, `*`, `min`,
//     `max` with constants or a second vdla.acc tile, then an int8 cast): one ALU nest per
//     operation, innermost first, in place on the tile (an immediate, or the second tile as source,
//     lane by lane), then one pending STORE of the tile's rows through OUT.
// Whatever does not map (partial rows, gathers, a float, an operation the ALU lacks, a GEMM
// outside vdla.acc/inp/wgt) is a UserError (VdlaCannotMap) at the context's location, naming the
// stage. Leaves alone: the DMAs' shapes (inject_dma_copies), micro-op loops (fold_uop_loops),
// tokens.
#pragma once
#include <string>
#include <vector>

#include "backends/vdla/VdlaConfig.h"
#include "backends/vdla/lowering/Stream.h"
#include "ir/ConstEval.h"
#include "ir/IR.h"
#include "ir/SourceLoc.h"

namespace texc::vdla {

/// What a statement does on the accelerator, judged by the stores under it.
enum class LeafKind { Nothing, Load, Reset, Gemm, StoreOut, Mixed };

struct LeafInfo {
  LeafKind kind = LeafKind::Nothing;
  const BufferNode* target = nullptr;  // the buffer every store of a Load/Reset/StoreOut leaf writes
};

LeafInfo classify_leaf(const Stmt& s);

/// The engine of a leaf that is one engine's work (LOAD for copies, COMPUTE for resets and GEMMs),
/// else -1 (a store-out leaf is COMPUTE and STORE work).
int leaf_engine(const LeafInfo& info);

/// A loop of a `tensorize(L, vdla.gemm)` nest.
bool is_gemm_loop(const For* f);

/// The loops of a perfect nest from `s` down (not entering tensorized loops).
std::vector<const For*> perfect_loops(const Stmt& s);

/// Where the walk has put things, for the thread being injected.
class OnChipPlaces {
 public:
  virtual ~OnChipPlaces() = default;
  /// The element a scalar index of an on-chip buffer falls in (and its lane in the element).
  virtual int64_t sram_elem(const BufferNode* b, int64_t scalar, int64_t* lane = nullptr) const = 0;
  /// Argument `b`'s scalar `i`, counted in scalars from the start of DRAM (a UserError if `b` is no argument).
  virtual int64_t dram_scalar(const BufferNode* b, int64_t i) const = 0;
};

struct LeafContext {
  VarValues& env;  // the loops outside the leaf; the leaf's own loops are set while it is run
  const OnChipPlaces& places;
  const VdlaConfig& config;
  SourceLoc loc;
  const std::string& func_name;
  int thread;
};

void inject_intrinsics(const Stmt& leaf, const LeafInfo& info, const LeafContext& ctx, std::vector<StreamEntry>& out);

/// The diagnostic for a store that is none of the leaves above.
[[noreturn]] void unmappable_store(const Store* st, SourceLoc loc);

/// A reduction that accumulates into vdla.acc outside a tensorized vdla.gemm nest is a missing
/// tensorize: a UserError saying so (with `config`'s GEMM block), checked before any other
/// complaint about the tile.
void check_reductions_tensorized(const Stmt& body, const VdlaConfig& config, SourceLoc loc);

}  // namespace texc::vdla

// The VDLA lowering's working form: the instruction stream of one op while the passes of
// backends/vdla/Codegen.cpp ("the VDLA pipeline") fill it in. The walk of the loop nest appends one
// entry per piece of accelerator work, in program order, each owned by one virtual thread; an entry
// may still carry a decision for a later pass:
//   - `copy`: a copy not yet fitted to DMAs (the on-chip elements it fills or drains and the DRAM
//     element or padding of each); inject_dma_copies replaces the entry by its LOAD/STORE
//     instructions;
//   - `nest`: a GEMM or ALU instruction whose micro-ops are not yet placed (every micro-op instance
//     of its loop nest, in nest order, and the extents of the nest's loops); fold_uop_loops folds
//     the loops into the instruction's iterations and places the micro-ops in the table.
// An entry with neither is a finished instruction (tokens aside: insert_dependency_tokens).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backends/vdla/Isa.h"

namespace texc::vdla {

/// One on-chip element of a copy: the DRAM element it comes from or goes to, or padding; `lanes`
/// counts the scalars of the element the copy moves.
struct CopyElem {
  bool pad = false;
  int64_t dram = 0;
  int64_t lanes = 0;
};

/// A copy before inject_dma_copies: on-chip element -> DRAM element (or padding).
struct PendingCopy {
  std::map<int64_t, CopyElem> elems;
  bool allow_pad = true;
  std::string stage;      // the stage named when the copy is no 2-D pattern
  std::string not_a_2d;   // why, as the diagnostic says it
};

/// A GEMM/ALU before fold_uop_loops: each micro-op instance of its nest, in nest order, and the
/// extents of the nest's perfectly nested loops, outermost first.
struct PendingUopNest {
  std::vector<Uop> instances;
  std::vector<int64_t> extents;
};

struct StreamEntry {
  Insn insn;  // the opcode and every field decided so far
  int thread = 0;
  std::string comment;
  std::optional<PendingCopy> copy;
  std::optional<PendingUopNest> nest;
};

}  // namespace texc::vdla

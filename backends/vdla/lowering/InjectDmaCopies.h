// inject_dma_copies — a pass of the VDLA pipeline (backends/vdla/Codegen.cpp), VTA's
// InjectDMAIntrin. It runs on the instruction stream, not on the loop AST: what it decides is how
// many LOAD/STORE instructions a copy needs and their fields, which follows from the concrete
// on-chip and DRAM elements the copy's loops visit (known only once the walk has run them with
// concrete values), not from the loops' shape.
//
// Assumes: each entry with a `copy` has its opcode (LOAD or STORE) and buffer set; its elements
// are whole rows (the walk has checked lanes and alignment).
// Guarantees: each such entry is replaced, in place and in order, by the DMAs that move exactly its
// elements: one 2-D DMA (rows of x_size elements at a constant DRAM pitch, padding rows above and
// below and padding columns left and right, each within its field's width) when one fits, the
// widest rows first; else one per dense run of on-chip elements (a tail tile leaves gaps between the
// rows of its channel blocks), each with the entry's thread and comment. Padding is used only where
// the copy allows it (loads). A copy no set of 2-D DMAs moves is a UserError (VdlaCannotMap) at
// `loc`, naming the copy's stage.
// Leaves alone: every other entry, and field widths other than padding (checked at emission).
#pragma once
#include <optional>
#include <vector>

#include "backends/vdla/VdlaConfig.h"
#include "backends/vdla/lowering/Stream.h"
#include "ir/SourceLoc.h"

namespace texc::vdla {

void inject_dma_copies(std::vector<StreamEntry>& stream, const VdlaDerived& derived, SourceLoc loc);

/// The DMAs of one copy (buffer and opcode left default), or nullopt if no set of 2-D DMAs moves it.
std::optional<std::vector<MemFields>> fit_copies(const std::map<int64_t, CopyElem>& elems, bool allow_pad,
                                                 const VdlaDerived& derived);

}  // namespace texc::vdla

// fold_uop_loops — a pass of the VDLA pipeline (backends/vdla/Codegen.cpp), VTA's FoldUopLoop. It
// runs on the instruction stream: a GEMM or ALU instruction's two hardware loops and its micro-op
// range are decided from the concrete micro-op instances of its nest (the on-chip rows each
// iteration touches), which the walk has enumerated.
//
// Assumes: each entry with a `nest` is a GEMM or ALU instruction (reset flag, ALU op and immediate
// already set) with at least one instance.
// Guarantees: for each such entry, in stream order, the two outermost loops of the nest (or the
// outermost alone, or none) become iter_out/iter_in when every instance is the instance of the first
// iteration plus non-negative per-loop factors: then the micro-ops of one iteration are the kernel,
// and the factors go to acc_factor_* and inp_/wgt_factor_* (GEMM) or src_factor_* (ALU, from the
// micro-op's source row). Otherwise every instance is a micro-op, with one iteration. Each kernel is
// placed once in the micro-op table (an identical kernel is shared, first come first placed) and the
// instruction's uop_begin/uop_end point at it. When the table is not empty, one LOAD UOP of the whole
// table (from DRAM element `uop_dram_offset / uop_elem_bytes`, thread -1) is put first in the stream.
// Returns the table. Leaves alone: every other entry; the table's size against the UOP buffer (the
// caller decides what to do when it overflows).
#pragma once
#include <cstdint>
#include <vector>

#include "backends/vdla/VdlaConfig.h"
#include "backends/vdla/lowering/Stream.h"

namespace texc::vdla {

std::vector<Uop> fold_uop_loops(std::vector<StreamEntry>& stream, uint64_t uop_dram_offset, const VdlaDerived& derived);

}  // namespace texc::vdla

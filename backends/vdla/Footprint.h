// What one VDLA instruction reads and writes on chip: the rows of INP, WGT, ACC and UOP it touches
// (docs/vdla.md, "The instruction set"). Two users: the compiler's token placement (Tokens.h), which
// links two instructions of neighbouring engines only when their footprints conflict, and the
// simulator's hazard check, which reports two instructions in flight at once on different engines
// that touch the same row, one of them writing: a dependency token the stream is missing.
//
// Rows are elements of the buffer (an INP row of block_in int8, a WGT tile, an ACC row, a
// micro-op). LOAD writes its dense SRAM region (padding included); STORE reads the ACC rows under
// OUT; GEMM reads INP, WGT and its micro-ops and writes ACC (reset: writes ACC only, reads its
// micro-ops); ALU reads and writes its destination ACC rows and reads its source rows (unless it
// uses an immediate). A sync or FINISH touches nothing.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "backends/vdla/Isa.h"
#include "backends/vdla/VdlaConfig.h"

namespace texc::vdla {

enum class SramBuffer : uint8_t { Inp = 0, Wgt = 1, Acc = 2, Uop = 3 };
constexpr int kNumSramBuffers = 4;
const char* sram_buffer_name(SramBuffer b);  // "INP", "WGT", "ACC", "UOP"

/// Rows [lo, hi).
struct RowRange {
  uint64_t lo = 0, hi = 0;
  bool operator==(const RowRange&) const = default;
};

/// Sorted, disjoint, non-adjacent ranges.
using RowSet = std::vector<RowRange>;

struct Footprint {
  std::array<RowSet, kNumSramBuffers> reads, writes;
  bool empty() const;
};

/// The footprint of `insn`; `uop_at(i)` gives micro-op i of the UOP buffer as it will be when the
/// instruction runs.
Footprint footprint(const Insn& insn, const std::function<Uop(uint64_t)>& uop_at);

/// Whether one of the two writes a row the other reads or writes.
bool conflicts(const Footprint& a, const Footprint& b);

/// The first row two sets share, if any.
bool first_common_row(const RowSet& a, const RowSet& b, uint64_t* row);

}  // namespace texc::vdla

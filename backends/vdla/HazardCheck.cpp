#include "backends/vdla/HazardCheck.h"

namespace texc::vdla {

HazardTracker::HazardTracker(const VdlaDerived& d) {
  rows_[int(SramBuffer::Inp)].resize(size_t(d.inp_depth));
  rows_[int(SramBuffer::Wgt)].resize(size_t(d.wgt_depth));
  rows_[int(SramBuffer::Acc)].resize(size_t(d.acc_depth));
  rows_[int(SramBuffer::Uop)].resize(size_t(d.uop_depth));
}

std::optional<Hazard> HazardTracker::run(int64_t index, uint64_t start, uint64_t end, const Footprint& f) {
  // Check everything first, then record: an instruction does not race with itself.
  for (int b = 0; b < kNumSramBuffers; ++b) {
    std::vector<Row>& rows = rows_[b];
    auto in_range = [&](uint64_t r) { return r < rows.size(); };  // out-of-range rows are the datapath's error
    for (const RowRange& rr : f.reads[size_t(b)])
      for (uint64_t r = rr.lo; r < rr.hi && in_range(r); ++r)
        if (rows[r].write_end > start)
          return Hazard{SramBuffer(b), r, rows[r].writer, rows[r].write_end, "reads", "writes"};
    for (const RowRange& rr : f.writes[size_t(b)])
      for (uint64_t r = rr.lo; r < rr.hi && in_range(r); ++r) {
        if (rows[r].read_end > start)
          return Hazard{SramBuffer(b), r, rows[r].reader, rows[r].read_end, "overwrites", "reads"};
        if (rows[r].write_end > start)
          return Hazard{SramBuffer(b), r, rows[r].writer, rows[r].write_end, "writes", "writes"};
      }
  }
  for (int b = 0; b < kNumSramBuffers; ++b) {
    std::vector<Row>& rows = rows_[b];
    for (const RowRange& rr : f.reads[size_t(b)])
      for (uint64_t r = rr.lo; r < rr.hi && r < rows.size(); ++r)
        if (end >= rows[r].read_end) rows[r].read_end = end, rows[r].reader = index;
    for (const RowRange& rr : f.writes[size_t(b)])
      for (uint64_t r = rr.lo; r < rr.hi && r < rows.size(); ++r)
        if (end >= rows[r].write_end) rows[r].write_end = end, rows[r].writer = index;
  }
  return std::nullopt;
}

}  // namespace texc::vdla

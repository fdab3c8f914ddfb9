#include "backends/vdla/Footprint.h"

#include <algorithm>

namespace texc::vdla {

const char* sram_buffer_name(SramBuffer b) {
  switch (b) {
    case SramBuffer::Inp: return "INP";
    case SramBuffer::Wgt: return "WGT";
    case SramBuffer::Acc: return "ACC";
    case SramBuffer::Uop: return "UOP";
  }
  return "?";
}

bool Footprint::empty() const {
  for (int b = 0; b < kNumSramBuffers; ++b)
    if (!reads[size_t(b)].empty() || !writes[size_t(b)].empty()) return false;
  return true;
}

namespace {

// Collects rows (in any order, repeated) and normalises them into a RowSet. Its memory is bounded
// by the distinct ranges, not by the rows added: a GEMM of 2^14 x 2^14 iterations adds 2^28 rows,
// mostly the same few; the collection is normalised whenever it has doubled since the last time.
class RowCollector {
 public:
  void add(uint64_t lo, uint64_t hi) {
    if (hi <= lo) return;
    if (!ranges_.empty() && ranges_.back().lo <= lo && lo <= ranges_.back().hi) {  // extends the last
      ranges_.back().hi = std::max(ranges_.back().hi, hi);
      return;
    }
    ranges_.push_back({lo, hi});
    if (ranges_.size() >= compact_at_) {
      normalise();
      compact_at_ = std::max<size_t>(kFirstCompaction, 2 * ranges_.size());
    }
  }
  void add(uint64_t row) { add(row, row + 1); }
  RowSet take() {
    normalise();
    RowSet out;
    out.swap(ranges_);
    compact_at_ = kFirstCompaction;
    return out;
  }

 private:
  static constexpr size_t kFirstCompaction = 4096;

  void normalise() {
    std::sort(ranges_.begin(), ranges_.end(), [](const RowRange& a, const RowRange& b) { return a.lo < b.lo; });
    size_t n = 0;
    for (const RowRange& r : ranges_) {
      if (n > 0 && r.lo <= ranges_[n - 1].hi) ranges_[n - 1].hi = std::max(ranges_[n - 1].hi, r.hi);
      else ranges_[n++] = r;
    }
    ranges_.resize(n);
  }

  std::vector<RowRange> ranges_;
  size_t compact_at_ = kFirstCompaction;
};

SramBuffer sram_of(MemBuffer b) {
  switch (b) {
    case MemBuffer::Uop: return SramBuffer::Uop;
    case MemBuffer::Wgt: return SramBuffer::Wgt;
    case MemBuffer::Inp: return SramBuffer::Inp;
    case MemBuffer::Acc:
    case MemBuffer::Out:
    case MemBuffer::Acc8: return SramBuffer::Acc;
  }
  return SramBuffer::Acc;
}

RowSet& at(std::array<RowSet, kNumSramBuffers>& sets, SramBuffer b) { return sets[size_t(b)]; }

}  // namespace

Footprint footprint(const Insn& insn, const std::function<Uop(uint64_t)>& uop_at) {
  Footprint f;
  switch (insn.opcode) {
    case Opcode::Finish: return f;
    case Opcode::Load:
    case Opcode::Store: {
      const MemFields& m = insn.mem;
      if (m.x_size == 0 || m.y_size == 0) return f;  // a sync
      if (insn.opcode == Opcode::Store) {
        at(f.reads, SramBuffer::Acc) = {{m.sram_base, m.sram_base + m.y_size * m.x_size}};
      } else {
        uint64_t rows = (m.y_pad_before + m.y_size + m.y_pad_after) * (m.x_pad_before + m.x_size + m.x_pad_after);
        at(f.writes, sram_of(m.buffer)) = {{m.sram_base, m.sram_base + rows}};
      }
      return f;
    }
    case Opcode::Gemm:
    case Opcode::Alu: {
      const bool gemm = insn.opcode == Opcode::Gemm;
      const UopLoop& l = gemm ? insn.gemm.loop : insn.alu.loop;
      if (l.uop_end <= l.uop_begin) return f;
      at(f.reads, SramBuffer::Uop) = {{l.uop_begin, l.uop_end}};
      RowCollector acc, inp, wgt;
      for (uint64_t o = 0; o < l.iter_out; ++o)
        for (uint64_t i = 0; i < l.iter_in; ++i)
          for (uint64_t u = l.uop_begin; u < l.uop_end; ++u) {
            Uop uop = uop_at(u);
            acc.add(uop.acc + o * l.acc_factor_out + i * l.acc_factor_in);
            if (l.reset) continue;
            if (gemm) {
              inp.add(uop.inp + o * insn.gemm.inp_factor_out + i * insn.gemm.inp_factor_in);
              wgt.add(uop.wgt + o * insn.gemm.wgt_factor_out + i * insn.gemm.wgt_factor_in);
            } else if (!insn.alu.use_imm) {
              inp.add(uop.inp + o * insn.alu.src_factor_out + i * insn.alu.src_factor_in);  // a source ACC row
            }
          }
      RowSet written = acc.take();
      at(f.writes, SramBuffer::Acc) = written;
      if (gemm) {
        at(f.reads, SramBuffer::Inp) = inp.take();
        at(f.reads, SramBuffer::Wgt) = wgt.take();
        if (!l.reset) at(f.reads, SramBuffer::Acc) = written;  // accumulates
      } else {
        RowCollector read;
        if (!l.reset)
          for (const RowRange& r : written) read.add(r.lo, r.hi);
        for (const RowRange& r : inp.take()) read.add(r.lo, r.hi);
        at(f.reads, SramBuffer::Acc) = read.take();
      }
      return f;
    }
  }
  return f;
}

bool first_common_row(const RowSet& a, const RowSet& b, uint64_t* row) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    uint64_t lo = std::max(a[i].lo, b[j].lo), hi = std::min(a[i].hi, b[j].hi);
    if (lo < hi) {
      if (row) *row = lo;
      return true;
    }
    if (a[i].hi < b[j].hi) ++i;
    else ++j;
  }
  return false;
}

bool conflicts(const Footprint& a, const Footprint& b) {
  for (size_t k = 0; k < size_t(kNumSramBuffers); ++k) {
    if (first_common_row(a.writes[k], b.writes[k], nullptr) || first_common_row(a.writes[k], b.reads[k], nullptr) ||
        first_common_row(a.reads[k], b.writes[k], nullptr))
      return true;
  }
  return false;
}

}  // namespace texc::vdla

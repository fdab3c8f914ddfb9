#include "backends/vdla/lowering/InjectDmaCopies.h"

#include "ir/Diagnostics.h"

namespace texc::vdla {

namespace {

// The 2-D DMA that moves `elems` (SRAM element -> DRAM element or padding, a dense SRAM range),
// or nullopt if they are no such pattern.
std::optional<MemFields> fit_2d(const std::map<int64_t, CopyElem>& elems, bool allow_pad, const VdlaDerived& derived) {
  std::vector<const CopyElem*> p;
  int64_t first = elems.begin()->first;
  for (auto& [sram, e] : elems) {
    if (sram != first + int64_t(p.size())) return std::nullopt;  // not dense
    p.push_back(&e);
  }
  int64_t n = int64_t(p.size());
  std::vector<int64_t> widths;
  for (int64_t w = n; w >= 1; --w)
    if (n % w == 0) widths.push_back(w);
  for (int64_t w : widths) {
    int64_t rows = n / w;
    auto at = [&](int64_t r, int64_t c) { return p[size_t(r * w + c)]; };
    // Rows entirely padding at the top and bottom; the valid columns of the other rows.
    int64_t yb = 0, ya = 0, xb = -1, xa = -1;
    bool ok = true;
    std::vector<bool> all_pad(size_t(rows), true);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < w; ++c) all_pad[size_t(r)] = all_pad[size_t(r)] && at(r, c)->pad;
    while (yb < rows && all_pad[size_t(yb)]) ++yb;
    if (yb == rows) return std::nullopt;  // nothing but padding
    while (all_pad[size_t(rows - 1 - ya)]) ++ya;
    for (int64_t r = yb; r < rows - ya && ok; ++r) {
      int64_t b = 0, a = 0;
      while (b < w && at(r, b)->pad) ++b;
      while (a < w && at(r, w - 1 - a)->pad) ++a;
      if (b + a >= w) ok = false;
      for (int64_t c = b; c < w - a && ok; ++c) ok = !at(r, c)->pad;
      if (xb < 0) xb = b, xa = a;
      ok = ok && b == xb && a == xa;
    }
    if (!ok) continue;
    if (!allow_pad && (yb || ya || xb || xa)) continue;
    const int64_t max_pad = (int64_t(1) << VdlaDerived::field(derived.mem_fields, "x_pad_before").width) - 1;
    const int64_t max_ypad = (int64_t(1) << VdlaDerived::field(derived.mem_fields, "y_pad_before").width) - 1;
    if (xb > max_pad || xa > max_pad || yb > max_ypad || ya > max_ypad) continue;  // try narrower rows
    int64_t base = at(yb, xb)->dram;
    int64_t x_size = w - xb - xa, y_size = rows - yb - ya;
    int64_t stride = y_size > 1 ? at(yb + 1, xb)->dram - base : x_size;
    if (stride < 0 || base < 0) continue;
    for (int64_t r = 0; r < y_size && ok; ++r)
      for (int64_t c = 0; c < x_size && ok; ++c) ok = at(yb + r, xb + c)->dram == base + r * stride + c;
    if (!ok) continue;
    MemFields m;
    m.sram_base = uint64_t(first);
    m.dram_base = uint64_t(base);
    m.y_size = uint64_t(y_size);
    m.x_size = uint64_t(x_size);
    m.x_stride = uint64_t(stride);
    m.y_pad_before = uint64_t(yb);
    m.y_pad_after = uint64_t(ya);
    m.x_pad_before = uint64_t(xb);
    m.x_pad_after = uint64_t(xa);
    return m;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<MemFields>> fit_copies(const std::map<int64_t, CopyElem>& elems, bool allow_pad,
                                                 const VdlaDerived& derived) {
  if (auto m = fit_2d(elems, allow_pad, derived)) return std::vector<MemFields>{*m};
  std::vector<MemFields> out;
  std::map<int64_t, CopyElem> run;
  auto flush = [&]() {
    if (run.empty()) return true;
    auto m = fit_2d(run, allow_pad, derived);
    if (!m) return false;
    out.push_back(*m);
    run.clear();
    return true;
  };
  for (auto& [sram, e] : elems) {
    if (!run.empty() && sram != run.rbegin()->first + 1 && !flush()) return std::nullopt;
    run.emplace(sram, e);
  }
  if (!flush()) return std::nullopt;
  return out;
}

void inject_dma_copies(std::vector<StreamEntry>& stream, const VdlaDerived& derived, SourceLoc loc) {
  std::vector<StreamEntry> out;
  out.reserve(stream.size());
  for (StreamEntry& e : stream) {
    if (!e.copy) {
      out.push_back(std::move(e));
      continue;
    }
    auto copies = fit_copies(e.copy->elems, e.copy->allow_pad, derived);
    if (!copies) throw_error(DiagId::VdlaCannotMap, loc, e.copy->stage, e.copy->not_a_2d);
    for (MemFields m : *copies) {
      m.buffer = e.insn.mem.buffer;
      StreamEntry dma;
      dma.insn = e.insn.opcode == Opcode::Load ? Insn::load(m) : Insn::store(m);
      dma.thread = e.thread;
      dma.comment = e.comment;
      out.push_back(std::move(dma));
    }
  }
  stream = std::move(out);
}

}  // namespace texc::vdla

#include "backends/vdla/lowering/FoldUopLoops.h"

#include <algorithm>
#include <map>

#include "ir/Diagnostics.h"

namespace texc::vdla {

namespace {

// The micro-ops of one iteration and the two loops folded around them.
struct Folded {
  std::vector<Uop> uops;
  uint64_t iter_out = 1, iter_in = 1;
  Uop out, in;  // factors
};

// Folds the two outermost loops of a nest into (iter_out, iter_in) when every field of the
// instances is affine in them; `inst` is in nest order.
Folded fold(const std::vector<Uop>& inst, const std::vector<int64_t>& extents) {
  for (int levels = std::min<int>(2, int(extents.size())); levels > 0 && !inst.empty(); --levels) {
    int64_t e1 = extents[0], e2 = levels == 2 ? extents[1] : 1;
    if (e1 < 1 || e2 < 1 || int64_t(inst.size()) % (e1 * e2) != 0) continue;
    int64_t k = int64_t(inst.size()) / (e1 * e2);
    auto diff = [&](size_t a) {
      Uop d;
      d.acc = inst[a].acc - inst[0].acc;
      d.inp = inst[a].inp - inst[0].inp;
      d.wgt = inst[a].wgt - inst[0].wgt;
      return d;
    };
    auto nonneg = [&](size_t a) {
      return inst[a].acc >= inst[0].acc && inst[a].inp >= inst[0].inp && inst[a].wgt >= inst[0].wgt;
    };
    if ((e1 > 1 && !nonneg(size_t(e2 * k))) || (e2 > 1 && !nonneg(size_t(k)))) continue;
    Uop fo = e1 > 1 ? diff(size_t(e2 * k)) : Uop{}, fi = e2 > 1 ? diff(size_t(k)) : Uop{};
    bool ok = true;
    for (int64_t o = 0; o < e1 && ok; ++o)
      for (int64_t i = 0; i < e2 && ok; ++i)
        for (int64_t u = 0; u < k && ok; ++u) {
          const Uop& x = inst[size_t((o * e2 + i) * k + u)];
          ok = x.acc == inst[size_t(u)].acc + o * fo.acc + i * fi.acc &&
               x.inp == inst[size_t(u)].inp + o * fo.inp + i * fi.inp &&
               x.wgt == inst[size_t(u)].wgt + o * fo.wgt + i * fi.wgt;
        }
    if (!ok) continue;
    Folded f;
    f.uops.assign(inst.begin(), inst.begin() + k);
    f.iter_out = uint64_t(e1);
    f.iter_in = uint64_t(e2);
    f.out = fo;
    f.in = fi;
    return f;
  }
  Folded f;
  f.uops = inst;
  return f;
}

// The micro-op table, each kernel placed once.
class UopTable {
 public:
  uint64_t place(const std::vector<Uop>& uops) {
    std::vector<uint64_t> key;
    for (const Uop& u : uops) key.insert(key.end(), {u.acc, u.inp, u.wgt});
    auto it = kernels_.find(key);
    if (it != kernels_.end()) return it->second;
    uint64_t begin = uops_.size();
    uops_.insert(uops_.end(), uops.begin(), uops.end());
    kernels_.emplace(std::move(key), begin);
    return begin;
  }
  std::vector<Uop>& uops() { return uops_; }

 private:
  std::vector<Uop> uops_;
  std::map<std::vector<uint64_t>, uint64_t> kernels_;  // a kernel's (acc, inp, wgt)s -> its first micro-op
};

void set_loop(UopLoop& l, const Folded& f, UopTable& table) {
  l.uop_begin = table.place(f.uops);
  l.uop_end = l.uop_begin + f.uops.size();
  l.iter_out = f.iter_out;
  l.iter_in = f.iter_in;
  l.acc_factor_out = f.out.acc;
  l.acc_factor_in = f.in.acc;
}

}  // namespace

std::vector<Uop> fold_uop_loops(std::vector<StreamEntry>& stream, uint64_t uop_dram_offset, const VdlaDerived& derived) {
  UopTable table;
  for (StreamEntry& e : stream) {
    if (!e.nest) continue;
    Folded f = fold(e.nest->instances, e.nest->extents);
    if (e.insn.opcode == Opcode::Gemm) {
      GemmFields& g = e.insn.gemm;
      set_loop(g.loop, f, table);
      g.inp_factor_out = f.out.inp;
      g.inp_factor_in = f.in.inp;
      g.wgt_factor_out = f.out.wgt;
      g.wgt_factor_in = f.in.wgt;
    } else {
      TEXC_CHECK(e.insn.opcode == Opcode::Alu) << "a micro-op nest on a " << opcode_name(e.insn.opcode);
      AluFields& a = e.insn.alu;
      set_loop(a.loop, f, table);
      a.src_factor_out = f.out.inp;
      a.src_factor_in = f.in.inp;
    }
    e.nest.reset();
  }
  std::vector<Uop> uops = std::move(table.uops());
  if (!uops.empty()) {
    MemFields m;
    m.buffer = MemBuffer::Uop;
    m.dram_base = uop_dram_offset / uint64_t(derived.uop_elem_bytes);
    m.y_size = 1;
    m.x_size = m.x_stride = uops.size();
    StreamEntry load;
    load.insn = Insn::load(m);
    load.thread = -1;
    load.comment = "the micro-op kernels, once";
    stream.insert(stream.begin(), std::move(load));
  }
  return uops;
}

}  // namespace texc::vdla

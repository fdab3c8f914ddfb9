#include "backends/vdla/Datapath.h"

#include <fmt/format.h>

#include <algorithm>

#include "backends/vdla/CostModel.h"

namespace texc::vdla {

Datapath::Datapath(const VdlaConfig& cfg, const VdlaDerived& d)
    : d_(d), batch_(cfg.batch), block_in_(cfg.block_in), block_out_(cfg.block_out),
      inp_(size_t(d.inp_depth * d.inp_elem_bytes), 0), wgt_(size_t(d.wgt_depth * d.wgt_elem_bytes), 0),
      acc_(size_t(d.acc_depth * cfg.batch * cfg.block_out), 0), uop_(size_t(d.uop_depth), 0) {}

Uop Datapath::uop(uint64_t i) const { return i < uop_.size() ? decode_uop(uop_[i], d_) : Uop{}; }

int32_t alu_lane(AluOp op, int32_t dst, int32_t src) {
  switch (op) {
    case AluOp::Min: return std::min(dst, src);
    case AluOp::Max: return std::max(dst, src);
    case AluOp::Add: return int32_t(uint32_t(dst) + uint32_t(src));
    case AluOp::Mul: return int32_t(uint32_t(dst) * uint32_t(src));
    case AluOp::Shr:
      if (src >= 0) return src >= 32 ? (dst < 0 ? -1 : 0) : dst >> src;
      if (src <= -32) return 0;
      return int32_t(uint32_t(dst) << -src);
  }
  return dst;
}

std::optional<std::string> Datapath::execute(const Insn& insn, std::vector<uint8_t>& dram) {
  switch (insn.opcode) {
    case Opcode::Load: return insn.mem.x_size == 0 ? std::nullopt : load(insn.mem, dram);
    case Opcode::Store: return insn.mem.x_size == 0 ? std::nullopt : store(insn.mem, dram);
    case Opcode::Gemm: return gemm(insn.gemm);
    case Opcode::Alu: return alu(insn.alu);
    case Opcode::Finish: return std::nullopt;
  }
  return std::nullopt;
}

namespace {

// The DRAM bytes of a 2-D copy (first row to last row) must lie inside the image.
std::optional<std::string> check_dram(const MemFields& m, uint64_t elem, size_t dram_size) {
  // Rows may overlap (x_stride < x_size): a load then reads bytes twice, a store writes the later
  // row's values; both are well defined.
  uint64_t last_end = (m.dram_base + (m.y_size - 1) * m.x_stride + m.x_size) * elem;
  if (last_end > dram_size)
    return fmt::format("DRAM bytes {}..{} lie outside the {}-byte DRAM image", m.dram_base * elem, last_end, dram_size);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> Datapath::load(const MemFields& m, std::vector<uint8_t>& dram) {
  const char* name = buffer_name(m.buffer);
  int64_t depth = 0;
  switch (m.buffer) {
    case MemBuffer::Uop: depth = d_.uop_depth; break;
    case MemBuffer::Wgt: depth = d_.wgt_depth; break;
    case MemBuffer::Inp: depth = d_.inp_depth; break;
    case MemBuffer::Acc:
    case MemBuffer::Acc8: depth = d_.acc_depth; break;
    case MemBuffer::Out: return std::string("LOAD cannot write the OUT buffer (it is the low bytes of ACC; load ACC or ACC8)");
  }
  if (m.y_size == 0) return std::nullopt;
  const uint64_t row_len = m.x_pad_before + m.x_size + m.x_pad_after;
  const uint64_t rows = m.y_pad_before + m.y_size + m.y_pad_after;
  if (m.sram_base + rows * row_len > uint64_t(depth))
    return fmt::format("it writes {} elements {}..{} past the end of {} ({} elements)", name, m.sram_base, m.sram_base + rows * row_len,
                       name, depth);
  const uint64_t elem = dram_elem_bytes(m.buffer, d_);
  if (auto p = check_dram(m, elem, dram.size())) return p;

  // One SRAM element of this buffer, from DRAM bytes at `src`, or zero when src is null.
  auto put = [&](uint64_t sram_elem, const uint8_t* src) {
    switch (m.buffer) {
      case MemBuffer::Uop: {
        uint32_t w = 0;
        if (src)
          for (int b = 0; b < 4; ++b) w |= uint32_t(src[b]) << (8 * b);
        uop_[sram_elem] = w;
        break;
      }
      case MemBuffer::Wgt:
      case MemBuffer::Inp: {
        std::vector<int8_t>& buf = m.buffer == MemBuffer::Wgt ? wgt_ : inp_;
        int8_t* dst = buf.data() + sram_elem * elem;
        for (uint64_t b = 0; b < elem; ++b) dst[b] = src ? int8_t(src[b]) : 0;
        break;
      }
      case MemBuffer::Acc: {
        const uint64_t lanes = elem / 4;
        int32_t* dst = acc_.data() + sram_elem * lanes;
        for (uint64_t l = 0; l < lanes; ++l) {
          uint32_t w = 0;
          if (src)
            for (int b = 0; b < 4; ++b) w |= uint32_t(src[4 * l + b]) << (8 * b);
          dst[l] = int32_t(w);
        }
        break;
      }
      case MemBuffer::Acc8: {
        int32_t* dst = acc_.data() + sram_elem * elem;
        for (uint64_t l = 0; l < elem; ++l) dst[l] = src ? int32_t(int8_t(src[l])) : 0;
        break;
      }
      case MemBuffer::Out: break;
    }
  };
  for (uint64_t r = 0; r < rows; ++r) {
    bool pad_row = r < m.y_pad_before || r >= m.y_pad_before + m.y_size;
    for (uint64_t c = 0; c < row_len; ++c) {
      uint64_t sram_elem = m.sram_base + r * row_len + c;
      bool pad = pad_row || c < m.x_pad_before || c >= m.x_pad_before + m.x_size;
      const uint8_t* src = nullptr;
      if (!pad) src = dram.data() + (m.dram_base + (r - m.y_pad_before) * m.x_stride + (c - m.x_pad_before)) * elem;
      put(sram_elem, src);
    }
  }
  return std::nullopt;
}

std::optional<std::string> Datapath::store(const MemFields& m, std::vector<uint8_t>& dram) {
  if (m.buffer != MemBuffer::Out)
    return fmt::format("STORE reads the OUT buffer only, not {} (clip ACC with ALU MIN/MAX and store OUT)", buffer_name(m.buffer));
  if (m.y_pad_before || m.y_pad_after || m.x_pad_before || m.x_pad_after)
    return std::string("STORE has no padding: its pad fields must be 0");
  if (m.y_size == 0) return std::nullopt;
  if (m.sram_base + m.y_size * m.x_size > uint64_t(d_.acc_depth))
    return fmt::format("it reads OUT rows {}..{} past the end of OUT ({} rows)", m.sram_base, m.sram_base + m.y_size * m.x_size,
                       d_.acc_depth);
  const uint64_t elem = dram_elem_bytes(MemBuffer::Out, d_);
  if (auto p = check_dram(m, elem, dram.size())) return p;
  for (uint64_t r = 0; r < m.y_size; ++r)
    for (uint64_t c = 0; c < m.x_size; ++c) {
      const int32_t* src = acc_.data() + (m.sram_base + r * m.x_size + c) * elem;
      uint8_t* dst = dram.data() + (m.dram_base + r * m.x_stride + c) * elem;
      for (uint64_t l = 0; l < elem; ++l) dst[l] = uint8_t(uint32_t(src[l]) & 0xFF);
    }
  return std::nullopt;
}

std::optional<std::string> Datapath::gemm(const GemmFields& g) {
  const UopLoop& l = g.loop;
  if (l.uop_end < l.uop_begin) return fmt::format("uop_end {} is before uop_begin {}", l.uop_end, l.uop_begin);
  if (l.uop_end > uint64_t(d_.uop_depth)) return fmt::format("uop_end {} is past the UOP buffer ({} micro-ops)", l.uop_end, d_.uop_depth);
  const int64_t lanes = batch_ * block_out_;
  for (uint64_t o = 0; o < l.iter_out; ++o)
    for (uint64_t i = 0; i < l.iter_in; ++i)
      for (uint64_t u = l.uop_begin; u < l.uop_end; ++u) {
        Uop uop = decode_uop(uop_[u], d_);
        uint64_t a = uop.acc + o * l.acc_factor_out + i * l.acc_factor_in;
        uint64_t x = uop.inp + o * g.inp_factor_out + i * g.inp_factor_in;
        uint64_t w = uop.wgt + o * g.wgt_factor_out + i * g.wgt_factor_in;
        if (a >= uint64_t(d_.acc_depth))
          return fmt::format("micro-op {} at iteration ({}, {}) addresses ACC row {} (ACC has {} rows)", u, o, i, a, d_.acc_depth);
        int32_t* acc = acc_.data() + a * lanes;
        if (l.reset) {
          std::fill(acc, acc + lanes, 0);
          continue;
        }
        if (x >= uint64_t(d_.inp_depth))
          return fmt::format("micro-op {} at iteration ({}, {}) addresses INP row {} (INP has {} rows)", u, o, i, x, d_.inp_depth);
        if (w >= uint64_t(d_.wgt_depth))
          return fmt::format("micro-op {} at iteration ({}, {}) addresses WGT tile {} (WGT has {} tiles)", u, o, i, w, d_.wgt_depth);
        const int8_t* in = inp_.data() + x * batch_ * block_in_;
        const int8_t* wt = wgt_.data() + w * block_out_ * block_in_;
        for (int64_t b = 0; b < batch_; ++b)
          for (int64_t oc = 0; oc < block_out_; ++oc) {
            uint32_t sum = 0;  // int32 wrap-around
            for (int64_t k = 0; k < block_in_; ++k) sum += uint32_t(int32_t(in[b * block_in_ + k]) * int32_t(wt[oc * block_in_ + k]));
            int32_t& dst = acc[b * block_out_ + oc];
            dst = int32_t(uint32_t(dst) + sum);
          }
      }
  return std::nullopt;
}

std::optional<std::string> Datapath::alu(const AluFields& al) {
  const UopLoop& l = al.loop;
  if (l.uop_end < l.uop_begin) return fmt::format("uop_end {} is before uop_begin {}", l.uop_end, l.uop_begin);
  if (l.uop_end > uint64_t(d_.uop_depth)) return fmt::format("uop_end {} is past the UOP buffer ({} micro-ops)", l.uop_end, d_.uop_depth);
  const int64_t lanes = batch_ * block_out_;
  for (uint64_t o = 0; o < l.iter_out; ++o)
    for (uint64_t i = 0; i < l.iter_in; ++i)
      for (uint64_t u = l.uop_begin; u < l.uop_end; ++u) {
        Uop uop = decode_uop(uop_[u], d_);
        uint64_t dst = uop.acc + o * l.acc_factor_out + i * l.acc_factor_in;
        uint64_t src = uop.inp + o * al.src_factor_out + i * al.src_factor_in;
        if (dst >= uint64_t(d_.acc_depth))
          return fmt::format("micro-op {} at iteration ({}, {}) addresses ACC row {} (ACC has {} rows)", u, o, i, dst, d_.acc_depth);
        int32_t* out = acc_.data() + dst * lanes;
        if (l.reset) {
          std::fill(out, out + lanes, 0);
          continue;
        }
        if (!al.use_imm && src >= uint64_t(d_.acc_depth))
          return fmt::format("micro-op {} at iteration ({}, {}) reads ACC row {} (ACC has {} rows)", u, o, i, src, d_.acc_depth);
        const int32_t* in = al.use_imm ? nullptr : acc_.data() + src * lanes;
        for (int64_t k = 0; k < lanes; ++k) out[k] = alu_lane(al.op, out[k], in ? in[k] : int32_t(al.imm));
      }
  return std::nullopt;
}

}  // namespace texc::vdla

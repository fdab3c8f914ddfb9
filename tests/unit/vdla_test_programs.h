// Hand-written VDLA programs shared by the vdla unit tests.
#pragma once
#include "backends/vdla/Program.h"

namespace texc::vdla::test {

inline MemFields mem(MemBuffer b, uint64_t sram, uint64_t dram, uint64_t y, uint64_t x, uint64_t stride) {
  MemFields m;
  m.buffer = b;
  m.sram_base = sram;
  m.dram_base = dram;
  m.y_size = y;
  m.x_size = x;
  m.x_stride = stride;
  return m;
}

inline GemmFields gemm(uint64_t uop_begin, uint64_t uop_end, bool reset = false) {
  GemmFields g;
  g.loop.reset = reset;
  g.loop.uop_begin = uop_begin;
  g.loop.uop_end = uop_end;
  return g;
}

constexpr Tokens kNone{};
constexpr Tokens kPopPrev{true, false, false, false};
constexpr Tokens kPopNext{false, true, false, false};
constexpr Tokens kPushPrev{false, false, true, false};
constexpr Tokens kPushNext{false, false, false, true};
constexpr Tokens kPopPrevPushNext{true, false, false, true};
constexpr Tokens kPopPrevPushPrev{true, false, true, false};

// DRAM layout of the one-tile program (default configuration):
//   bytes 0..3      the micro-op table (one micro-op: acc 0, inp 0, wgt 0)
//   bytes 64..79    X: i8[16]        (INP element 4)
//   bytes 256..511  W: i8[16, 16]    (WGT element 1)
//   bytes 512..527  Y: i8[16]        (OUT element 32)
// Y[oc] = low 8 bits of sum_k X[k] * W[oc, k].
inline VdlaProgram one_tile_gemm_program() {
  VdlaProgram p;
  p.uops = {Uop{0, 0, 0}};
  p.uop_dram_offset = 0;
  p.dram_bytes = 528;
  p.args = {{"X", Int(8), {16}, 64, false}, {"W", Int(8), {16, 16}, 256, false}, {"Y", Int(8), {16}, 512, true}};
  p.insns = {
      Insn::load(mem(MemBuffer::Uop, 0, 0, 1, 1, 1)),                 // 0 COMPUTE
      Insn::load(mem(MemBuffer::Inp, 0, 4, 1, 1, 1)),                 // 1 LOAD
      Insn::load(mem(MemBuffer::Wgt, 0, 1, 1, 1, 1), kPushNext),      // 2 LOAD
      Insn::gemm_op(gemm(0, 1, true)),                                // 3 COMPUTE: ACC[0] = 0
      Insn::gemm_op(gemm(0, 1), kPopPrevPushNext),                    // 4 COMPUTE: ACC[0] += X . W^T
      Insn::store(mem(MemBuffer::Out, 0, 32, 1, 1, 1), kPopPrevPushPrev),  // 5 STORE
      Insn::sync(Engine::Compute, kPopNext),                          // 6 COMPUTE: wait for the store
      Insn::finish(),                                                 // 7
  };
  p.comments = {"uops", "for X", "for W", "Y.init", "for k", "for Y", "", ""};
  return p;
}

inline int8_t x_value(int k) { return int8_t(k * 9 - 70); }
inline int8_t w_value(int oc, int k) { return int8_t((oc * 37 + k * 11) % 256 - 128); }

}  // namespace texc::vdla::test

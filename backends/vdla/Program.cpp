#include "backends/vdla/Program.h"

#include <cstring>

#include "ir/Diagnostics.h"

namespace texc::vdla {

uint64_t TensorArg::bytes() const {
  uint64_t n = uint64_t(type.bytes());
  for (int64_t e : shape) n *= uint64_t(e);
  return n;
}

const std::string& VdlaProgram::comment(size_t i) const {
  static const std::string none;
  return i < comments.size() ? comments[i] : none;
}

std::vector<uint8_t> make_dram_image(const VdlaProgram& program) {
  VdlaDerived d = derive(program.config);
  std::vector<uint8_t> dram(program.dram_bytes, 0);
  TEXC_CHECK(program.uop_dram_offset + 4 * program.uops.size() <= dram.size())
      << "the micro-op table does not fit the program's DRAM image";
  for (size_t i = 0; i < program.uops.size(); ++i) {
    uint32_t w = encode_uop(program.uops[i], d);
    for (int b = 0; b < 4; ++b) dram[program.uop_dram_offset + 4 * i + b] = uint8_t(w >> (8 * b));
  }
  return dram;
}

}  // namespace texc::vdla

// VdlaProgram: everything a `.vdla` file holds — the configuration, the instruction stream, the
// micro-op table, the tensor arguments and their place in DRAM — in memory.
//
// DRAM is one byte-addressed image of `dram_bytes` bytes. Each tensor argument occupies
// [dram_offset, dram_offset + bytes) of it (row-major, its element type). The micro-op table is
// copied to `uop_dram_offset` before a run (make_dram_image), so `LOAD UOP` instructions read it
// from DRAM like any other buffer: their dram_base counts micro-ops from DRAM address 0.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "backends/vdla/Isa.h"
#include "backends/vdla/VdlaConfig.h"
#include "ir/Type.h"

namespace texc::vdla {

struct TensorArg {
  std::string name;
  Type type;                   // element type (i8, i32, ...)
  std::vector<int64_t> shape;  // row-major
  uint64_t dram_offset = 0;    // bytes
  bool is_output = false;
  bool operator==(const TensorArg&) const = default;
  /// Elements times element bytes.
  uint64_t bytes() const;
};

struct VdlaProgram {
  VdlaConfig config;
  std::vector<Insn> insns;
  std::vector<Uop> uops;
  uint64_t uop_dram_offset = 0;  // bytes; a multiple of 4
  std::vector<TensorArg> args;
  uint64_t dram_bytes = 0;  // size of the DRAM image the program addresses
  /// Optional, one per instruction or empty: what the compiler wants the listing to show (the
  /// source loop the instruction came from).
  std::vector<std::string> comments;
  bool operator==(const VdlaProgram&) const = default;

  const std::string& comment(size_t i) const;
};

/// A zeroed DRAM image of program.dram_bytes bytes with the micro-op table at uop_dram_offset.
std::vector<uint8_t> make_dram_image(const VdlaProgram& program);

}  // namespace texc::vdla

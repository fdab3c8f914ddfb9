// The `.vdla` file: a self-describing little-endian binary of a VdlaProgram (the layout is
// documented in docs/vdla-format.md). serialize_vdla / parse_vdla are exact inverses.
//
// parse_vdla rejects anything that is not a complete, intact file of this version — wrong magic,
// unknown version, truncation (naming what was being read and at which byte), an opcode or buffer
// that does not exist, an invalid configuration, a tensor outside the DRAM image, trailing bytes,
// a checksum mismatch — with UserError(VdlaFileError) "PATH: why". It never crashes or allocates
// more than the file's size suggests.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "backends/vdla/Program.h"

namespace texc::vdla {

constexpr uint32_t kVdlaFileVersion = 1;

std::vector<uint8_t> serialize_vdla(const VdlaProgram& program);
/// `path` only names the file in error messages.
VdlaProgram parse_vdla(const std::vector<uint8_t>& bytes, const std::string& path);

/// Writes the file; false if it cannot be written (the caller reports that: exit 2).
bool write_vdla_file(const std::string& path, const VdlaProgram& program);
/// Reads and parses; UserError(CannotOpenFile) if it cannot be read, VdlaFileError if invalid.
VdlaProgram read_vdla_file(const std::string& path);

}  // namespace texc::vdla

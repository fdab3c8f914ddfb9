// VdlaConfig: the parameters of one VDLA accelerator (docs/vdla.md, "The configuration"), and
// everything derived from them: element sizes, buffer depths, and the width and position of every
// instruction and micro-op field.
//
// The spec's defaults are VdlaConfig{}. load_vdla_config(path) reads a JSON object whose keys
// override any field (`--vdla-config FILE.json`); derive() checks a configuration and computes
// the derived widths. Nothing in backends/vdla/ hard-codes a width: the ISA encoder, the .vdla
// reader and the simulator all read them from VdlaDerived.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace texc::vdla {

/// The settable parameters, with the spec's defaults. Sizes in bytes; all must be powers of two.
struct VdlaConfig {
  int64_t batch = 1;        // rows of the GEMM operand per micro-op (out[batch x block_out])
  int64_t block_in = 16;    // reduction length of one GEMM micro-op
  int64_t block_out = 16;   // output lanes of one GEMM micro-op (and of one ALU lane group)
  int64_t inp_buffer_bytes = 32 * 1024;   // rows of batch x block_in int8
  int64_t wgt_buffer_bytes = 256 * 1024;  // tiles of block_out x block_in int8
  int64_t acc_buffer_bytes = 128 * 1024;  // rows of batch x block_out int32
  int64_t uop_buffer_bytes = 32 * 1024;   // 32-bit micro-ops
  int64_t dram_bytes_per_cycle = 8;       // the one shared DRAM port
  int64_t dram_latency_cycles = 32;       // per row request
  int64_t command_queue_depth = 512;      // instructions per engine
  int64_t token_queue_depth = 1024;       // tokens per dependency queue

  bool operator==(const VdlaConfig&) const = default;
};

/// One settable parameter: its JSON key and a pointer to the member.
struct VdlaConfigKey {
  const char* name;
  int64_t VdlaConfig::*member;
  bool power_of_two;  // must be a power of two (sizes from which depths and widths are derived)
  int64_t max;        // the largest value accepted (keeps a simulator's buffers allocatable)
};
/// Every key, in the order of VdlaConfig (also the order written to a .vdla file).
const std::vector<VdlaConfigKey>& vdla_config_keys();

/// Where one field lies in a 128-bit instruction or 32-bit micro-op.
struct BitField {
  const char* name;
  unsigned lo;     // bit position of the LSB (0..127)
  unsigned width;  // bits
};

/// Quantities computed from a VdlaConfig by derive().
struct VdlaDerived {
  // Bytes of one element of each buffer (one SRAM row / tile / micro-op).
  int64_t inp_elem_bytes, wgt_elem_bytes, acc_elem_bytes, out_elem_bytes, uop_elem_bytes;
  // Depths (elements) and their log2.
  int64_t inp_depth, wgt_depth, acc_depth, uop_depth;
  unsigned log_inp_depth, log_wgt_depth, log_acc_depth, log_uop_depth;
  // Instruction formats: every field except the 7-bit common header, in bit order.
  std::vector<BitField> mem_fields, gemm_fields, alu_fields, uop_fields;

  /// The field named `name` of a format (TEXC_CHECKed to exist).
  static const BitField& field(const std::vector<BitField>& format, const char* name);
};

/// Why a configuration is inconsistent: the keys to blame (most likely first) and the reason.
struct VdlaConfigProblem {
  std::vector<std::string> keys;
  std::string why;
};

/// Checks `cfg` and derives its widths. On an inconsistent configuration (a size that is not a
/// power of two, a buffer smaller than one element, a field that no longer fits its 64-bit word
/// of the instruction or the 32-bit micro-op) returns false and fills `problem`.
bool try_derive(const VdlaConfig& cfg, VdlaDerived& out, VdlaConfigProblem& problem);
/// try_derive for a configuration known to be valid (the defaults, a loaded file): TEXC_CHECKs.
VdlaDerived derive(const VdlaConfig& cfg);

/// Parses a JSON configuration (the text of SourceManager file `file`): an object whose keys
/// override the defaults. Throws UserError located at the offending key or value: a syntax error,
/// an unknown key, a value of the wrong type or range, or an inconsistent derived field.
VdlaConfig parse_vdla_config(const std::string& text, uint32_t file);
/// Reads and parses `path` (registering it with the SourceManager so errors quote its lines).
/// Throws UserError(CannotOpenFile) if it cannot be read.
VdlaConfig load_vdla_config(const std::string& path);

/// The configuration as a JSON object, one key per line (what load_vdla_config reads back).
std::string vdla_config_json(const VdlaConfig& cfg);

}  // namespace texc::vdla

// The VDLA instruction set (docs/vdla.md, "The instruction set"): 128-bit instructions
// (LOAD/STORE, GEMM, ALU, FINISH) and 32-bit micro-ops, as plain structs, with encode/decode to
// exactly the spec's bit layout. Field widths come from the configuration (VdlaDerived), never
// from constants here.
//
// encode_insn checks every field against its width and throws UserError(VdlaFieldOverflow)
// naming the instruction, the field, its value and its width; check_insn_fields returns the same
// problem without throwing, so the compiler can report it at its own source location.
// decode_insn is the exact inverse of encode_insn; it fails (returns false) only on an opcode,
// buffer or ALU op that does not exist.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "backends/vdla/VdlaConfig.h"

namespace texc::vdla {

enum class Opcode : uint8_t { Load = 0, Store = 1, Gemm = 2, Finish = 3, Alu = 4 };
enum class MemBuffer : uint8_t { Uop = 0, Wgt = 1, Inp = 2, Acc = 3, Out = 4, Acc8 = 5 };
enum class AluOp : uint8_t { Min = 0, Max = 1, Add = 2, Shr = 3, Mul = 4 };
/// The three in-order engines.
enum class Engine : uint8_t { Load = 0, Compute = 1, Store = 2 };
constexpr int kNumEngines = 3;
/// The four dependency-token queues.
enum class TokenQueue : uint8_t { LoadToCompute = 0, ComputeToLoad = 1, ComputeToStore = 2, StoreToCompute = 3 };
constexpr int kNumTokenQueues = 4;

const char* opcode_name(Opcode op);        // "LOAD", "STORE", "GEMM", "FINISH", "ALU"
const char* buffer_name(MemBuffer b);      // "UOP", "WGT", "INP", "ACC", "OUT", "ACC8"
const char* alu_op_name(AluOp op);         // "MIN", "MAX", "ADD", "SHR", "MUL"
const char* engine_name(Engine e);         // "LOAD", "COMPUTE", "STORE"
const char* token_queue_name(TokenQueue q);  // "LOAD->COMPUTE", ...

struct Insn;
/// A short name: "LOAD INP", "STORE OUT", "GEMM", "GEMM reset", "ALU SHR", "FINISH", "sync".
std::string insn_name(const Insn& insn);

/// The common header's dependency flags.
struct Tokens {
  bool pop_prev = false, pop_next = false, push_prev = false, push_next = false;
  bool operator==(const Tokens&) const = default;
};

/// LOAD / STORE: a 2-D copy of y_size rows of x_size elements between DRAM (row pitch x_stride)
/// and a dense SRAM region at sram_base, with zero padding on the SRAM side.
struct MemFields {
  MemBuffer buffer = MemBuffer::Inp;
  uint64_t sram_base = 0, dram_base = 0;  // in elements of `buffer`
  uint64_t y_size = 0, x_size = 0, x_stride = 0;
  uint64_t y_pad_before = 0, y_pad_after = 0, x_pad_before = 0, x_pad_after = 0;
  bool operator==(const MemFields&) const = default;
};

/// The loop part GEMM and ALU share: micro-ops [uop_begin, uop_end) under two loops.
struct UopLoop {
  bool reset = false;
  uint64_t uop_begin = 0, uop_end = 0, iter_out = 1, iter_in = 1;
  uint64_t acc_factor_out = 0, acc_factor_in = 0;
  bool operator==(const UopLoop&) const = default;
};

struct GemmFields {
  UopLoop loop;
  uint64_t inp_factor_out = 0, inp_factor_in = 0, wgt_factor_out = 0, wgt_factor_in = 0;
  bool operator==(const GemmFields&) const = default;
};

struct AluFields {
  UopLoop loop;
  uint64_t src_factor_out = 0, src_factor_in = 0;
  AluOp op = AluOp::Min;
  bool use_imm = false;
  int64_t imm = 0;  // signed 16-bit
  bool operator==(const AluFields&) const = default;
};

/// One instruction. Only the part matching `opcode` is meaningful; the others stay default.
struct Insn {
  Opcode opcode = Opcode::Finish;
  Tokens tokens;
  MemFields mem;    // Load, Store
  GemmFields gemm;  // Gemm
  AluFields alu;    // Alu
  bool operator==(const Insn&) const = default;

  static Insn load(const MemFields& m, Tokens t = {});
  static Insn store(const MemFields& m, Tokens t = {});
  static Insn gemm_op(const GemmFields& g, Tokens t = {});
  static Insn alu_op(const AluFields& a, Tokens t = {});
  static Insn finish(Tokens t = {});
  /// A sync: a LOAD/STORE with x_size 0 that only pops and pushes tokens, on engine `e`
  /// (LOAD: LOAD INP; COMPUTE: LOAD UOP; STORE: STORE OUT).
  static Insn sync(Engine e, Tokens t);

  /// The engine that executes it: INP/WGT loads on LOAD; UOP/ACC/ACC8 loads, GEMM, ALU and
  /// FINISH on COMPUTE; STORE on STORE.
  Engine engine() const;
  /// A LOAD/STORE with x_size 0.
  bool is_sync() const { return (opcode == Opcode::Load || opcode == Opcode::Store) && mem.x_size == 0; }
};

/// A micro-op: base indices for GEMM (acc, inp, wgt) or ALU (acc = destination, inp = source acc).
struct Uop {
  uint64_t acc = 0, inp = 0, wgt = 0;
  bool operator==(const Uop&) const = default;
};

/// 128 bits as two little-endian 64-bit words; bit 0 is the LSB of words[0].
struct InsnBits {
  std::array<uint64_t, 2> words{0, 0};
  bool operator==(const InsnBits&) const = default;
};

/// A field whose value does not fit its width.
struct FieldProblem {
  std::string insn;   // "LOAD", "GEMM", "micro-op", ...
  std::string field;  // "x_stride"
  int64_t value;
  unsigned width;
  std::string range;  // "0..65535"
};

/// The first field of `insn` that does not fit its width (in encode order), if any.
std::optional<FieldProblem> check_insn_fields(const Insn& insn, const VdlaDerived& d);
std::optional<FieldProblem> check_uop_fields(const Uop& uop, const VdlaDerived& d);

/// Encodes; throws UserError(VdlaFieldOverflow) if a field does not fit.
InsnBits encode_insn(const Insn& insn, const VdlaDerived& d);
uint32_t encode_uop(const Uop& uop, const VdlaDerived& d);

/// Decodes; false (with `why` set) on an opcode, buffer or ALU op that does not exist.
bool decode_insn(const InsnBits& bits, const VdlaDerived& d, Insn& out, std::string& why);
Uop decode_uop(uint32_t bits, const VdlaDerived& d);

}  // namespace texc::vdla

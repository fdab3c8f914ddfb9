// The VDLA simulator: runs a VdlaProgram on a DRAM image bit-exactly (Datapath.h) and counts
// cycles with the spec's model (CostModel.h).
//
// Timing model. Instructions are fetched in program order (free, 0 cycles) into three command
// queues of config.command_queue_depth entries; fetch stalls while the next instruction's queue is
// full. Each engine (LOAD, COMPUTE, STORE) takes its instructions in order: it takes the next one
// when it is free, waits until every token queue the instruction pops is non-empty, pops, runs
// for insn_cycles(), then pushes. An instruction starts at
//   max(engine free, instruction fetched, the popped tokens' push times, DRAM port free if a DMA)
// and a pushed token is available from the cycle its instruction finishes. DMAs hold the one
// DRAM port from start to finish (serialised, granted in order of start time). Token queues hold
// at most config.token_queue_depth tokens.
//
// It never hangs: when no engine can progress it stops and reports a deadlock (each stuck engine,
// its instruction and the empty queue it waits on; a full command queue stalling fetch). Other
// errors, each with the instruction index and engine: an invalid stream (no FINISH last, pops on
// FINISH, a LOAD-engine instruction with prev flags or a STORE-engine one with next flags), a
// token queue overflow, an out-of-range access, tokens left in a queue at the end (unbalanced,
// naming the instruction that pushed the first surplus token), work still running after
// FINISH completes (FINISH must wait, through tokens, for the last load and store), and, when the
// datapath runs, a data hazard: two instructions of different engines in flight at once on the
// same on-chip row, one of them writing (HazardCheck.h) — the stream lacks a token between them.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/vdla/Program.h"

namespace texc::vdla {

struct SimError {
  enum class Kind { None, InvalidStream, Deadlock, Unbalanced, TokenOverflow, OutOfRange, WorkAfterFinish, Hazard };
  Kind kind = Kind::None;
  int64_t insn_index = -1;           // the instruction at fault (-1: none)
  std::optional<Engine> engine;      // its engine
  std::optional<TokenQueue> queue;   // the token queue involved, if any
  uint64_t cycle = 0;                // when it was detected
  std::string message;               // complete, e.g. "deadlock at cycle 10: instruction 2 (COMPUTE engine, GEMM) waits ..."
};
const char* sim_error_kind_name(SimError::Kind k);  // "deadlock", "unbalanced token queue", ...

/// One span of one engine's timeline: an instruction (insn_index >= 0) or a wait before one.
struct TimelineEvent {
  Engine engine;
  int64_t insn_index;
  uint64_t start, duration;
  std::string name;  // "LOAD INP", "GEMM", "ALU SHR", "sync", or for waits "wait LOAD->COMPUTE" / "wait DRAM port"
  bool is_wait = false;
};

struct SimResult {
  SimError error;
  bool ok() const { return error.kind == SimError::Kind::None; }

  uint64_t total_cycles = 0;                 // when the last instruction (FINISH) completes
  std::array<uint64_t, kNumEngines> busy_cycles{};    // cycles each engine spent executing
  std::array<uint64_t, kNumEngines> insn_counts{};    // instructions each engine executed
  uint64_t gemm_cycles = 0;                  // micro-op iterations of non-reset GEMMs (MAC cycles)
  double gemm_utilization = 0;               // gemm_cycles / total_cycles
  uint64_t dram_busy_cycles = 0;             // cycles the DRAM port was held
  std::array<uint64_t, 6> dram_bytes{};      // DRAM bytes moved, indexed by MemBuffer (OUT: stored)
  uint64_t executed = 0;                     // instructions executed
  std::vector<TimelineEvent> timeline;       // when SimOptions::record_timeline
};

struct SimOptions {
  bool record_timeline = false;  // fill SimResult::timeline (for write_trace)
  /// false: tokens and timing only, no data is read or written (DRAM may be empty) — a quick
  /// deadlock/balance check of a stream, e.g. by the compiler before writing it.
  bool execute_datapath = true;
};

/// Runs `program` on `dram` (at least program.dram_bytes bytes, with the micro-op table in place:
/// see make_dram_image). Stops at the first error; the result still holds the counts so far.
SimResult simulate(const VdlaProgram& program, std::vector<uint8_t>& dram, const SimOptions& options = {});

/// The statistics as text: cycles, busy cycles and utilization per engine, GEMM utilization, DRAM
/// bytes per buffer; or the error.
std::string format_sim_report(const SimResult& result);

}  // namespace texc::vdla

#include "backends/vdla/Simulator.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>

#include "backends/vdla/CostModel.h"
#include "backends/vdla/Datapath.h"
#include "backends/vdla/Footprint.h"
#include "backends/vdla/HazardCheck.h"
#include "backends/vdla/ProgramLimits.h"

namespace texc::vdla {

const char* sim_error_kind_name(SimError::Kind k) {
  switch (k) {
    case SimError::Kind::None: return "none";
    case SimError::Kind::InvalidStream: return "invalid instruction stream";
    case SimError::Kind::Deadlock: return "deadlock";
    case SimError::Kind::Unbalanced: return "unbalanced token queue";
    case SimError::Kind::TokenOverflow: return "token queue overflow";
    case SimError::Kind::OutOfRange: return "invalid access";
    case SimError::Kind::WorkAfterFinish: return "work after FINISH";
    case SimError::Kind::Hazard: return "data hazard";
  }
  return "?";
}

namespace {

std::vector<TokenQueue> popped_queues(Engine e, const Tokens& t) {
  std::vector<TokenQueue> q;
  if (e == Engine::Load && t.pop_next) q.push_back(TokenQueue::ComputeToLoad);
  if (e == Engine::Compute && t.pop_prev) q.push_back(TokenQueue::LoadToCompute);
  if (e == Engine::Compute && t.pop_next) q.push_back(TokenQueue::StoreToCompute);
  if (e == Engine::Store && t.pop_prev) q.push_back(TokenQueue::ComputeToStore);
  return q;
}

std::vector<TokenQueue> pushed_queues(Engine e, const Tokens& t) {
  std::vector<TokenQueue> q;
  if (e == Engine::Load && t.push_next) q.push_back(TokenQueue::LoadToCompute);
  if (e == Engine::Compute && t.push_prev) q.push_back(TokenQueue::ComputeToLoad);
  if (e == Engine::Compute && t.push_next) q.push_back(TokenQueue::ComputeToStore);
  if (e == Engine::Store && t.push_prev) q.push_back(TokenQueue::StoreToCompute);
  return q;
}

struct EngineState {
  std::deque<size_t> pending;     // fetched, not yet taken
  std::optional<size_t> current;  // taken, waiting for its tokens (or the DRAM port)
  uint64_t taken_at = 0;
  uint64_t free_at = 0;
  uint64_t fetched = 0;              // instructions fetched into this engine's queue
  std::vector<uint64_t> take_times;  // when the k-th instruction of this engine was taken
};

struct Token {
  uint64_t time;
  size_t pusher;
};

class Simulation {
 public:
  Simulation(const VdlaProgram& p, std::vector<uint8_t>& dram, const SimOptions& o)
      : p_(p), dram_(dram), opt_(o), n_(p.insns.size()) {}

  SimResult run() {
    VdlaConfigProblem problem;
    if (!try_derive(p_.config, d_, problem)) {
      fail(SimError::Kind::InvalidStream, -1, 0,
           fmt::format("invalid configuration: '{}': {}", problem.keys.empty() ? "?" : problem.keys[0], problem.why));
      return std::move(r_);
    }
    if (!validate()) return std::move(r_);
    std::optional<Datapath> datapath;
    std::optional<HazardTracker> hazards;
    if (opt_.execute_datapath) datapath_ = &datapath.emplace(p_.config, d_), hazards_ = &hazards.emplace(d_);
    fetch_time_.assign(n_, 0);
    while (step()) {
    }
    if (r_.ok()) check_end();
    r_.total_cycles = finish_end_ ? finish_end_ : max_end_;
    r_.gemm_utilization = r_.total_cycles ? double(r_.gemm_cycles) / double(r_.total_cycles) : 0.0;
    return std::move(r_);
  }

 private:
  const VdlaProgram& p_;
  std::vector<uint8_t>& dram_;
  const SimOptions& opt_;
  size_t n_;
  VdlaDerived d_;
  Datapath* datapath_ = nullptr;
  HazardTracker* hazards_ = nullptr;
  SimResult r_;
  EngineState eng_[kNumEngines];
  std::deque<Token> tokens_[kNumTokenQueues];
  std::vector<uint64_t> fetch_time_;
  size_t next_fetch_ = 0;
  uint64_t last_fetch_time_ = 0;
  uint64_t port_free_ = 0;
  uint64_t finish_end_ = 0, max_end_ = 0;
  size_t last_insn_ = 0;  // the instruction that finished last

  std::string describe(size_t i) const {
    const Insn& insn = p_.insns[i];
    return fmt::format("instruction {} ({} engine, {})", i, engine_name(insn.engine()), insn_name(insn));
  }

  void fail(SimError::Kind kind, int64_t index, uint64_t cycle, std::string message, std::optional<TokenQueue> q = std::nullopt) {
    r_.error.kind = kind;
    r_.error.insn_index = index;
    if (index >= 0) r_.error.engine = p_.insns[size_t(index)].engine();
    r_.error.queue = q;
    r_.error.cycle = cycle;
    r_.error.message = std::move(message);
  }

  bool validate() {
    if (n_ == 0) {
      fail(SimError::Kind::InvalidStream, -1, 0, "the instruction stream is empty (it must end with FINISH)");
      return false;
    }
    if (auto why = check_program_limits(p_, d_)) {
      fail(SimError::Kind::InvalidStream, -1, 0, "the program exceeds a limit: " + *why);
      return false;
    }

    for (size_t i = 0; i < n_; ++i) {
      const Insn& insn = p_.insns[i];
      const Tokens& t = insn.tokens;
      Engine e = insn.engine();
      if (e == Engine::Load && (t.pop_prev || t.push_prev)) {
        fail(SimError::Kind::InvalidStream, int64_t(i), 0,
             describe(i) + " sets " + (t.pop_prev ? "pop_prev" : "push_prev") +
                 ", but the LOAD engine has no previous engine (it pops COMPUTE->LOAD with pop_next and pushes LOAD->COMPUTE with push_next)");
        return false;
      }
      if (e == Engine::Store && (t.pop_next || t.push_next)) {
        fail(SimError::Kind::InvalidStream, int64_t(i), 0,
             describe(i) + " sets " + (t.pop_next ? "pop_next" : "push_next") +
                 ", but the STORE engine has no next engine (it pops COMPUTE->STORE with pop_prev and pushes STORE->COMPUTE with push_prev)");
        return false;
      }
      if (insn.opcode == Opcode::Finish && i + 1 != n_) {
        fail(SimError::Kind::InvalidStream, int64_t(i), 0, fmt::format("{} is not the last of the {} instructions", describe(i), n_));
        return false;
      }
      if (insn.opcode == Opcode::Finish && (t.pop_prev || t.pop_next)) {
        fail(SimError::Kind::InvalidStream, int64_t(i), 0, describe(i) + " pops tokens; FINISH carries no pops (put them on a sync before it)");
        return false;
      }
    }
    if (p_.insns.back().opcode != Opcode::Finish) {
      fail(SimError::Kind::InvalidStream, int64_t(n_ - 1), 0, "the instruction stream does not end with FINISH (its last is " + describe(n_ - 1) + ")");
      return false;
    }
    return true;
  }

  void fetch() {
    const uint64_t depth = uint64_t(p_.config.command_queue_depth);
    while (next_fetch_ < n_) {
      EngineState& s = eng_[int(p_.insns[next_fetch_].engine())];
      uint64_t t = last_fetch_time_;
      if (s.fetched >= depth) {
        uint64_t freed_by = s.fetched - depth;  // the instruction whose taking freed the slot
        if (s.take_times.size() <= freed_by) return;  // the queue is full: fetch stalls
        t = std::max(t, s.take_times[freed_by]);
      }
      fetch_time_[next_fetch_] = t;
      last_fetch_time_ = t;
      s.pending.push_back(next_fetch_);
      ++s.fetched;
      ++next_fetch_;
    }
  }

  void take_all() {
    bool changed = true;
    while (changed) {
      changed = false;
      fetch();
      for (EngineState& s : eng_)
        if (!s.current && !s.pending.empty()) {
          size_t i = s.pending.front();
          s.pending.pop_front();
          s.current = i;
          s.taken_at = std::max(s.free_at, fetch_time_[i]);
          s.take_times.push_back(s.taken_at);
          changed = true;
        }
    }
  }

  void add_event(Engine e, int64_t index, uint64_t start, uint64_t end, std::string name, bool wait) {
    if (opt_.record_timeline && end > start) r_.timeline.push_back({e, index, start, end - start, std::move(name), wait});
  }

  // Runs the instruction that can start first; false when none can (done, deadlock or an error).
  bool step() {
    take_all();
    int best = -1;
    uint64_t best_start = 0;
    for (int e = 0; e < kNumEngines; ++e) {
      const EngineState& s = eng_[e];
      if (!s.current) continue;
      const Insn& insn = p_.insns[*s.current];
      uint64_t start = s.taken_at;
      bool blocked = false;
      for (TokenQueue q : popped_queues(Engine(e), insn.tokens)) {
        if (tokens_[int(q)].empty()) blocked = true;
        else start = std::max(start, tokens_[int(q)].front().time);
      }
      if (blocked) continue;
      if (uses_dram_port(insn)) start = std::max(start, port_free_);
      if (best < 0 || start < best_start || (start == best_start && *s.current < *eng_[best].current)) {
        best = e;
        best_start = start;
      }
    }
    if (best < 0) {
      bool done = next_fetch_ == n_;
      for (const EngineState& s : eng_) done = done && !s.current && s.pending.empty();
      if (!done) report_deadlock();
      return false;
    }
    return execute(Engine(best), best_start);
  }

  bool execute(Engine e, uint64_t start) {
    EngineState& s = eng_[int(e)];
    const size_t i = *s.current;
    const Insn& insn = p_.insns[i];
    // Pop, remembering which constraint held the instruction back (for the timeline).
    uint64_t token_ready = s.taken_at;
    TokenQueue last_queue = TokenQueue::LoadToCompute;
    for (TokenQueue q : popped_queues(e, insn.tokens)) {
      uint64_t t = tokens_[int(q)].front().time;
      if (t > token_ready) token_ready = t, last_queue = q;
      tokens_[int(q)].pop_front();
    }
    if (token_ready > s.taken_at) add_event(e, int64_t(i), s.taken_at, token_ready, std::string("wait ") + token_queue_name(last_queue), true);
    add_event(e, int64_t(i), std::max(token_ready, s.taken_at), start, "wait DRAM port", true);

    const uint64_t cost = insn_cycles(insn, p_.config, d_);
    const uint64_t end = start + cost;
    if (auto problem = opt_.execute_datapath ? datapath_->execute(insn, dram_) : std::nullopt) {
      fail(SimError::Kind::OutOfRange, int64_t(i), start, fmt::format("{} at cycle {}: {}", describe(i), start, *problem));
      return false;
    }
    if (hazards_) {
      Footprint f = footprint(insn, [&](uint64_t u) { return datapath_->uop(u); });
      if (auto h = hazards_->run(int64_t(i), start, end, f)) {
        fail(SimError::Kind::Hazard, int64_t(i), start,
             fmt::format("data hazard at cycle {}: {} {} {} row {} while {} still {} it (until cycle {}); the stream lacks a "
                         "dependency token between them",
                         start, describe(i), h->action, sram_buffer_name(h->buffer), h->row, describe(size_t(h->other)),
                         h->other_action, h->other_end));
        return false;
      }
    }
    add_event(e, int64_t(i), start, end, insn_name(insn), false);
    if (uses_dram_port(insn)) {
      port_free_ = end;
      r_.dram_busy_cycles += cost;
      r_.dram_bytes[int(insn.mem.buffer)] += dma_bytes(insn, d_);
    }
    if (insn.opcode == Opcode::Gemm && !insn.gemm.loop.reset) r_.gemm_cycles += uop_iterations(insn.gemm.loop);
    r_.busy_cycles[int(e)] += cost;
    ++r_.insn_counts[int(e)];
    ++r_.executed;
    for (TokenQueue q : pushed_queues(e, insn.tokens)) {
      if (tokens_[int(q)].size() >= uint64_t(p_.config.token_queue_depth)) {
        fail(SimError::Kind::TokenOverflow, int64_t(i), end,
             fmt::format("{} at cycle {} pushes onto {}, which already holds {} tokens (token_queue_depth); its consumer must pop "
                         "them first",
                         describe(i), end, token_queue_name(q), tokens_[int(q)].size()),
             q);
        return false;
      }
      tokens_[int(q)].push_back({end, i});
    }
    s.free_at = end;
    s.current.reset();
    if (insn.opcode == Opcode::Finish) finish_end_ = end;
    if (end >= max_end_) max_end_ = end, last_insn_ = i;
    return true;
  }

  void report_deadlock() {
    uint64_t now = 0;
    for (const EngineState& s : eng_) now = std::max({now, s.free_at, s.taken_at});
    std::string parts;
    int64_t first = -1;
    std::optional<TokenQueue> first_queue;
    for (int e = 0; e < kNumEngines; ++e) {
      const EngineState& s = eng_[e];
      if (!s.current) continue;
      const Insn& insn = p_.insns[*s.current];
      for (TokenQueue q : popped_queues(Engine(e), insn.tokens)) {
        if (!tokens_[int(q)].empty()) continue;
        parts += fmt::format("; {} waits for a token on {}, which is empty", describe(*s.current), token_queue_name(q));
        if (first < 0 || int64_t(*s.current) < first) first = int64_t(*s.current), first_queue = q;
        break;
      }
    }
    if (next_fetch_ < n_) {
      Engine full = p_.insns[next_fetch_].engine();
      parts += fmt::format("; fetch is stalled at instruction {}: the {} command queue is full ({} instructions)", next_fetch_,
                           engine_name(full), p_.config.command_queue_depth);
    }
    fail(SimError::Kind::Deadlock, first, now,
         fmt::format("deadlock at cycle {}: no engine can progress ({} of {} instructions executed){}", now, r_.executed, n_, parts),
         first_queue);
  }

  void check_end() {
    for (int q = 0; q < kNumTokenQueues; ++q) {
      if (tokens_[q].empty()) continue;
      size_t pusher = tokens_[q].front().pusher;
      fail(SimError::Kind::Unbalanced, int64_t(pusher), max_end_,
           fmt::format("unbalanced token queue {}: {} token(s) are left at the end, never popped; the first was pushed by {}",
                       token_queue_name(TokenQueue(q)), tokens_[q].size(), describe(pusher)),
           TokenQueue(q));
      return;
    }
    if (max_end_ > finish_end_) {
      fail(SimError::Kind::WorkAfterFinish, int64_t(last_insn_), max_end_,
           fmt::format("{} finishes at cycle {}, after FINISH completed at cycle {}: the host would see the program done before "
                       "it; make FINISH wait for it (pop a token it pushes, on a sync before FINISH)",
                       describe(last_insn_), max_end_, finish_end_));
    }
  }
};

}  // namespace

SimResult simulate(const VdlaProgram& program, std::vector<uint8_t>& dram, const SimOptions& options) {
  return Simulation(program, dram, options).run();
}

std::string format_sim_report(const SimResult& r) {
  std::string out;
  if (!r.ok()) {
    const char* kind = sim_error_kind_name(r.error.kind);
    bool says_kind = r.error.message.rfind(kind, 0) == 0;  // "deadlock at cycle ...", "unbalanced token queue ..."
    out += says_kind ? fmt::format("error: {}\n", r.error.message) : fmt::format("error: {}: {}\n", kind, r.error.message);
  }
  out += fmt::format("cycles: {}\n", r.total_cycles);
  for (int e = 0; e < kNumEngines; ++e)
    out += fmt::format("  {:<8} busy {:>12} cycles ({:5.1f}%), {} instructions\n", engine_name(Engine(e)), r.busy_cycles[e],
                       r.total_cycles ? 100.0 * double(r.busy_cycles[e]) / double(r.total_cycles) : 0.0, r.insn_counts[e]);
  out += fmt::format("GEMM utilization: {:.1f}% ({} MAC cycles of {})\n", 100.0 * r.gemm_utilization, r.gemm_cycles, r.total_cycles);
  out += fmt::format("DRAM port busy: {} cycles\n", r.dram_busy_cycles);
  out += "DRAM bytes:";
  for (int b = 0; b < 6; ++b) out += fmt::format(" {}={}", buffer_name(MemBuffer(b)), r.dram_bytes[b]);
  return out + "\n";
}

}  // namespace texc::vdla

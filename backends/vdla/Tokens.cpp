#include "backends/vdla/Tokens.h"

#include <array>
#include <map>

#include "ir/Diagnostics.h"

namespace texc::vdla {

namespace {

// Sets the flags meaning "`from` pushes toward `to`" on the pusher and "pops from `from`" on the
// popper. LOAD is before COMPUTE before STORE: a push toward a later engine is push_next.
void link(Insn& pusher, Engine from, Insn& popper, Engine to) {
  bool forward = int(from) < int(to);
  if (forward) {
    TEXC_CHECK(!pusher.tokens.push_next && !popper.tokens.pop_prev) << "a token placed twice";
    pusher.tokens.push_next = true;
    popper.tokens.pop_prev = true;
  } else {
    TEXC_CHECK(!pusher.tokens.push_prev && !popper.tokens.pop_next) << "a token placed twice";
    pusher.tokens.push_prev = true;
    popper.tokens.pop_next = true;
  }
}

std::vector<Engine> neighbours(Engine e) {
  switch (e) {
    case Engine::Load: return {Engine::Compute};
    case Engine::Compute: return {Engine::Load, Engine::Store};
    case Engine::Store: return {Engine::Compute};
  }
  return {};
}

bool must_order(const ThreadedInsn& a, const ThreadedInsn& b) {
  if (!a.footprint || !b.footprint) return true;
  return conflicts(*a.footprint, *b.footprint);
}

// The instructions so far, per engine, and per (engine, neighbour) the latest neighbour
// instruction the engine has waited for.
struct StreamState {
  std::array<std::vector<long>, kNumEngines> by_engine;
  std::array<std::array<long, kNumEngines>, kNumEngines> covered;
  StreamState() {
    for (auto& row : covered) row.fill(-1);
  }
};

}  // namespace

void place_tokens(std::vector<ThreadedInsn>& stream) {
  // One state for the whole interleaved stream, not one per thread: a queue is shared by the
  // threads, and its pops take the pushes in stream order, so the linked pairs of a queue must
  // increase together in both engines' orders. Per thread they did, but across threads they could
  // cross (a thread with no work in a ragged last tile left a push that another thread's pop
  // took). Footprints keep the threads independent: their on-chip copies never conflict.
  StreamState st;
  std::map<int, bool> threads;
  // Links instruction i to the neighbour instructions it must wait for; whether it got any.
  auto plan = [&](size_t i) {
    ThreadedInsn& ti = stream[i];
    if (ti.thread < 0) return false;
    threads[ti.thread] = true;
    Engine e = ti.insn.engine();
    bool waits = false;
    for (Engine f : neighbours(e)) {
      long& covered = st.covered[int(e)][int(f)];
      const std::vector<long>& theirs = st.by_engine[int(f)];
      for (auto it = theirs.rbegin(); it != theirs.rend() && *it > covered; ++it) {
        if (!must_order(stream[size_t(*it)], ti)) continue;
        link(stream[size_t(*it)].insn, f, ti.insn, e);
        covered = *it;
        waits = true;
        break;
      }
    }
    st.by_engine[int(e)].push_back(long(i));
    return waits;
  };
  for (size_t i = 0; i < stream.size(); ++i) {
    TEXC_CHECK(stream[i].insn.tokens == Tokens{}) << "instruction " << i << " already carries tokens";
    plan(i);
  }
  // What each thread still owes COMPUTE: one sync per thread that pops it, then FINISH.
  std::vector<int> ids;
  for (auto& [thread, seen] : threads) ids.push_back(thread);
  for (int thread : ids) {
    stream.push_back({Insn::sync(Engine::Compute, {}), thread, "wait for thread " + std::to_string(thread), std::nullopt});
    if (!plan(stream.size() - 1)) stream.pop_back();
  }
  stream.push_back({Insn::finish(), -1, "", std::nullopt});
}

}  // namespace texc::vdla

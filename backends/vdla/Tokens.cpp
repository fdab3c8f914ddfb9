#include "backends/vdla/Tokens.h"

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

}  // namespace

void place_tokens(std::vector<ThreadedInsn>& stream) {
  // Per thread, the index of its last instruction on each engine (-1: none yet).
  std::map<int, std::array<long, kNumEngines>> last;
  auto last_of = [&](int thread) -> std::array<long, kNumEngines>& {
    auto it = last.find(thread);
    if (it == last.end()) it = last.emplace(thread, std::array<long, kNumEngines>{-1, -1, -1}).first;
    return it->second;
  };
  auto plan = [&](size_t i) {
    ThreadedInsn& ti = stream[i];
    if (ti.thread < 0) return;
    Engine e = ti.insn.engine();
    auto& mine = last_of(ti.thread);
    for (Engine f : neighbours(e)) {
      long j = mine[int(f)];
      if (j >= 0 && j > mine[int(e)]) link(stream[size_t(j)].insn, f, ti.insn, e);
    }
    mine[int(e)] = long(i);
  };
  for (size_t i = 0; i < stream.size(); ++i) {
    TEXC_CHECK(stream[i].insn.tokens == Tokens{}) << "instruction " << i << " already carries tokens";
    plan(i);
  }
  // What each thread still owes COMPUTE: one sync per thread that pops it, then FINISH.
  std::vector<int> threads;
  for (auto& [thread, engines] : last) threads.push_back(thread);
  for (int thread : threads) {
    auto& mine = last_of(thread);
    bool owes = (mine[int(Engine::Load)] > mine[int(Engine::Compute)]) ||
                (mine[int(Engine::Store)] > mine[int(Engine::Compute)]);
    if (!owes) continue;
    stream.push_back({Insn::sync(Engine::Compute, {}), thread, "wait for thread " + std::to_string(thread)});
    plan(stream.size() - 1);
  }
  stream.push_back({Insn::finish(), -1, ""});
}

}  // namespace texc::vdla

// The simulator's check that the dependency tokens of a stream are enough: no two instructions of
// different engines are in flight at once on the same on-chip row with one of them writing.
//
// Instructions are presented in order of their start cycle (the simulator runs them so); each with
// its [start, end) and its Footprint. Per row of INP, WGT, ACC and UOP the tracker keeps when the
// latest read and the latest write end and which instruction did them. An instruction that reads
// a row whose write ends after it starts (RAW), or writes a row whose read or write ends after it
// starts (WAR, WAW), races with that instruction: its engine did not wait for a token the other
// pushes. Instructions of one engine never overlap, so the conflict is always across engines.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/vdla/Footprint.h"

namespace texc::vdla {

struct Hazard {
  SramBuffer buffer;
  uint64_t row = 0;
  int64_t other = -1;      // the instruction still in flight on that row
  uint64_t other_end = 0;  // when it ends
  const char* action = "";        // what this instruction does to the row: "reads", "overwrites", "writes"
  const char* other_action = "";  // what the other is still doing: "writes", "reads"
};

class HazardTracker {
 public:
  explicit HazardTracker(const VdlaDerived& d);

  /// Records instruction `index` running over [start, end) with footprint `f`; the first hazard
  /// with an earlier instruction, if any.
  std::optional<Hazard> run(int64_t index, uint64_t start, uint64_t end, const Footprint& f);

 private:
  struct Row {
    uint64_t read_end = 0, write_end = 0;
    int64_t reader = -1, writer = -1;
  };
  std::vector<Row> rows_[kNumSramBuffers];
};

}  // namespace texc::vdla

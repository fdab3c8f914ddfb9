// What the last run of an op compiled for vdla as a graph of VDLA and host kernels
// (tools/driver/VdlaGraph.h) measured, kernel by kernel: a VDLA kernel's simulated cycles (and the
// simulator's wall time on this host, which is no figure of the hardware) and the bytes copied
// between host memory and VDLA DRAM around it; a host kernel's time on the host CPU. `texc run
// --target vdla` reports the VDLA cycles and the host time apart (targets/VdlaTarget.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "backends/vdla/Simulator.h"

namespace texc {

struct VdlaGraphKernelRun {
  std::string name;                 // <op>_k<N>
  bool on_vdla = false;
  vdla::SimResult sim;              // a VDLA kernel: the simulator's result
  double simulator_ms = 0;          // a VDLA kernel: the simulator's wall time on this host
  double host_ms = 0;               // a host kernel: the median of its timed calls (else its one call)
  bool host_timed = false;          // host_ms is the median of timed calls, not one call's wall time
  int64_t bytes_to_vdla = 0;        // a VDLA kernel: its inputs copied host memory -> VDLA DRAM
  int64_t bytes_from_vdla = 0;      // ... its outputs copied VDLA DRAM -> host memory
};

struct VdlaGraphStats {
  bool ran = false;
  std::string host;                 // the host CPU target ("x86")
  std::vector<VdlaGraphKernelRun> kernels;  // of the last run, in the graph's order
};

}  // namespace texc

// An op compiled for --target vdla as a graph of kernels (docs/graph.md, "VDLA: accelerator and
// host"), heterogeneous as TVM runs VTA: the groups VDLA can run (lower/graph/VdlaGroups.h: a call
// of an int8 conv or dense with its `schedule vdla`, its requantization included) are VDLA kernels,
// each its own VDLA program; every other group is a host kernel, lowered for the host CPU target
// (host_target(): x86 on this machine) with its `schedule cpu`. The prepare function of an op with
// const inputs and the host entry are host functions too. A host function of such a graph has
// LoweredFunc::target set to the host target; a VDLA kernel has it empty (the module's target).
//
// The copies are explicit: before a VDLA kernel runs, each tensor it reads is copied from host
// memory into the accelerator's DRAM; after it, each tensor it writes is copied back (VDLA's DRAM is
// its own, one image per kernel: a tensor passed between two VDLA kernels goes through host
// memory). `--emit graph` lists them per kernel; `texc run` counts their bytes.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "lower/graph/GraphOps.h"
#include "tools/driver/CompileOptions.h"

namespace texc {

/// The graph of `op` on vdla (graph_of, LowerForTarget.h): nullopt unless the partition has at
/// least two groups and at least one runs on VDLA (an op with none stays one VDLA kernel, and its
/// diagnostics say what cannot run there).
std::optional<GraphOps> vdla_graph_of(const OpDef& op, const CompileOptions& opts);
/// The partition vdla_graph_of splits (its remarks say where a stage was not fused into a VDLA kernel).
GraphPartition vdla_partition(const OpDef& op, const CompileOptions& opts);

/// The options a function of a graph on `opts.target` lowers with: opts, except on vdla for a host
/// function (`on_vdla` false): the host CPU target, with the rest of opts.
CompileOptions function_options(const CompileOptions& opts, bool on_vdla);

/// The lines of `--emit graph` that say where a kernel of a graph on vdla runs and what is copied
/// (each indented by four spaces, ending in a newline).
std::string vdla_placement_text(const GraphKernel& kernel, const std::string& host);

}  // namespace texc

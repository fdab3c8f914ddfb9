// VdlaIntrinsics: the built-in intrinsics of the vdla target, defined by its configuration — the
// intrinsic the target's entry in ir/Target.cpp names (`vdla.gemm`) with the pattern of one GEMM
// micro-op of that accelerator (docs/vdla.md, "The machine"). The driver's vdla entry
// (tools/driver/targets/VdlaTarget.cpp) hands them to the lowering with --vdla-config's
// configuration (LowerOptions::builtin_intrinsics), so `tensorize(L, vdla.gemm)` matches the
// micro-op of the accelerator being compiled for.
#pragma once
#include <vector>

#include "backends/vdla/VdlaConfig.h"
#include "ir/Op.h"

namespace texc::vdla {

/// vdla.gemm for `config`: with batch 1 (the default),
///   acc[j] += i32(inp[k]) * i32(wgt[j, k])  for j < block_out, k < block_in
/// (out[1 x block_out] += in[1 x block_in] . wgt^T[block_out x block_in]); with batch B > 1 the
/// input and the accumulator gain a leading row axis of B: acc[b, j] += i32(inp[b, k]) * i32(wgt[j, k]).
/// Its lowering kind is "vdla.gemm": the nest stays, tensorized, for the VDLA generator.
IntrinsicDef gemm_intrinsic(const VdlaConfig& config);

/// Every built-in intrinsic of the vdla target for `config` (vdla.gemm).
std::vector<IntrinsicDef> builtin_intrinsics(const VdlaConfig& config);

}  // namespace texc::vdla

// VdlaScopes: the memory scopes of VDLA's on-chip buffers (docs/vdla.md, "The machine"): input
// rows, weight tiles and accumulator rows. The vdla target declares them in its entry of
// ir/Target.cpp (rank local, tags vdla.inp, vdla.wgt, vdla.acc), where `cache_read`/`cache_write`
// and the IR text find them; here each is named by the buffer it is, so the generator asks for a
// buffer, not for a string.
#pragma once
#include <cstdint>
#include <optional>

#include "ir/IR.h"

namespace texc::vdla {

/// An on-chip buffer a schedule may place a stage in.
enum class OnChip : uint8_t { Inp, Wgt, Acc };

/// The scope of on-chip buffer `b`, as the vdla target declares it.
const MemScope& scope_of(OnChip b);
/// The on-chip buffer scope `s` is, or nullopt (global memory, or a scope vdla does not declare).
std::optional<OnChip> on_chip_buffer(const MemScope& s);

}  // namespace texc::vdla

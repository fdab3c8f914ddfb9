// TargetProperties: what a schedule may ask about the machine it is compiled for
// (docs/language.md "Target properties"): `target.vector_bits`, `target.vector_lanes(T)`,
// `target.vector_registers`, `target.l1_bytes`, `target.l2_bytes`, `target.has("FEATURE")`. The front end turns each into a variable
// named after the property (target_property_var); lowering replaces those variables by the
// values of the target being compiled for (with_target_properties) before the schedule is read.
// The values come from the driver (tools/driver/TargetPropertiesOf.h: the LLVM target machine of
// --mcpu/--mattr or the host); nothing here knows LLVM.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "ir/Schedule.h"

namespace texc {

struct TargetProperties {
  std::string description;   // for messages: "x86 --mcpu x86-64-v3", "x86 (the host CPU, znver5)"
  int64_t vector_bits = 128;     // the widest vector register usable for f32 (128 SSE/NEON, 256 AVX2, 512 AVX-512)
  int64_t vector_registers = 16; // vector registers of that width (16 SSE/AVX2, 32 AVX-512 and NEON)
  int64_t l1_bytes = 32 * 1024;   // the L1 data cache of one core
  int64_t l2_bytes = 1024 * 1024; // the L2 cache of one core (or the share of one, where it is shared)
  /// Whether the CPU has the feature (an LLVM name: "fma", "avx512vnni", "dotprod"); nullopt when
  /// the target knows no feature of that name (then `message` says which names are close).
  std::function<std::optional<bool>(const std::string& feature, std::string* message)> has;
};

/// The properties a target has when no driver says more: x86 the x86-64 baseline (SSE2, 16
/// registers of 128 bits), arm generic NEON (32 of 128 bits), every other target as x86; caches
/// of 32 KiB (L1) and 1 MiB (L2); no features.
TargetProperties baseline_target_properties(const std::string& target);

/// The scalar properties a schedule may name after `target.` (the rest take an argument:
/// vector_lanes(T), has("F")).
const std::vector<std::string>& target_property_names();

/// The variable standing for a property in a schedule value: "target.vector_bits",
/// "target.vector_registers", or "target.has(FEATURE)" (a bool). vector_lanes(T) is written as
/// target.vector_bits / bits(T) by the front end.
Var target_property_var(const std::string& property);

/// The blocks with every target property variable replaced by its value for `props`. Throws
/// UserError at the schedule argument or `if` that asks target.has of a feature the target does
/// not know.
std::vector<ScheduleBlock> with_target_properties(const std::vector<ScheduleBlock>& blocks, const TargetProperties& props);

}  // namespace texc

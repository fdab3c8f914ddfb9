#include "ir/KernelScratch.h"

#include "ir/Diagnostics.h"

namespace texc {

namespace {

int64_t aligned(int64_t bytes) { return (bytes + kScratchAlignment - 1) / kScratchAlignment * kScratchAlignment; }

}  // namespace

std::optional<int64_t> constant_bytes(const Buffer& buffer) {
  int64_t bytes = buffer->dtype.bytes();
  for (const Expr& extent : buffer->shape) {
    int64_t v = 0;
    if (!is_const_int(extent, &v) || v < 0 || __builtin_mul_overflow(bytes, v, &bytes)) return std::nullopt;
  }
  return bytes;
}

bool cpu_allocates_on_heap(const Buffer& buffer) {
  std::optional<int64_t> bytes = constant_bytes(buffer);
  if (!bytes || *bytes > (int64_t(1) << 40)) return true;
  return *bytes > (buffer->scope == MemScope::Local ? kMaxStackBytesLocal : kMaxStackBytesGlobal);
}

bool is_scratch_arg(const Buffer& arg) { return arg->role == BufferRole::Intermediate; }

std::vector<int64_t> kernel_scratch_offsets(const LoweredFunc& func) {
  std::vector<int64_t> offsets(func.args.size(), -1);
  int64_t end = 0;
  for (size_t i = 0; i < func.args.size(); ++i) {
    if (!is_scratch_arg(func.args[i])) continue;
    std::optional<int64_t> bytes = constant_bytes(func.args[i]);
    TEXC_CHECK(bytes) << "scratch argument '" << func.args[i]->name << "' of " << func.name << " has a non-constant shape";
    offsets[i] = end;
    end += aligned(*bytes);
  }
  return offsets;
}

int64_t kernel_scratch_bytes(const LoweredFunc& func) {
  int64_t end = 0;
  std::vector<int64_t> offsets = kernel_scratch_offsets(func);
  for (size_t i = 0; i < func.args.size(); ++i)
    if (offsets[i] >= 0) end = offsets[i] + aligned(*constant_bytes(func.args[i]));
  return end;
}

}  // namespace texc

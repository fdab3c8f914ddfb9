// texrt_alloc / texrt_free: 64-byte aligned heap memory for the buffers of compiled code.
#include <cstdlib>

#include "runtime/texrt.h"

namespace {
constexpr int64_t kAlignment = 64;
}

extern "C" void* texrt_alloc(int64_t bytes) {
  if (bytes < kAlignment) bytes = kAlignment;
  int64_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;  // aligned_alloc wants a multiple
  return std::aligned_alloc(size_t(kAlignment), size_t(rounded));
}

extern "C" void texrt_free(void* p) { std::free(p); }

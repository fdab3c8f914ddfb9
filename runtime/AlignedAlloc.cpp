// texrt_alloc / texrt_free: 64-byte aligned heap memory for the buffers of compiled code. When memory
// is exhausted texrt_alloc prints "texrt: cannot allocate N bytes ..." and aborts.
#include <cstdio>
#include <cstdlib>

#include "runtime/texrt.h"

namespace {
constexpr int64_t kAlignment = 64;
}

extern "C" void* texrt_alloc(int64_t bytes) {
  if (bytes < kAlignment) bytes = kAlignment;
  int64_t rounded = int64_t((uint64_t(bytes) + kAlignment - 1) / kAlignment * kAlignment);  // a multiple; < bytes on overflow
  void* p = rounded >= bytes ? std::aligned_alloc(size_t(kAlignment), size_t(rounded)) : nullptr;
  if (!p) {
    // Compiled code does not check: say what failed rather than fault on a null buffer.
    std::fprintf(stderr, "texrt: cannot allocate %lld bytes for a buffer of compiled code\n", (long long)bytes);
    std::abort();
  }
  return p;
}

extern "C" void texrt_free(void* p) { std::free(p); }

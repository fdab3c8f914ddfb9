// The host CPU's data cache sizes: what the tuner's features compare footprints with, and what the
// lowering's remarks compare cache buffers with (lower/Remarks.h).
#pragma once
#include <cstdint>

namespace texc {

struct CacheSizes {
  int64_t l1 = 32 * 1024, l2 = 1024 * 1024, l3 = 32 * 1024 * 1024;
  /// The host's data cache sizes from /sys/devices/system/cpu/cpu0/cache (the defaults above
  /// where it says nothing). Read once.
  static CacheSizes host();
};

/// CacheSizes::host().l2.
int64_t host_l2_cache_bytes();

}  // namespace texc

#include "lower/analysis/CacheInfo.h"

#include <cstdlib>
#include <fstream>
#include <string>

namespace texc {

namespace {

CacheSizes read_host_caches() {
  CacheSizes sizes;
  for (int i = 0; i < 8; ++i) {
    std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::ifstream level_file(dir + "level"), type_file(dir + "type"), size_file(dir + "size");
    int level = 0;
    std::string type, size;
    if (!(level_file >> level) || !(type_file >> type) || !(size_file >> size) || type == "Instruction") continue;
    int64_t bytes = std::atoll(size.c_str());
    if (!size.empty() && (size.back() == 'K' || size.back() == 'k')) bytes *= 1024;
    if (!size.empty() && size.back() == 'M') bytes *= 1024 * 1024;
    if (bytes <= 0) continue;
    (level == 1 ? sizes.l1 : level == 2 ? sizes.l2 : sizes.l3) = bytes;
  }
  return sizes;
}

}  // namespace

CacheSizes CacheSizes::host() {
  static const CacheSizes sizes = read_host_caches();
  return sizes;
}

int64_t host_l2_cache_bytes() { return CacheSizes::host().l2; }

}  // namespace texc

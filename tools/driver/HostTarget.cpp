#include "tools/driver/CompileOptions.h"

namespace texc {

std::string host_target() {
#if defined(__x86_64__) || defined(_M_X64)
  return "x86";
#elif defined(__aarch64__)
  return "arm";
#else
  return "";
#endif
}

}  // namespace texc

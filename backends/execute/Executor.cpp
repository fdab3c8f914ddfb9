#include "backends/execute/Executor.h"

namespace texc {

size_t count_inputs(const LoweredFunc& func) {
  size_t n = 0;
  for (const Buffer& b : func.args) n += b->role == BufferRole::Input;
  return n;
}

}  // namespace texc

// A lowered op: a loop AST over its argument buffers. The unit that backends compile and the
// loop interpreter executes. Arguments are the op's inputs then its outputs (the C signature).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/IR.h"

namespace texc {

struct LoweredFunc {
  std::string name;
  std::vector<Buffer> args;  // inputs (role Input) then outputs (role Output)
  Stmt body;
  /// The logical (multi-dimensional) shape of each argument. After storage flattening the args
  /// are 1-D; these keep what the C header documents.
  std::vector<std::vector<int64_t>> arg_dims;
};

}  // namespace texc

// UsedSymbols: the variables and buffers a statement refers to (for capturing them in the closure
// of an outlined parallel loop). Each appears once, in order of first use; variables the statement
// binds itself are included too when they are also read (the caller keeps only those in scope).
#pragma once
#include <vector>

#include "ir/IR.h"

namespace texc {

struct UsedSymbols {
  std::vector<const Variable*> vars;
  std::vector<const BufferNode*> buffers;
};

UsedSymbols used_symbols(const Stmt& s);

}  // namespace texc

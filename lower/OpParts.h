// What splitting an op into parts needs (an op's `_prepare` half, lower/SplitPrepare.h; the kernels
// of a graph, lower/graph/GraphOps.h): which buffers a stage reads, and a stage's buffer as an
// input or output of the part that reads or writes it.
#pragma once
#include <set>
#include <string>

#include "ir/IR.h"

namespace texc {

/// The names of the buffers `body` (a stage's definition) loads from.
std::set<std::string> buffers_read(const Expr& body);

/// `b` with role `role` (its name, type, shape and scope kept): an intermediate of the whole op
/// becomes an output of the part that computes it and an input of the parts that read it.
Buffer with_role(const Buffer& b, BufferRole role);

}  // namespace texc

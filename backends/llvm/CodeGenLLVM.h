// CodeGenLLVM: texc's lowered loop AST -> an llvm::Module (unoptimized).
//
// Assumes the LoweredFuncs are fully lowered for a CPU: no Block, Reduce, ThreadBound or Tensorized
// loop; buffers 1-D (one i64 index per access); every Allocate's size an i64 expression of variables in
// scope. Produces one external function per op, `void op(ptr in..., ptr out...)` with noalias,
// nocapture, readonly (inputs), dereferenceable (constant sizes) on the arguments; alias-scope metadata
// saying that distinct buffers never alias; parallel loops outlined into internal closure functions
// `void op.par.N(i64 task, ptr closure)` launched with texrt_parallel_for; heap allocations through
// texrt_alloc/texrt_free. With `packed_wrappers`, also `void op.packed(ptr args)` taking an array of
// argument pointers (used by the JIT to call any op through one signature).
//
// Semantics it implements: integer / and % are floor division / modulo (x / 0 == 0, x % 0 == 0);
// >> is arithmetic on signed types; Select evaluates only the chosen side when a side reads memory
// (branches for scalars, masked loads for vectors); bool is i1 in registers and one byte in memory.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ir/Function.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}  // namespace llvm

namespace texc {

struct CodeGenOptions {
  bool packed_wrappers = false;
};

/// Builds the module for `funcs`, with the target machine's triple, data layout, CPU and features.
std::unique_ptr<llvm::Module> codegen_llvm(const std::vector<LoweredFunc>& funcs, llvm::LLVMContext& context,
                                           llvm::TargetMachine& target_machine, const CodeGenOptions& options = {});

}  // namespace texc

// add_kernel_call_entry: the host entry of an op compiled as a graph of kernels (ir/KernelCalls.h)
// as an LLVM function that returns an error code, for the targets whose kernels can fail at run time
// (cuda: a refused launch; vdla: a simulator error). The CPU targets compile the entry's loop AST
// as it is (codegen_cpu), since their kernels cannot fail.
//
//   define i32 @op(ptr %X, ..., ptr %Y) {
//     %rc = allocate(workspace, BYTES); if %rc goto done
//     %rc = @op_k0(%X, ws + 0, ...); if %rc goto done      ; a kernel returning i32: checked
//     call @op_k1(ws + 64, %Y)                               ; a kernel returning void: cannot fail
//   done:                                                  ; also after a failed call
//     finish()                                             ; when the target has one
//     release(workspace); ret the first nonzero code }
// With `caller_workspace`, `@op_with_workspace(..., ptr %workspace)` (ir/CallerWorkspace.h): the
// same calls on the caller's workspace, nothing allocated or released.
//
// This header includes LLVM's IRBuilder: for the backends' own files only.
#pragma once
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <functional>

#include "ir/Function.h"
#include "ir/KernelCalls.h"

namespace texc {

/// What an entry calls of its target's runtime: `allocate` emits the allocation of `bytes` into the
/// pointer slot `slot` and returns its i32 code (0: allocated); `release` emits the release of
/// `workspace` and returns its i32 code; `callee` (when set) is the function called for a kernel
/// (else the module's function of the kernel's symbol); `finish` (when set) is emitted after the
/// calls, also when one failed, and returns an i32 code (cuda: the wait for the kernels launched).
struct EntryRuntime {
  std::function<llvm::Value*(llvm::IRBuilder<>& b, llvm::Value* slot, uint64_t bytes)> allocate;
  std::function<llvm::Value*(llvm::IRBuilder<>& b, llvm::Value* workspace)> release;
  std::function<llvm::Function*(const std::string& kernel)> callee;
  std::function<llvm::Value*(llvm::IRBuilder<>& b)> finish;
};

/// Adds the entry `func` (its calls `calls`) to `module`, which defines every kernel it calls.
void add_kernel_call_entry(llvm::Module& module, llvm::IRBuilder<>& b, const LoweredFunc& func, const KernelCalls& calls,
                           bool caller_workspace, const EntryRuntime& runtime);

}  // namespace texc

// CodeGenCPU: CodeGenLLVM's hooks for the CPU targets (x86, arm). Host functions only.
//
// Parallel loops are outlined into internal closure functions `void op.par.N(i64 task, ptr closure)`
// launched with texrt_parallel_for (runtime/texrt.h). Allocations go on the stack up to a size limit
// per scope (64 KiB global, 1 MiB local), else on the heap through texrt_alloc/texrt_free, 64-byte
// aligned. On x86 with AVX-512, a dense load of an operand whose lane count is not a power of two
// (the tail of a split) is one masked load of the next power of two, unless the op also stores
// vectors of that many lanes to the buffer (an accumulator tile, read back); likewise a dense
// store of such a vector to an op output is one masked store, unless the op also loads vectors of
// that many lanes from the output (the output is the accumulator tile). A CPU has no thread index and
// no barrier: a thread-bound loop or a barrier is an internal error (lowering for a CPU leaves none).
// With `packed_wrappers`, each op also gets `void op.packed(ptr args)` taking an array of argument
// pointers (used by the JIT to call any op through one signature).
#pragma once
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "backends/llvm/CodeGenLLVM.h"

namespace texc {

struct CodeGenOptions {
  bool packed_wrappers = false;
};

class CodeGenCPU : public CodeGenLLVM {
 public:
  CodeGenCPU(llvm::LLVMContext& context, llvm::TargetMachine& target_machine, const std::string& module_name,
             const CodeGenOptions& options = {});

 protected:
  llvm::Function* emit_function_entry(const LoweredFunc& func) override;
  void finish_function(const LoweredFunc& func, llvm::Function* op_function) override;
  void emit_parallel_loop(const For* op) override;
  BufferValue allocate_buffer(const Buffer& buffer, MemScope scope) override;
  void free_buffer(const Buffer& buffer, MemScope scope, const BufferValue& allocated) override;
  llvm::Value* thread_index(const std::string& tag) override;
  void emit_barrier() override;
  bool pad_load_to_masked(const Load* op) const override;
  bool pad_store_to_masked(const Store* op) const override;
  bool has_masked_loads(Type elem) const override;

 private:
  llvm::FunctionCallee runtime_function(const std::string& name);
  /// The bytes of a stack allocation of `buffer` in `scope`, or nullopt if it goes on the heap.
  static std::optional<int64_t> stack_bytes(const Buffer& buffer, MemScope scope);

  CodeGenOptions options_;
  // Of the op being emitted: per buffer, the lane counts of its dense vector stores that are not a
  // power of two (a load of as many lanes reads back a tile; it stays a plain load).
  std::map<const BufferNode*, std::set<int>> odd_vector_stores_;
  // Likewise its dense vector loads (a store of as many lanes to an output writes back a tile).
  std::map<const BufferNode*, std::set<int>> odd_vector_loads_;
  bool masked_32_64_ = false, masked_8_16_ = false;  // masked moves of 4/8-byte and 1/2-byte elements
  int closure_count_ = 0;                           // of the op being emitted
};

/// Builds the module for `funcs` (host functions), with the target machine's triple, data layout,
/// CPU and features. A graph's host entry comes with `<op>_with_workspace` (ir/CallerWorkspace.h).
std::unique_ptr<llvm::Module> codegen_cpu(const std::vector<LoweredFunc>& funcs, llvm::LLVMContext& context,
                                          llvm::TargetMachine& target_machine, const CodeGenOptions& options = {});

}  // namespace texc

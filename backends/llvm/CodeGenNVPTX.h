// CodeGenNVPTX: CodeGenLLVM's hooks for NVIDIA GPUs (LLVM's NVPTX backend, PTX out). Device
// functions only (LoweredFunc::kind == Device, as the cuda lowering leaves them).
//
// Each op becomes a kernel `void op(ptr addrspace(1)...)` with the ptx_kernel calling convention
// (PTX `.entry`); its arguments are global-memory (device) pointers, with the CPU's noalias /
// readonly / dereferenceable attributes. A constant block shape (every threadIdx extent of the
// launch constant) is declared to ptxas as `.maxntid x, y, z` through nvvm.annotations.
//
//   thread-bound loop `bound(T) v in min..+e`   v = min + the special register of T:
//       threadIdx.x|y|z -> %tid.x|y|z, blockIdx.x|y|z -> %ctaid.x|y|z (vthread: the lowering expands it)
//   thread_barrier()                             bar.sync 0 (llvm.nvvm.barrier0)
//   shuffle_down(value, offset)                  shfl.sync.down.b32 over the full warp (mask
//       0xffffffff, clamp 31: lanes past the end of the warp get their own value); 64-bit values as
//       two 32-bit shuffles, 8/16-bit ones widened
//   allocate ... shared                          an internal addrspace(3) global (constant size); when
//       the kernel's shared buffers together pass the 48 KiB a block may declare statically, all of
//       them are carved (16-byte aligned, in program order) out of one `extern .shared` array, the
//       dynamic shared memory that the launch then asks for (kernel_shared_bytes)
//   allocate ... local                           an alloca (per thread registers / local memory)
//   math: sqrt abs floor ceil                    LLVM intrinsics (native PTX instructions)
//         exp tanh sigmoid (f32, f16 in f32)     Cephes polynomials (no libdevice), about 2 ulp
//         log, pow (f32, f16 in f32)             lg2.approx.f32 (and exp via the polynomial):
//                                                about 2^-22 relative; pow(x<0, y) is NaN
//         exp log tanh sigmoid pow on f64        Cephes exp/log/tanh without libm (MathLLVM.h), within
//                                                3 ulp; pow(x, y) = exp(y log x), NaN for x < 0
//         erf erfc log1p expm1 exp2 log2 sin    libdevice's __nv_ functions (CUDA's own math library, in
//         cos atan2 fmod (f16 in f32)            LLVM bitcode), linked into the module (LinkLibdevice.h)
//         rsqrt round trunc isnan isinf          1 / sqrt.rn, LLVM intrinsics and compares (native)
//   the kernel's name                            op_symbol (ir/SymbolNames.h): `texc_op_WARP_SZ` for WARP_SZ
// A global-scope Allocate, a parallel loop or a buffer of non-constant size inside a kernel is an
// internal error: the cuda lowering leaves none (make_device_function rejects parallel loops).
#pragma once
#include <map>
#include <memory>
#include <vector>

#include "backends/llvm/CodeGenLLVM.h"
#include "backends/llvm/LinkLibdevice.h"

namespace texc {

class CodeGenNVPTX : public CodeGenLLVM {
 public:
  CodeGenNVPTX(llvm::LLVMContext& context, llvm::TargetMachine& target_machine, const std::string& module_name);

 protected:
  llvm::Function* emit_function_entry(const LoweredFunc& func) override;
  void emit_parallel_loop(const For* op) override;
  BufferValue allocate_buffer(const Buffer& buffer, MemScope scope) override;
  void free_buffer(const Buffer& buffer, MemScope scope, const BufferValue& allocated) override;
  llvm::Value* emit_intrinsic(const Call* op) override;
  llvm::Value* emit_math(const Call* op, const std::vector<llvm::Value*>& args) override;
  llvm::Value* thread_index(const std::string& tag) override;
  void emit_barrier() override;
  void emit_store(const Store* op) override;
  void emit_attr(const AttrStmt* op) override;

 private:
  /// In a `pragma(async_copy)` fill on sm_80+: the store as cp.async copies (false: not a copy of
  /// global data into shared memory with at least 4-byte alignment; the caller stores it).
  bool emit_async_copy(const Store* op);
  int sm_ = 80;                 // the --arch's number (sm_80: 80), from the target machine's CPU
  int async_copy_depth_ = 0;    // inside pragma(async_copy) fills
  llvm::Value* emit_shuffle_down(const Call* op);
  llvm::Value* emit_mma(const Call* op);
  /// An mma operand's element loaded by ldmatrix: the instruction once per row-start Load node
  /// within the mma being emitted (ldmatrix_registers_), then the element out of its register.
  llvm::Value* emit_ldmatrix(const Call* op);
  std::map<const Load*, std::vector<llvm::Value*>> ldmatrix_registers_;
  llvm::Value* shuffle_down_i32(llvm::Value* value, llvm::Value* offset);
  llvm::Value* emit_f32_math(const std::string& name, const std::vector<llvm::Value*>& args);
  llvm::Value* emit_f64_math(const std::string& name, const std::vector<llvm::Value*>& args);
  llvm::Value* log_f32(llvm::Value* x);
  llvm::Value* emit_libdevice_call(const std::string& name, const std::vector<llvm::Value*>& args);

  llvm::GlobalVariable* dynamic_shared_ = nullptr;  // of the kernel being emitted, when it uses one
  int64_t dynamic_shared_offset_ = 0;               // where the next shared buffer starts in it
};

/// The shared memory bytes that `func`'s own shared buffers take when they live in dynamic shared
/// memory (their sum, each 16-byte aligned; 0 when they fit in 48 KiB and are declared statically).
/// The launch asks for this plus func.launch.dynamic_shared_bytes.
int64_t kernel_shared_bytes(const LoweredFunc& func);

/// Builds the module for `funcs` (device functions) for the NVPTX target machine.
std::unique_ptr<llvm::Module> codegen_nvptx(const std::vector<LoweredFunc>& funcs, llvm::LLVMContext& context,
                                            llvm::TargetMachine& target_machine);

}  // namespace texc

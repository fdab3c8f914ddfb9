// Unit tests of CodeGenLLVM's target hooks (backends/llvm/CodeGenLLVM.h): a target subclass gives
// thread-bound loops and shared buffers their own meaning without any change to the base;
// on a CPU (CodeGenCPU) a thread index, a barrier or a device function is an internal error
// (InternalError, thrown).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <functional>

#include "backends/llvm/CodeGenCPU.h"
#include "backends/llvm/CpuTargetMachine.h"
#include "ir/Diagnostics.h"
#include "tests/unit/llvm_test_ops.h"

using namespace texc;
using namespace texc::llvm_test;

namespace {

/// A GPU-like test target on top of the CPU one: the index along a thread tag is a call of
/// `thread_index_<tag>()` (dots become underscores), a shared buffer an internal global in
/// address space 3.
class ThreadedTestCodeGen : public CodeGenCPU {
 public:
  using CodeGenCPU::CodeGenCPU;

 protected:
  llvm::Value* thread_index(const std::string& tag) override {
    std::string name = "thread_index_" + tag;
    std::replace(name.begin(), name.end(), '.', '_');
    return b_.CreateCall(module_->getOrInsertFunction(name, llvm::FunctionType::get(b_.getInt32Ty(), false)));
  }
  BufferValue allocate_buffer(const Buffer& buffer, MemScope scope) override {
    if (scope != MemScope::Shared) return CodeGenCPU::allocate_buffer(buffer, scope);
    auto* type = llvm::ArrayType::get(b_.getInt8Ty(), uint64_t(*constant_elements(buffer) * element_bytes(buffer->dtype)));
    auto* global = new llvm::GlobalVariable(*module_, type, false, llvm::GlobalValue::InternalLinkage,
                                            llvm::UndefValue::get(type), buffer->name, nullptr,
                                            llvm::GlobalValue::NotThreadLocal, 3);
    global->setAlignment(llvm::Align(16));
    return {global, 16};
  }
  void free_buffer(const Buffer& buffer, MemScope scope, const BufferValue& allocated) override {
    if (scope != MemScope::Shared) CodeGenCPU::free_buffer(buffer, scope, allocated);
  }
};

/// for t in 0..4 bound to threadIdx.x: allocate S: f32[4] shared { S[t] = A[t] * 2; C[t] = S[t] }
LoweredFunc thread_bound_op() {
  Buffer a = input("A", Float(32), 4), c = output("C", Float(32), 4);
  Buffer s = BufferNode::make("S", Float(32), {i64(4)}, MemScope::Shared, BufferRole::Intermediate);
  Var t = Variable::make("t");
  Stmt body = Allocate::make(s, Seq::make({store(s, t, load(a, t) * make_float(2.0)), store(c, t, load(s, t))}));
  return {"scaled", {a, c}, For::make(t, i64(0), i64(4), ForKind::ThreadBound, body, "threadIdx.x"), {{4}, {4}}};
}

std::string module_text(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

/// Runs `f` in a forked child (stderr to a file); returns its wait status and what it printed.
/// The message of the InternalError (ir/Diagnostics.h) that `f` throws; "" when it throws none.
std::string internal_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InternalError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a target subclass overrides the thread index and the allocation of shared buffers") {
  llvm::LLVMContext context;
  auto tm = make_cpu_target_machine(CpuTargetOptions{});
  ThreadedTestCodeGen codegen(context, *tm, "threaded");
  codegen.add_function(thread_bound_op());
  std::string ir = module_text(*codegen.finish());
  CAPTURE(ir);
  // The loop is gone: t is 0 + the thread's index, zero-extended to i64.
  CHECK(ir.find("call i32 @thread_index_threadIdx_x()") != std::string::npos);
  CHECK(ir.find("%t = add nsw i64 0, ") != std::string::npos);
  CHECK(ir.find("t.loop") == std::string::npos);
  // S lives in address space 3, accessed through its own pointers; nothing goes to the runtime.
  CHECK(ir.find("@S = internal addrspace(3) global [16 x i8] undef, align 16") != std::string::npos);
  CHECK(ir.find("store float %") != std::string::npos);
  CHECK(ir.find("ptr addrspace(3) @S") != std::string::npos);
  CHECK(ir.find("texrt_") == std::string::npos);
}

TEST_CASE("on a CPU a thread-bound loop, a barrier or a device function is an internal error") {
  std::string text = internal_error_of([] { emit_llvm_ir_unoptimized({thread_bound_op()}, CpuTargetOptions{}); });
  CHECK(text.find("texc: internal error") != std::string::npos);
  CHECK(text.find("thread index of 'threadIdx.x' asked in CPU op scaled") != std::string::npos);

  text = internal_error_of([] {
    llvm::LLVMContext context;
    auto tm = make_cpu_target_machine(CpuTargetOptions{});
    struct ExposedCPU : CodeGenCPU {
      using CodeGenCPU::CodeGenCPU;
      using CodeGenCPU::emit_barrier;
    } codegen(context, *tm, "cpu");
    codegen.emit_barrier();
  });
  CHECK(text.find("barrier in CPU op") != std::string::npos);

  text = internal_error_of([] {
    LoweredFunc kernel = elementwise_add(4, "kernel");
    kernel.kind = FunctionKind::Device;
    kernel.launch.thread_extents.push_back({"threadIdx.x", i64(4)});
    emit_llvm_ir_unoptimized({kernel}, CpuTargetOptions{});
  });
  CHECK(text.find("device function kernel given to the CPU code generator") != std::string::npos);
}

// CodeGenLLVM: the target-neutral half of texc's code generator, lowered loop AST -> llvm::Module
// (unoptimized). A target subclasses it and overrides the target hooks (the `protected` virtual
// functions below): how an op's function is declared, how loops of each kind run, where a buffer of
// a memory scope lives, intrinsic calls, math functions, thread indices and barriers. The subclasses:
// CodeGenCPU (x86, arm) and CodeGenNVPTX (cuda); backends/llvm/README.md says how to add one.
//
// Assumes the LoweredFuncs are fully lowered: no Block, Reduce or Tensorized loop; buffers 1-D (one
// i64 index per access); every Allocate's size an i64 expression of variables in scope. Produces one
// function per op, by default `void op(ptr in..., ptr out...)` with noalias, nocapture, readonly
// (inputs), dereferenceable (constant sizes) on the arguments, and alias-scope metadata saying that
// distinct buffers never alias.
//
// Semantics it implements: integer / and % are floor division / modulo (x / 0 == 0, x % 0 == 0);
// >> is arithmetic on signed types; Select evaluates only the chosen side when a side reads memory
// (branches for scalars, masked loads for vectors); bool is i1 in registers and one byte in memory.
#pragma once
#include <llvm/IR/IRBuilder.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "ir/Function.h"
#include "ir/ModulusRemainder.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}  // namespace llvm

namespace texc {

/// A buffer's base pointer in the function being emitted, and the alignment of that pointer.
struct BufferValue {
  llvm::Value* ptr = nullptr;
  int64_t align = 1;
};

class CodeGenLLVM {
 public:
  /// An empty module named `module_name` with the target machine's triple and data layout; the
  /// functions it gets carry the machine's CPU and features.
  CodeGenLLVM(llvm::LLVMContext& context, llvm::TargetMachine& target_machine, const std::string& module_name);
  virtual ~CodeGenLLVM();
  CodeGenLLVM(const CodeGenLLVM&) = delete;
  CodeGenLLVM& operator=(const CodeGenLLVM&) = delete;

  /// Emits one op into the module.
  void add_function(const LoweredFunc& func);
  /// The module, checked by LLVM's verifier (invalid IR is an internal error). Call once, last.
  std::unique_ptr<llvm::Module> finish();

 protected:
  // ---- Target hooks ---------------------------------------------------------------------------

  /// Declares the op's function, binds its argument buffers in `buffers_`, and leaves the builder
  /// at the start of its entry block. Default: `void op(ptr...)`, external, with the argument
  /// attributes above; the caller promises each argument the element type's natural alignment.
  virtual llvm::Function* emit_function_entry(const LoweredFunc& func);
  /// Called once the op's function is complete (e.g. to add a wrapper). Default: nothing.
  virtual void finish_function(const LoweredFunc& func, llvm::Function* op_function);

  /// Loops, one hook per ForKind. Serial: a counted loop. Vectorized (lowering made no vector nodes
  /// of it): a serial loop asking LLVM's loop vectorizer. Unrolled: one body per iteration for a
  /// constant extent, else serial. Parallel: the target's threads (no default). ThreadBound: the
  /// loop is the launch itself: its variable is min + thread_index(tag), its body emitted once.
  virtual void emit_serial_loop(const For* op);
  virtual void emit_vectorized_loop(const For* op);
  virtual void emit_unrolled_loop(const For* op);
  virtual void emit_parallel_loop(const For* op) = 0;
  virtual void emit_thread_bound_loop(const For* op);

  /// Where a buffer of memory scope `scope` lives while its Allocate's body is emitted (the
  /// pointer and its alignment), and its release after the body.
  virtual BufferValue allocate_buffer(const Buffer& buffer, MemScope scope) = 0;
  virtual void free_buffer(const Buffer& buffer, MemScope scope, const BufferValue& allocated) = 0;

  /// A call of an ir/Intrinsics.def intrinsic. Default: likely(x) is x, address_of(load) the
  /// element's address, an intrinsic with the Barrier effect is emit_barrier(); others an internal
  /// error.
  virtual llvm::Value* emit_intrinsic(const Call* op);
  llvm::Value* emit_atomic_add(const Call* op);  // atomic_add(B[idx], x): atomicrmw fadd / add
  /// A call of a math function (exp, log, tanh...) whose arguments are already emitted. Default:
  /// emit_math_function (MathLLVM.h), which may call libm.
  virtual llvm::Value* emit_math(const Call* op, const std::vector<llvm::Value*>& args);
  /// The index of the running thread along a thread tag ("threadIdx.x", "blockIdx.y"...).
  virtual llvm::Value* thread_index(const std::string& tag) = 0;
  /// Synchronises the threads of a block.
  virtual void emit_barrier() = 0;

  /// Whether a dense vector load of `op` (stride 1, no mask) whose lane count is not a power of two
  /// is emitted as one masked load of the next power of two, whose extra lanes are not read.
  /// Default: no (LLVM splits it into power-of-two pieces).
  virtual bool pad_load_to_masked(const Load* op) const;
  /// Likewise for a dense vector store of `op` (stride 1): one masked store of the next power of
  /// two, whose extra lanes are not written. Default: no.
  virtual bool pad_store_to_masked(const Store* op) const;
  /// Whether the target has masked vector loads of `elem` (AVX-512: 4/8-byte elements, with BW also
  /// 1/2-byte ones). A load of a ramp with a small constant stride is then one masked load of the
  /// span it covers and a shuffle, not a gather. Default: no.
  virtual bool has_masked_loads(Type elem) const;
  /// A store (the target may emit some differently: cp.async on NVPTX).
  virtual void emit_store(const Store* op);
  /// An AttrStmt: by default its body (a pragma the target does not know changes nothing).
  virtual void emit_attr(const AttrStmt* op);

  // ---- What the hooks build with ----------------------------------------------------------------

  llvm::Type* value_type(Type t);
  llvm::Type* memory_type(Type t);
  static int64_t element_bytes(Type t) { return t.is_bool() ? 1 : t.bytes(); }
  /// The number of elements of a buffer with a constant shape (nullopt if not constant or overflowing).
  static std::optional<int64_t> constant_elements(const Buffer& buffer);

  llvm::Value* emit(const Expr& e);
  llvm::Value* emit_index(const Expr& e);  // an integer expression as i64 (or a vector of i64)
  const BufferValue& buffer_value(const Buffer& buffer);
  /// The alignment (bytes, at most buf.align) provable for an access at base_index.
  int64_t vector_alignment(const BufferValue& buf, const Expr& base_index, Type element);
  void emit(const Stmt& s);
  /// A function in the module with the target's CPU and features and nounwind.
  llvm::Function* create_function(llvm::FunctionType* type, llvm::GlobalValue::LinkageTypes linkage,
                                  const std::string& name);
  /// An alloca at the start of the current function's entry block.
  llvm::AllocaInst* entry_alloca(llvm::Type* type, int64_t align, const std::string& name);
  llvm::Value* zero_of(llvm::Type* type) { return llvm::Constant::getNullValue(type); }

  /// Binds var to value for the lifetime of the object (restoring any outer binding).
  class ScopedVar {
   public:
    ScopedVar(CodeGenLLVM& cg, const Variable* var, llvm::Value* value,
              std::optional<ModulusRemainder> modulus = std::nullopt);
    ~ScopedVar();
    ScopedVar(const ScopedVar&) = delete;
    ScopedVar& operator=(const ScopedVar&) = delete;

   private:
    CodeGenLLVM& cg_;
    const Variable* var_;
    llvm::Value* old_value_ = nullptr;
    std::optional<ModulusRemainder> old_modulus_;
  };

  llvm::LLVMContext& context_;
  std::unique_ptr<llvm::Module> module_;
  llvm::IRBuilder<> b_;
  llvm::PointerType* ptr_type_;
  llvm::IntegerType* i64_;

  // State of the op being emitted.
  std::string op_name_;
  // State of the function being emitted (the op or a function outlined from it).
  llvm::Function* function_ = nullptr;
  std::unordered_map<const Variable*, llvm::Value*> vars_;
  KnownModuli var_moduli_;
  std::unordered_map<const BufferNode*, BufferValue> buffers_;
  llvm::Value* vector_mask_ = nullptr;  // inside a vector Select: the lanes whose loads may happen

 private:
  /// The alias-scope metadata of one buffer: its own scope, and every other buffer's.
  struct AliasMetadata {
    llvm::MDNode* scope = nullptr;
    llvm::MDNode* noalias = nullptr;
  };

  // ---- expressions (CodeGenLLVMExpr.cpp)
  llvm::Value* emit_binary(const Binary* op);
  /// `op` on the values `a` and `b` of type `t` (op's operand type, or f32 for bf16 operands).
  llvm::Value* emit_binary_values(const Binary* op, Type t, llvm::Value* a, llvm::Value* b);
  llvm::Value* emit_int_div_mod(const Binary* op, llvm::Value* a, llvm::Value* b);
  llvm::Value* emit_float_mod(llvm::Value* a, llvm::Value* b);
  llvm::Value* emit_shift(const Binary* op, llvm::Value* a, llvm::Value* b);
  llvm::Value* emit_float_to_int(llvm::Value* v, Type to);
  llvm::Value* emit_compare(BinaryOp op, Type t, llvm::Value* a, llvm::Value* b);
  llvm::Value* emit_cast(const Cast* op);
  llvm::Value* emit_cast_value(Type from, Type to, llvm::Value* v);
  llvm::Value* emit_select(const Select* op);
  llvm::Value* emit_call(const Call* op, bool as_statement);
  llvm::Value* emit_load(const Load* op);
  llvm::Value* emit_ramp(const Ramp* op);
  llvm::Value* emit_let(const Let* op);
  llvm::Value* element_pointer(const Load* load);
  llvm::Value* guarded_by_any_active_lane(llvm::Type* type, const std::function<llvm::Value*()>& compute);
  /// The load `op` of ramp(base, stride, lanes) as one masked load of the span from base (rounded up
  /// to a power of two lanes) and a shuffle picking every stride-th element: only the lanes' own
  /// elements are read (inside a vector select, only the active lanes'). Used for dense loads of a
  /// lane count that is not a power of two (pad_load_to_masked) and, where has_masked_loads, for
  /// strides 2..4 instead of a gather.
  llvm::Value* masked_span_load(const Load* op, const Expr& base, int stride);

  // ---- statements (CodeGenLLVM.cpp)
  void emit_for(const For* op);
  void emit_counted_loop(const For* op, bool vectorize_hint);
  void emit_allocate(const Allocate* op);
  void emit_if(const IfThenElse* op);

  // ---- buffers and metadata
  void attach_alias_metadata(llvm::Instruction* inst, const BufferNode* buffer);
  void create_alias_scopes(const LoweredFunc& func);

  std::string cpu_, features_;
  std::unordered_map<const BufferNode*, AliasMetadata> alias_metadata_;
};

}  // namespace texc

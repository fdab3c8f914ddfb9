#include "backends/llvm/CodeGenNVPTX.h"

#include <cmath>
#include <functional>

#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <optional>

#include "backends/llvm/BFloatLLVM.h"
#include "backends/llvm/MathLLVM.h"
#include "ir/Diagnostics.h"
#include "ir/IRVisitor.h"
#include "ir/Intrinsics.h"
#include "ir/SymbolNames.h"

namespace texc {

using llvm::Value;

namespace {

constexpr unsigned kGlobalAddressSpace = 1;
constexpr unsigned kSharedAddressSpace = 3;
constexpr int64_t kSharedAlignment = 16;  // room for 128-bit vector accesses
constexpr int64_t kLocalAlignment = 16;
constexpr int64_t kGlobalArgAlignment = 16;  // what a kernel's pointer arguments promise
constexpr int64_t kStaticSharedLimit = 48 * 1024;  // what a block may declare statically

int64_t round_up(int64_t bytes, int64_t alignment) { return (bytes + alignment - 1) / alignment * alignment; }

/// The constant byte size of a kernel buffer (at least 1).
int64_t buffer_bytes(const Buffer& buffer) {
  int64_t elements = 1;
  for (const Expr& extent : buffer->shape) {
    int64_t v;
    if (!is_const_int(extent, &v) || v < 0 || __builtin_mul_overflow(elements, v, &elements)) return -1;
  }
  int64_t bytes = 0;
  if (__builtin_mul_overflow(elements, buffer->dtype.is_bool() ? 1 : buffer->dtype.bytes(), &bytes)) return -1;
  return std::max<int64_t>(bytes, 1);
}

/// The sum of the kernel's shared buffers, each rounded up to kSharedAlignment.
int64_t total_shared_bytes(const LoweredFunc& func) {
  int64_t total = 0;
  for_each_stmt(func.body, [&](const Stmt& s) {
    const Allocate* alloc = s->as<Allocate>();
    if (!alloc || alloc->buffer->scope != MemScope::Shared) return;
    int64_t bytes = buffer_bytes(alloc->buffer);
    TEXC_CHECK(bytes >= 0) << "shared buffer '" << alloc->buffer->name << "' of kernel " << func.name
                           << " has no constant size (the cuda lowering gives kernel buffers constant sizes)";
    total += round_up(bytes, kSharedAlignment);
  });
  return total;
}

/// The block's extent along x, y and z (1 where not bound), or nothing if one is not constant.
std::optional<std::array<int64_t, 3>> constant_block(const LaunchAttributes& launch) {
  std::array<int64_t, 3> block{1, 1, 1};
  for (const auto& extent : launch.thread_extents) {
    for (int a = 0; a < 3; ++a) {
      if (extent.tag != std::string("threadIdx.") + "xyz"[a]) continue;
      if (!is_const_int(extent.extent, &block[size_t(a)]) || block[size_t(a)] < 1) return std::nullopt;
    }
  }
  return block;
}

}  // namespace

int64_t kernel_shared_bytes(const LoweredFunc& func) {
  int64_t total = total_shared_bytes(func);
  return total > kStaticSharedLimit ? total : 0;
}

CodeGenNVPTX::CodeGenNVPTX(llvm::LLVMContext& context, llvm::TargetMachine& target_machine,
                           const std::string& module_name)
    : CodeGenLLVM(context, target_machine, module_name) {
  const std::string cpu = target_machine.getTargetCPU().str();  // "sm_80"
  if (cpu.rfind("sm_", 0) == 0) sm_ = std::atoi(cpu.c_str() + 3);
}

// cp.async (sm_80 and later, lower/gpu/DoubleBuffer.h): a fill's copies run while the threads go
// on; async_copy_commit / async_copy_wait group and wait for them. Earlier architectures copy
// synchronously (the pragma and the commits and waits change nothing).
void CodeGenNVPTX::emit_attr(const AttrStmt* op) {
  const bool async = op->key == AttrKey::Pragma && op->name == "async_copy" && sm_ >= 80;
  async_copy_depth_ += async;
  emit(op->body);
  async_copy_depth_ -= async;
}

void CodeGenNVPTX::emit_store(const Store* op) {
  if (async_copy_depth_ > 0 && emit_async_copy(op)) return;
  CodeGenLLVM::emit_store(op);
}

bool CodeGenNVPTX::emit_async_copy(const Store* op) {
  const Load* load = op->value->as<Load>();
  // select(in_range, load, 0) with one condition for all its lanes (a k tile padded with zeros
  // past K, lower/gpu/ZeroPadKTiles.h: an element of A, or a vector along a row of B): cp.async's
  // src-size form, which reads src-size bytes (the whole chunk or none) and writes zeros for the
  // rest; past K it reads nothing, so its source address need not lie in the buffer.
  Expr in_range;
  if (const Select* sel = op->value->as<Select>(); sel && sel->cond->type.is_scalar()) {
    const Broadcast* lanes = sel->false_value->as<Broadcast>();
    const Expr zero = lanes ? lanes->value : sel->false_value;
    const FloatImm* f = zero->as<FloatImm>();
    int64_t i = 1;
    if ((f && f->value == 0.0 && !std::signbit(f->value)) || (is_const_int(zero, &i) && i == 0)) {
      load = sel->true_value->as<Load>();
      in_range = sel->cond;
    }
  }
  if (!load || op->buffer->scope != MemScope::Shared || load->buffer->scope == MemScope::Shared ||
      load->buffer->scope == MemScope::Local || op->indices.size() != 1 || load->indices.size() != 1 ||
      load->type != op->value->type || op->buffer->dtype != load->buffer->dtype || op->buffer->dtype.is_bool())
    return false;
  const int lanes = op->value->type.lanes;
  Expr dst_base = op->indices[0], src_base = load->indices[0];
  if (lanes > 1) {
    const Ramp* dr = dst_base->as<Ramp>();
    const Ramp* sr = src_base->as<Ramp>();
    if (!dr || !sr || !is_const_int(dr->stride, 1) || !is_const_int(sr->stride, 1)) return false;
    dst_base = dr->base;
    src_base = sr->base;
  } else if (!dst_base->type.is_scalar() || !src_base->type.is_scalar()) {
    return false;
  }
  const BufferValue& dst = buffer_value(op->buffer);
  const BufferValue& src = buffer_value(load->buffer);
  if (dst.ptr->getType()->getPointerAddressSpace() != kSharedAddressSpace ||
      src.ptr->getType()->getPointerAddressSpace() != kGlobalAddressSpace)
    return false;
  const Type elem = op->buffer->dtype;
  const int64_t bytes = element_bytes(elem), total = bytes * lanes;
  const int64_t aligned = std::min({vector_alignment(dst, dst_base, elem), vector_alignment(src, src_base, elem), int64_t(16)});
  int64_t chunk = 16;
  while (chunk > 4 && (chunk > aligned || total % chunk != 0)) chunk /= 2;
  if (chunk > aligned || total % chunk != 0 || chunk < bytes) return false;
  using llvm::Intrinsic::ID;
  const ID copy = chunk == 16 ? (in_range ? ID(llvm::Intrinsic::nvvm_cp_async_cg_shared_global_16_s)
                                          : ID(llvm::Intrinsic::nvvm_cp_async_cg_shared_global_16))
                  : chunk == 8 ? (in_range ? ID(llvm::Intrinsic::nvvm_cp_async_ca_shared_global_8_s)
                                           : ID(llvm::Intrinsic::nvvm_cp_async_ca_shared_global_8))
                               : (in_range ? ID(llvm::Intrinsic::nvvm_cp_async_ca_shared_global_4_s)
                                           : ID(llvm::Intrinsic::nvvm_cp_async_ca_shared_global_4));
  llvm::Type* elem_mem = memory_type(elem);
  Value* d = emit_index(dst_base);
  Value* s = emit_index(src_base);
  Value* src_size = in_range ? b_.CreateSelect(emit(in_range), b_.getInt32(uint32_t(chunk)), b_.getInt32(0)) : nullptr;
  for (int64_t at = 0; at < total / bytes; at += chunk / bytes) {
    Value* dp = b_.CreateInBoundsGEP(elem_mem, dst.ptr, b_.CreateAdd(d, b_.getInt64(uint64_t(at))));
    // past K the source address may lie past the buffer (an address, never read): no inbounds
    Value* si = b_.CreateAdd(s, b_.getInt64(uint64_t(at)));
    Value* sp = src_size ? b_.CreateGEP(elem_mem, src.ptr, si) : b_.CreateInBoundsGEP(elem_mem, src.ptr, si);
    if (src_size) b_.CreateIntrinsic(copy, {}, {dp, sp, src_size});
    else b_.CreateIntrinsic(copy, {}, {dp, sp});
  }
  return true;
}

// `void op(ptr addrspace(1)...)`, ptx_kernel: the base's entry with global pointers.
llvm::Function* CodeGenNVPTX::emit_function_entry(const LoweredFunc& func) {
  TEXC_CHECK(func.kind == FunctionKind::Device)
      << "host function " << func.name << " given to the NVPTX code generator (the cuda lowering makes device functions)";
  llvm::PointerType* global_ptr = llvm::PointerType::get(context_, kGlobalAddressSpace);
  std::vector<llvm::Type*> params(func.args.size(), global_ptr);
  auto* type = llvm::FunctionType::get(b_.getVoidTy(), params, false);
  llvm::Function* fn = create_function(type, llvm::GlobalValue::ExternalLinkage, op_symbol(func.name));
  fn->setCallingConv(llvm::CallingConv::PTX_Kernel);
  for (size_t i = 0; i < func.args.size(); ++i) {
    const Buffer& buffer = func.args[i];
    llvm::Argument* arg = fn->getArg(unsigned(i));
    arg->setName(buffer->name);
    arg->addAttr(llvm::Attribute::NoAlias);
    arg->addAttr(llvm::Attribute::NoCapture);
    arg->addAttr(llvm::Attribute::NoUndef);
    if (buffer->role == BufferRole::Input) arg->addAttr(llvm::Attribute::ReadOnly);
    if (auto elements = constant_elements(buffer); elements && *elements > 0)
      arg->addAttr(llvm::Attribute::getWithDereferenceableBytes(context_, uint64_t(*elements * element_bytes(buffer->dtype))));
    // Device pointers are 16-byte aligned (docs/cuda.md: cuMemAlloc gives 256), so a vector
    // access at an index that is a multiple of 16 bytes is one 128-bit ld.global.v4 / st.global.v4.
    arg->addAttr(llvm::Attribute::getWithAlignment(context_, llvm::Align(uint64_t(kGlobalArgAlignment))));
    buffers_[buffer.get()] = {arg, kGlobalArgAlignment};
  }
  if (std::optional<std::array<int64_t, 3>> block = constant_block(func.launch)) {
    const char* keys[] = {"maxntidx", "maxntidy", "maxntidz"};
    for (size_t a = 0; a < 3; ++a) {
      llvm::Metadata* annotation[] = {llvm::ValueAsMetadata::get(fn), llvm::MDString::get(context_, keys[a]),
                                      llvm::ConstantAsMetadata::get(b_.getInt32(uint32_t((*block)[a])))};
      module_->getOrInsertNamedMetadata("nvvm.annotations")->addOperand(llvm::MDNode::get(context_, annotation));
    }
  }
  dynamic_shared_ = nullptr;
  dynamic_shared_offset_ = 0;
  if (kernel_shared_bytes(func) > 0) {
    auto* type = llvm::ArrayType::get(b_.getInt8Ty(), 0);
    dynamic_shared_ = new llvm::GlobalVariable(*module_, type, false, llvm::GlobalValue::ExternalLinkage, nullptr,
                                               op_symbol(func.name) + "_dynamic_shared", nullptr,
                                               llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
    dynamic_shared_->setAlignment(llvm::Align(kSharedAlignment));
  }
  b_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", fn));
  return fn;
}

void CodeGenNVPTX::emit_parallel_loop(const For* op) {
  TEXC_UNREACHABLE() << "parallel loop '" << op->var->name << "' in kernel " << op_name_
                     << ": a GPU runs threads through thread-bound loops (the cuda lowering leaves no parallel loop)";
}

BufferValue CodeGenNVPTX::allocate_buffer(const Buffer& buffer, MemScope scope) {
  std::optional<int64_t> elements = constant_elements(buffer);
  TEXC_CHECK(elements && *elements >= 0) << "buffer '" << buffer->name << "' in kernel " << op_name_
                                         << " has no constant size (the cuda lowering gives kernel buffers constant sizes)";
  uint64_t bytes = uint64_t(std::max<int64_t>(*elements * element_bytes(buffer->dtype), 1));
  auto* type = llvm::ArrayType::get(b_.getInt8Ty(), bytes);
  if (scope == MemScope::Shared && dynamic_shared_) {
    Value* at = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), dynamic_shared_, uint64_t(dynamic_shared_offset_),
                                              buffer->name);
    dynamic_shared_offset_ += round_up(int64_t(bytes), kSharedAlignment);
    return {at, kSharedAlignment};
  }
  if (scope == MemScope::Shared) {
    auto* global = new llvm::GlobalVariable(*module_, type, false, llvm::GlobalValue::InternalLinkage,
                                            llvm::UndefValue::get(type), op_name_ + "." + buffer->name, nullptr,
                                            llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
    global->setAlignment(llvm::Align(kSharedAlignment));
    return {global, kSharedAlignment};
  }
  TEXC_CHECK(scope == MemScope::Local) << "global buffer '" << buffer->name << "' allocated inside kernel " << op_name_
                                       << ": a kernel can allocate only shared and local buffers";
  llvm::AllocaInst* local = entry_alloca(type, kLocalAlignment, buffer->name);
  b_.CreateLifetimeStart(local, b_.getInt64(bytes));
  return {local, kLocalAlignment};
}

void CodeGenNVPTX::free_buffer(const Buffer& buffer, MemScope scope, const BufferValue& allocated) {
  if (scope != MemScope::Local) return;
  uint64_t bytes = uint64_t(std::max<int64_t>(*constant_elements(buffer) * element_bytes(buffer->dtype), 1));
  b_.CreateLifetimeEnd(allocated.ptr, b_.getInt64(bytes));
}

Value* CodeGenNVPTX::thread_index(const std::string& tag) {
  static const std::map<std::string, llvm::Intrinsic::ID> registers = {
      {"threadIdx.x", llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x},
      {"threadIdx.y", llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y},
      {"threadIdx.z", llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z},
      {"blockIdx.x", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x},
      {"blockIdx.y", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y},
      {"blockIdx.z", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z},
  };
  auto it = registers.find(tag);
  TEXC_CHECK(it != registers.end()) << "thread tag '" << tag << "' in kernel " << op_name_
                                    << " has no special register (the cuda lowering expands vthread loops)";
  return b_.CreateIntrinsic(it->second, {}, {}, nullptr, tag);
}

void CodeGenNVPTX::emit_barrier() { b_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {}); }

Value* CodeGenNVPTX::emit_intrinsic(const Call* op) {
  std::optional<Intrinsic> which = intrinsic_of(op);
  if (which && *which == Intrinsic::ShuffleDown) return emit_shuffle_down(op);
  if (which && intrinsic_effect(*which) == IntrinsicEffect::WarpUpdate) return emit_mma(op);  // tensor cores
  if (which && *which == Intrinsic::LdMatrix) return emit_ldmatrix(op);
  if (which && (*which == Intrinsic::AsyncCopyCommit || *which == Intrinsic::AsyncCopyWait)) {
    if (sm_ >= 80) {
      if (*which == Intrinsic::AsyncCopyCommit) {
        b_.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_commit_group, {}, {});
      } else {
        int64_t pending = 0;
        TEXC_CHECK(op->args.size() == 1 && is_const_int(op->args[0], &pending))
            << "async_copy_wait takes a constant number of groups (op " << op_name_ << ")";
        b_.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_wait_group, {}, {b_.getInt32(uint32_t(pending))});
      }
    }
    return zero_of(value_type(op->type));
  }
  return CodeGenLLVM::emit_intrinsic(op);
}

// The warp's mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 (or m16n8k16...f16.f16 for f16)
// adding A . B into the lane's four accumulator elements in place (lower/gpu/MmaIntrinsics.h): the
// elements loaded through their pointers, passed as C, D stored back. TF32 operands are converted
// once each (cvt.rna); 3xTF32 adds small*big, big*small, then big*big (three mma); f16 operands go
// in pairs into .f16x2 registers (a0 a1, a2 a3, ...), bf16 ones likewise into b32 registers.
Value* CodeGenNVPTX::emit_mma(const Call* op) {
  std::optional<Intrinsic> which = intrinsic_of(op);
  const bool bf16 = *which == Intrinsic::MmaSyncBf16;
  const bool f16 = *which == Intrinsic::MmaSyncF16 || bf16;
  TEXC_CHECK(op->args.size() == (f16 ? 16u : 10u)) << op->name << " with " << op->args.size() << " arguments";
  ldmatrix_registers_.clear();
  std::vector<Value*> pointers, acc;
  for (size_t r = 0; r < 4; ++r) {
    const Load* element = op->args[r]->as<Load>();
    TEXC_CHECK(element) << "the accumulator arguments of " << op->name << " are buffer elements (op " << op_name_ << ")";
    pointers.push_back(emit(make_intrinsic_call(Intrinsic::AddressOf, Int(64), {op->args[r]})));
    acc.push_back(b_.CreateLoad(b_.getFloatTy(), pointers.back()));
  }
  auto mma = [&](llvm::Intrinsic::ID id, const std::vector<Value*>& a, const std::vector<Value*>& b) {
    std::vector<Value*> args(a);
    args.insert(args.end(), b.begin(), b.end());
    args.insert(args.end(), acc.begin(), acc.end());
    Value* d = b_.CreateIntrinsic(id, {}, args);
    for (unsigned i = 0; i < 4; ++i) acc[i] = b_.CreateExtractValue(d, {i});
  };
  if (f16) {
    auto* pair_type = llvm::FixedVectorType::get(bf16 ? b_.getBFloatTy() : b_.getHalfTy(), 2);
    std::vector<Value*> regs;
    for (size_t i = 4; i < 16; i += 2) {
      Value* pair = b_.CreateInsertElement(llvm::PoisonValue::get(pair_type), emit(op->args[i]), uint64_t(0));
      pair = b_.CreateInsertElement(pair, emit(op->args[i + 1]), uint64_t(1));
      regs.push_back(bf16 ? b_.CreateBitCast(pair, b_.getInt32Ty()) : pair);  // bf16 pairs: the intrinsic takes i32
    }
    mma(bf16 ? llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_bf16 : llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32,
        {regs.begin(), regs.begin() + 4}, {regs.begin() + 4, regs.end()});
  } else {
    auto tf32 = [&](Value* x) { return b_.CreateIntrinsic(llvm::Intrinsic::nvvm_f2tf32_rna, {}, {x}); };
    std::vector<Value*> big, small;  // a0..a3, b0, b1 in TF32
    for (size_t i = 4; i < 10; ++i) {
      Value* x = emit(op->args[i]);
      big.push_back(tf32(x));
      if (*which == Intrinsic::MmaSync3xTf32)
        small.push_back(tf32(b_.CreateFSub(x, b_.CreateBitCast(big.back(), b_.getFloatTy()))));
    }
    auto a_of = [](const std::vector<Value*>& v) { return std::vector<Value*>(v.begin(), v.begin() + 4); };
    auto b_of = [](const std::vector<Value*>& v) { return std::vector<Value*>(v.begin() + 4, v.end()); };
    if (!small.empty()) {  // the small products first, the big one last
      mma(llvm::Intrinsic::nvvm_mma_m16n8k8_row_col_tf32, a_of(small), b_of(big));
      mma(llvm::Intrinsic::nvvm_mma_m16n8k8_row_col_tf32, a_of(big), b_of(small));
    }
    mma(llvm::Intrinsic::nvvm_mma_m16n8k8_row_col_tf32, a_of(big), b_of(big));
  }
  for (size_t r = 0; r < 4; ++r) b_.CreateStore(acc[r], pointers[r]);
  return zero_of(value_type(op->type));
}

// ldmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16 from this lane's row start (lower/gpu/LdMatrix.h):
// N 32-bit registers, each bitcast to the element's type (f16 pairs, f32).
Value* CodeGenNVPTX::emit_ldmatrix(const Call* op) {
  const Load* row = op->args[0]->as<Load>();
  int64_t matrices = 0, trans = 0, reg = 0, unit = 0;
  TEXC_CHECK(row && row->indices.size() == 1 && is_const_int(op->args[1], &matrices) && is_const_int(op->args[2], &trans) &&
             is_const_int(op->args[3], &reg) && is_const_int(op->args[4], &unit))
      << "ldmatrix takes a Load and constant N, trans, register and element (op " << op_name_ << ")";
  std::vector<Value*>& regs = ldmatrix_registers_[row];
  if (regs.empty()) {
    const BufferValue& buffer = buffer_value(row->buffer);
    TEXC_CHECK(buffer.ptr->getType()->getPointerAddressSpace() == kSharedAddressSpace)
        << "ldmatrix from '" << row->buffer->name << "', which is not in shared memory (op " << op_name_ << ")";
    Value* start = b_.CreateInBoundsGEP(memory_type(row->buffer->dtype), buffer.ptr, emit_index(row->indices[0]));
    using llvm::Intrinsic::ID;
    const ID plain[] = {llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x1_b16, llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x2_b16,
                        llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_b16};
    const ID transposed[] = {llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x1_trans_b16,
                             llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x2_trans_b16,
                             llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_trans_b16};
    const size_t which = matrices == 1 ? 0 : matrices == 2 ? 1 : 2;
    Value* loaded = b_.CreateIntrinsic(trans ? transposed[which] : plain[which], {start->getType()}, {start});
    for (unsigned m = 0; m < unsigned(matrices); ++m) regs.push_back(matrices == 1 ? loaded : b_.CreateExtractValue(loaded, {m}));
  }
  Value* word = regs.at(size_t(reg));
  if (op->type == Float(32)) return b_.CreateBitCast(word, b_.getFloatTy());
  llvm::Type* elem = value_type(op->type);
  Value* units = b_.CreateBitCast(word, llvm::FixedVectorType::get(elem, 2));
  return b_.CreateExtractElement(units, uint64_t(unit));
}

// shfl.sync.down.b32 with every lane of the warp taking part.
Value* CodeGenNVPTX::shuffle_down_i32(Value* value, Value* offset) {
  return b_.CreateIntrinsic(llvm::Intrinsic::nvvm_shfl_sync_down_i32, {},
                            {b_.getInt32(0xffffffffu), value, offset, b_.getInt32(31)});
}

Value* CodeGenNVPTX::emit_shuffle_down(const Call* op) {
  TEXC_CHECK(op->args.size() == 2) << "shuffle_down takes a value and an offset";
  Type t = op->args[0]->type;
  TEXC_CHECK(t.is_scalar()) << "shuffle_down of a vector (" << t.str() << ") in kernel " << op_name_;
  Value* value = emit(op->args[0]);
  Value* offset = b_.CreateIntCast(emit(op->args[1]), b_.getInt32Ty(), op->args[1]->type.is_int());
  int bits = t.is_bool() ? 1 : t.bits;
  llvm::Type* type = value->getType();
  if (bits == 32) {
    Value* as_int = type->isIntegerTy() ? value : b_.CreateBitCast(value, b_.getInt32Ty());
    Value* shuffled = shuffle_down_i32(as_int, offset);
    return type->isIntegerTy() ? shuffled : b_.CreateBitCast(shuffled, type);
  }
  if (bits == 64) {
    auto* halves_type = llvm::FixedVectorType::get(b_.getInt32Ty(), 2);
    Value* halves = b_.CreateBitCast(value, halves_type);
    Value* low = shuffle_down_i32(b_.CreateExtractElement(halves, uint64_t(0)), offset);
    Value* high = shuffle_down_i32(b_.CreateExtractElement(halves, uint64_t(1)), offset);
    Value* result = b_.CreateInsertElement(llvm::PoisonValue::get(halves_type), low, uint64_t(0));
    result = b_.CreateInsertElement(result, high, uint64_t(1));
    return b_.CreateBitCast(result, type);
  }
  TEXC_CHECK(bits < 32) << "shuffle_down of " << t.str() << " in kernel " << op_name_;
  llvm::Type* narrow_int = b_.getIntNTy(unsigned(bits));
  Value* as_int = type->isIntegerTy() ? value : b_.CreateBitCast(value, narrow_int);
  Value* shuffled = shuffle_down_i32(b_.CreateZExt(as_int, b_.getInt32Ty()), offset);
  Value* narrowed = b_.CreateTrunc(shuffled, narrow_int);
  return type->isIntegerTy() ? narrowed : b_.CreateBitCast(narrowed, type);
}

// log(x) = lg2.approx(x) * ln 2, lane by lane for vectors.
Value* CodeGenNVPTX::log_f32(Value* x) {
  auto scalar_log = [&](Value* v) {
    Value* lg2 = b_.CreateIntrinsic(llvm::Intrinsic::nvvm_lg2_approx_f, {}, {v});
    return b_.CreateFMul(lg2, llvm::ConstantFP::get(b_.getFloatTy(), 0.69314718055994531));
  };
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(x->getType());
  if (!vt) return scalar_log(x);
  Value* result = llvm::PoisonValue::get(vt);
  for (unsigned i = 0; i < vt->getNumElements(); ++i)
    result = b_.CreateInsertElement(result, scalar_log(b_.CreateExtractElement(x, uint64_t(i))), uint64_t(i));
  return result;
}

Value* CodeGenNVPTX::emit_f32_math(const std::string& name, const std::vector<Value*>& args) {
  llvm::Type* type = args[0]->getType();
  Value* one = llvm::ConstantFP::get(type, 1.0);
  if (name == "exp") return exp_f32_polynomial(b_, args[0]);
  if (name == "tanh") return tanh_f32_polynomial(b_, args[0]);
  if (name == "sigmoid") return b_.CreateFDiv(one, b_.CreateFAdd(one, exp_f32_polynomial(b_, b_.CreateFNeg(args[0]))));
  if (name == "log") return log_f32(args[0]);
  TEXC_CHECK(name == "pow") << "math function " << name;
  return exp_f32_polynomial(b_, b_.CreateFMul(args[1], log_f32(args[0])));
}

// f64: Cephes' exp, log and tanh (MathLLVM.h); sigmoid and pow built on them.
Value* CodeGenNVPTX::emit_f64_math(const std::string& name, const std::vector<Value*>& args) {
  llvm::Type* type = args[0]->getType();
  Value* one = llvm::ConstantFP::get(type, 1.0);
  if (name == "exp") return exp_f64_polynomial(b_, args[0]);
  if (name == "tanh") return tanh_f64_polynomial(b_, args[0]);
  if (name == "sigmoid") return b_.CreateFDiv(one, b_.CreateFAdd(one, exp_f64_polynomial(b_, b_.CreateFNeg(args[0]))));
  if (name == "log") return log_f64_polynomial(b_, args[0]);
  TEXC_CHECK(name == "pow") << "math function " << name;
  return exp_f64_polynomial(b_, b_.CreateFMul(args[1], log_f64_polynomial(b_, args[0])));
}

// libdevice's __nv_NAMEf (f32) or __nv_NAME (f64), lane by lane for vectors; link_libdevice brings
// in the definitions after code generation.
Value* CodeGenNVPTX::emit_libdevice_call(const std::string& name, const std::vector<Value*>& args) {
  llvm::Type* type = args[0]->getType();
  llvm::Type* scalar_type = type->getScalarType();
  std::string symbol = "__nv_" + name + (scalar_type->isFloatTy() ? "f" : "");
  std::vector<llvm::Type*> params(args.size(), scalar_type);
  llvm::FunctionCallee fn = module_->getOrInsertFunction(symbol, llvm::FunctionType::get(scalar_type, params, false));
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(type);
  if (!vt) return b_.CreateCall(fn, args);
  Value* result = llvm::PoisonValue::get(vt);
  for (unsigned i = 0; i < vt->getNumElements(); ++i) {
    std::vector<Value*> lane;
    for (Value* a : args) lane.push_back(b_.CreateExtractElement(a, uint64_t(i)));
    result = b_.CreateInsertElement(result, b_.CreateCall(fn, lane), uint64_t(i));
  }
  return result;
}

Value* CodeGenNVPTX::emit_math(const Call* op, const std::vector<Value*>& args) {
  const std::string& name = op->name;
  // f16 and bf16 math is computed in f32 and rounded back (there is no f16 libdevice or polynomial).
  auto in_f32 = [&](const std::function<Value*(const std::vector<Value*>&)>& f32_math) {
    if (op->type.is_bfloat()) {
      std::vector<Value*> widened;
      for (Value* a : args) widened.push_back(bfloat_to_f32(b_, a));
      return f32_to_bfloat(b_, f32_math(widened));
    }
    llvm::Type* half_type = args[0]->getType();
    llvm::Type* f32_type = b_.getFloatTy();
    if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(half_type))
      f32_type = llvm::FixedVectorType::get(b_.getFloatTy(), vt->getNumElements());
    std::vector<Value*> widened;
    for (Value* a : args) widened.push_back(b_.CreateFPExt(a, f32_type));
    return b_.CreateFPTrunc(f32_math(widened), half_type);
  };
  if (is_libdevice_math_function(name) && op->type.is_float()) {
    if (op->type.bits != 16) return emit_libdevice_call(name, args);
    return in_f32([&](const std::vector<Value*>& a) { return emit_libdevice_call(name, a); });
  }
  bool needs_libm = name == "exp" || name == "log" || name == "tanh" || name == "sigmoid" || name == "pow";
  Type t = op->type;
  if (!needs_libm || !t.is_float()) return CodeGenLLVM::emit_math(op, args);
  if (t.bits == 64) return emit_f64_math(name, args);
  if (t.bits == 32) return emit_f32_math(name, args);
  return in_f32([&](const std::vector<Value*>& a) { return emit_f32_math(name, a); });
}

std::unique_ptr<llvm::Module> codegen_nvptx(const std::vector<LoweredFunc>& funcs, llvm::LLVMContext& context,
                                            llvm::TargetMachine& target_machine) {
  CodeGenNVPTX codegen(context, target_machine, funcs.empty() ? "texc" : funcs[0].name);
  for (const LoweredFunc& func : funcs) codegen.add_function(func);
  return codegen.finish();
}

}  // namespace texc

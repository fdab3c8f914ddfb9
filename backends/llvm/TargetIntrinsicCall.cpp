#include "backends/llvm/TargetIntrinsicCall.h"

#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Intrinsics.h>

#include "backends/llvm/CpuTargetMachine.h"
#include "backends/llvm/LLVMBackend.h"

namespace texc {

namespace {

/// One overload type of a mangled intrinsic name: "i32", "f32", "v16i8", "v4f32"; null if not one.
llvm::Type* parse_overload_type(llvm::LLVMContext& ctx, const std::string& s) {
  size_t pos = 0;
  unsigned lanes = 0;
  if (!s.empty() && s[0] == 'v') {
    pos = 1;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) lanes = lanes * 10 + unsigned(s[pos++] - '0');
    if (lanes == 0) return nullptr;
  }
  if (pos >= s.size()) return nullptr;
  char kind = s[pos];
  std::string bits_text = s.substr(pos + 1);
  if (bits_text.empty() || bits_text.find_first_not_of("0123456789") != std::string::npos) return nullptr;
  unsigned bits = unsigned(std::stoul(bits_text));
  llvm::Type* scalar = nullptr;
  if (kind == 'i') scalar = llvm::IntegerType::get(ctx, bits);
  else if (kind == 'f' && bits == 32) scalar = llvm::Type::getFloatTy(ctx);
  else if (kind == 'f' && bits == 64) scalar = llvm::Type::getDoubleTy(ctx);
  if (!scalar) return nullptr;
  return lanes ? llvm::FixedVectorType::get(scalar, lanes) : scalar;
}

[[noreturn]] void fail(const std::string& op, const std::string& name, const std::string& why) {
  throw TargetOptionError("op '" + op + "' tensorizes with the LLVM intrinsic '" + name + "': " + why);
}

llvm::Function* declaration(llvm::Module& module, const std::string& name, const std::string& op) {
  llvm::Intrinsic::ID id = llvm::Function::lookupIntrinsicID(name);
  if (id == llvm::Intrinsic::not_intrinsic) fail(op, name, "LLVM 19 has no intrinsic of that name");
  std::vector<llvm::Type*> overloads;
  if (llvm::Intrinsic::isOverloaded(id)) {
    std::string base = llvm::Intrinsic::getBaseName(id).str();
    std::string rest = name.size() > base.size() ? name.substr(base.size() + 1) : "";
    size_t start = 0;
    while (start < rest.size()) {
      size_t dot = std::min(rest.find('.', start), rest.size());
      std::string part = rest.substr(start, dot - start);
      llvm::Type* t = parse_overload_type(module.getContext(), part);
      if (!t) fail(op, name, std::string("'").append(part).append("' is not an overload type (write e.g. v4i32)"));
      overloads.push_back(t);
      start = dot + 1;
    }
  }
  llvm::Function* fn = llvm::Intrinsic::getDeclaration(&module, id, overloads);
  if (fn->getName() != name)
    fail(op, name, "its types do not spell an overload of '" + llvm::Intrinsic::getBaseName(id).str() + "' (LLVM names it '" +
                       fn->getName().str() + "')");
  return fn;
}

/// The operand's region loaded as `type` (reinterpreted when the sizes agree, repeated when the
/// region's size divides the type's), and the load that reads it.
std::pair<llvm::Value*, llvm::LoadInst*> load_as(llvm::IRBuilder<>& b, const llvm::DataLayout& layout,
                                                 const TargetIntrinsicOperand& operand, llvm::Type* type,
                                                 const std::string& op, const std::string& name, size_t position) {
  uint64_t want = layout.getTypeStoreSize(type);
  uint64_t have = uint64_t(operand.count) * layout.getTypeStoreSize(operand.element);
  if (have == want) {
    llvm::LoadInst* load = b.CreateAlignedLoad(type, operand.address, llvm::Align(1));
    return {load, load};
  }
  if (have == 0 || want % have != 0 || !type->isVectorTy())
    fail(op, name, "argument " + std::to_string(position + 1) + " is " + std::to_string(want) +
                       " bytes, which the operand's region of " + std::to_string(have) + " bytes does not fill");
  llvm::Type* chunk = llvm::IntegerType::get(b.getContext(), unsigned(have * 8));
  llvm::LoadInst* load = b.CreateAlignedLoad(chunk, operand.address, llvm::Align(1));
  llvm::Value* repeated = b.CreateVectorSplat(unsigned(want / have), load);
  return {b.CreateBitCast(repeated, type), load};
}

}  // namespace

std::vector<std::pair<llvm::Instruction*, size_t>> emit_target_intrinsic_call(
    llvm::IRBuilder<>& b, llvm::Module& module, const std::string& name,
    const std::vector<TargetIntrinsicOperand>& operands, const std::string& op) {
  llvm::Function* fn = declaration(module, name, op);
  llvm::FunctionType* type = fn->getFunctionType();
  size_t params = type->getNumParams();
  if (params != operands.size() && params + 1 != operands.size())
    fail(op, name, "it takes " + std::to_string(params) + " arguments but the intrinsic has " +
                       std::to_string(operands.size()) + " operands (output and inputs)");
  size_t first = operands.size() - params;  // 0: the output is the accumulator argument
  const TargetIntrinsicOperand& out = operands.front();
  const llvm::DataLayout& layout = module.getDataLayout();
  uint64_t out_bytes = uint64_t(out.count) * layout.getTypeStoreSize(out.element);
  if (layout.getTypeStoreSize(type->getReturnType()) != out_bytes)
    fail(op, name, "it returns " + std::to_string(layout.getTypeStoreSize(type->getReturnType())) +
                       " bytes but the output's region is " + std::to_string(out_bytes) + " bytes");
  std::vector<std::pair<llvm::Instruction*, size_t>> accesses;
  std::vector<llvm::Value*> args;
  for (size_t i = 0; i < params; ++i) {
    auto [value, load] = load_as(b, layout, operands[first + i], type->getParamType(unsigned(i)), op, name, i);
    args.push_back(value);
    accesses.push_back({load, first + i});
  }
  llvm::Value* result = b.CreateCall(fn, args);
  note_target_intrinsic_call(name);
  accesses.push_back({b.CreateAlignedStore(result, out.address, llvm::Align(1)), 0});
  return accesses;
}

}  // namespace texc

#include "backends/llvm/BFloatLLVM.h"

namespace texc {

namespace {

/// `scalar` with the lane count of `like` (a vector type) or `scalar` itself.
llvm::Type* like_lanes(llvm::Type* like, llvm::Type* scalar) {
  if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(like)) return llvm::FixedVectorType::get(scalar, vt->getNumElements());
  return scalar;
}

}  // namespace

llvm::Value* bfloat_to_f32(llvm::IRBuilder<>& b, llvm::Value* v) {
  llvm::Type* t = v->getType();
  llvm::Value* bits = b.CreateZExt(b.CreateBitCast(v, like_lanes(t, b.getInt16Ty())), like_lanes(t, b.getInt32Ty()));
  return b.CreateBitCast(b.CreateShl(bits, 16), like_lanes(t, b.getFloatTy()));
}

llvm::Value* f32_to_bfloat(llvm::IRBuilder<>& b, llvm::Value* v) {
  llvm::Type* t = v->getType();
  llvm::Type* i32 = like_lanes(t, b.getInt32Ty());
  auto c32 = [&](uint32_t x) { return llvm::ConstantInt::get(i32, x); };
  llvm::Value* bits = b.CreateBitCast(v, i32);
  // Round to nearest, ties to even: add 0x7fff plus the lowest kept bit, then drop the low half.
  llvm::Value* kept_lsb = b.CreateAnd(b.CreateLShr(bits, 16), c32(1));
  llvm::Value* rounded = b.CreateLShr(b.CreateAdd(bits, b.CreateAdd(kept_lsb, c32(0x7fff))), 16);
  llvm::Value* quiet_nan = b.CreateOr(b.CreateLShr(bits, 16), c32(0x40));
  llvm::Value* is_nan = b.CreateFCmpUNO(v, v);
  llvm::Value* result = b.CreateSelect(is_nan, quiet_nan, rounded);
  return b.CreateBitCast(b.CreateTrunc(result, like_lanes(t, b.getInt16Ty())), like_lanes(t, b.getBFloatTy()));
}

}  // namespace texc

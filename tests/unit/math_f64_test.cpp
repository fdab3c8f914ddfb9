// The f64 exp, log and tanh that the cuda code generator uses (backends/llvm/MathLLVM.h; NVPTX has
// no libm), and sigmoid and pow built as CodeGenNVPTX builds them, compiled for this host through
// ORC's LLJIT and compared with the C library on scalars and on <2 x double> vectors: the same LLVM
// IR that NVPTX compiles, minus the target.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/TargetSelect.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "backends/llvm/MathLLVM.h"

namespace {

using llvm::Value;
using Emit = std::function<Value*(llvm::IRBuilder<>&, Value*, Value*)>;

struct MathFunction {
  const char* name;
  Emit emit;
};

const std::vector<MathFunction>& functions() {
  static const std::vector<MathFunction> list = {
      {"exp", [](llvm::IRBuilder<>& b, Value* x, Value*) { return texc::exp_f64_polynomial(b, x); }},
      {"log", [](llvm::IRBuilder<>& b, Value* x, Value*) { return texc::log_f64_polynomial(b, x); }},
      {"tanh", [](llvm::IRBuilder<>& b, Value* x, Value*) { return texc::tanh_f64_polynomial(b, x); }},
      {"sigmoid",
       [](llvm::IRBuilder<>& b, Value* x, Value*) {
         Value* one = llvm::ConstantFP::get(x->getType(), 1.0);
         return b.CreateFDiv(one, b.CreateFAdd(one, texc::exp_f64_polynomial(b, b.CreateFNeg(x))));
       }},
      {"pow",
       [](llvm::IRBuilder<>& b, Value* x, Value* y) {
         return texc::exp_f64_polynomial(b, b.CreateFMul(y, texc::log_f64_polynomial(b, x)));
       }},
  };
  return list;
}

using Scalar = double (*)(double, double);
using Pair = void (*)(const double*, const double*, double*);  // two lanes at once

/// Every function as `double NAME(double x, double y)` and `void NAME_v2(x[2], y[2], out[2])`.
class Jit {
 public:
  Jit() {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    auto context = std::make_unique<llvm::LLVMContext>();
    auto module = std::make_unique<llvm::Module>("math_f64", *context);
    llvm::IRBuilder<> b(*context);
    llvm::FastMathFlags contract;  // as CodeGenLLVM's builder: a*b+c may become an FMA
    contract.setAllowContract(true);
    b.setFastMathFlags(contract);
    llvm::Type* f64 = b.getDoubleTy();
    llvm::Type* v2 = llvm::FixedVectorType::get(f64, 2);
    llvm::PointerType* ptr = llvm::PointerType::get(*context, 0);
    for (const MathFunction& m : functions()) {
      auto* scalar = llvm::Function::Create(llvm::FunctionType::get(f64, {f64, f64}, false),
                                            llvm::GlobalValue::ExternalLinkage, m.name, *module);
      b.SetInsertPoint(llvm::BasicBlock::Create(*context, "entry", scalar));
      b.CreateRet(m.emit(b, scalar->getArg(0), scalar->getArg(1)));
      auto* pair = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr, ptr}, false),
                                          llvm::GlobalValue::ExternalLinkage, std::string(m.name) + "_v2", *module);
      b.SetInsertPoint(llvm::BasicBlock::Create(*context, "entry", pair));
      Value* x = b.CreateLoad(v2, pair->getArg(0));
      Value* y = b.CreateLoad(v2, pair->getArg(1));
      b.CreateStore(m.emit(b, x, y), pair->getArg(2));
      b.CreateRetVoid();
    }
    auto jit = llvm::orc::LLJITBuilder().create();
    REQUIRE(bool(jit));
    jit_ = std::move(*jit);
    REQUIRE(!jit_->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context))));
  }
  template <typename F>
  F lookup(const std::string& name) {
    auto address = jit_->lookup(name);
    REQUIRE(bool(address));
    return address->toPtr<F>();
  }

 private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;
};

Jit& jit() {
  static Jit j;
  return j;
}

/// The error in units of the last place of `want` (0 when both are the same NaN or infinity).
double ulps(double got, double want) {
  if (std::isnan(want)) return std::isnan(got) ? 0 : INFINITY;
  if (std::isinf(want) || want == 0) return got == want ? 0 : std::fabs(got - want) / std::numeric_limits<double>::denorm_min();
  double ulp = std::nextafter(std::fabs(want), INFINITY) - std::fabs(want);
  return std::fabs(got - want) / ulp;
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

/// The worst error of `name` against `reference` over x in [lo, hi] (and y in [ylo, yhi]), scalars
/// and pairs.
double worst_ulps(const std::string& name, double (*reference)(double, double), double lo, double hi, double ylo = 0,
                  double yhi = 0) {
  Scalar scalar = jit().lookup<Scalar>(name);
  Pair pair = jit().lookup<Pair>(name + "_v2");
  double worst = 0;
  const int n = 20000;
  for (int i = 0; i < n; i += 2) {
    double x[2], y[2], out[2];
    for (int k = 0; k < 2; ++k) {
      x[k] = lo + (hi - lo) * double(i + k) / (n - 1);
      y[k] = ylo + (yhi - ylo) * double((i + k) * 7919 % n) / (n - 1);
    }
    pair(x, y, out);
    for (int k = 0; k < 2; ++k) {
      double want = reference(x[k], y[k]);
      double e = std::max(ulps(scalar(x[k], y[k]), want), ulps(out[k], want));
      if (e > worst) worst = e;
    }
  }
  return worst;
}

}  // namespace

TEST_CASE("f64 exp, log and tanh without libm agree with the C library within a few ulp") {
  auto exp_ = [](double x, double) { return std::exp(x); };
  auto log_ = [](double x, double) { return std::log(x); };
  auto tanh_ = [](double x, double) { return std::tanh(x); };
  CHECK(worst_ulps("exp", exp_, -20, 20) <= 3);
  CHECK(worst_ulps("exp", exp_, -700, 709) <= 2);
  CHECK(worst_ulps("log", log_, 1e-6, 10) <= 2);
  CHECK(worst_ulps("log", log_, 0.5, 2) <= 2);
  CHECK(worst_ulps("log", log_, 1e-300, 1e300) <= 2);
  CHECK(worst_ulps("tanh", tanh_, -1, 1) <= 3);
  CHECK(worst_ulps("tanh", tanh_, -30, 30) <= 3);
  // sigmoid's 1 + e^-x and pow's y log x add the rounding of an intermediate.
  CHECK(worst_ulps("sigmoid", [](double x, double) { return sigmoid(x); }, -40, 40) <= 4);
  CHECK(worst_ulps("pow", [](double x, double y) { return std::pow(x, y); }, 0.01, 10, -4, 4) <= 64);
}

TEST_CASE("f64 exp, log and tanh at the edges: infinities, zeros, subnormals, NaN") {
  Scalar exp_ = jit().lookup<Scalar>("exp");
  Scalar log_ = jit().lookup<Scalar>("log");
  Scalar tanh_ = jit().lookup<Scalar>("tanh");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(exp_(710, 0) == INFINITY);
  CHECK(exp_(INFINITY, 0) == INFINITY);
  CHECK(exp_(-746, 0) == 0);
  CHECK(exp_(-INFINITY, 0) == 0);
  CHECK(ulps(exp_(-740, 0), std::exp(-740.0)) <= 2);  // a subnormal result
  CHECK(std::isnan(exp_(nan, 0)));
  CHECK(log_(0, 0) == -INFINITY);
  CHECK(std::isnan(log_(-1, 0)));
  CHECK(log_(INFINITY, 0) == INFINITY);
  CHECK(ulps(log_(4.9e-324, 0), std::log(4.9e-324)) <= 2);  // the smallest subnormal
  CHECK(ulps(log_(1e-310, 0), std::log(1e-310)) <= 2);
  CHECK(log_(1, 0) == 0);
  CHECK(std::isnan(log_(nan, 0)));
  CHECK(tanh_(INFINITY, 0) == 1);
  CHECK(tanh_(-INFINITY, 0) == -1);
  CHECK(tanh_(1e-300, 0) == 1e-300);
  CHECK(std::isnan(tanh_(nan, 0)));
}

// TargetIntrinsicCall: the code of a `lower llvm "llvm.ARCH.NAME"` intrinsic (language.md
// "Tensorize"): a call of an LLVM target intrinsic on vectors loaded from tensor regions.
//
// Tensorize leaves Call(i32, "llvm.NAME", {address_of(out), n_out, address_of(in1), n_in1, ...},
// Extern): the output's first element and element count, then each input's. The LLVM intrinsic's
// arguments are taken by position: when it has one argument per operand, the output's current
// value comes first (the accumulator); with one fewer, only the inputs are passed. Each argument
// is loaded from its operand's region as the intrinsic's argument type: a region of exactly that
// many bytes is reinterpreted as is; a smaller region whose size divides it is repeated to fill it
// (a broadcast, e.g. 4 bytes of activations to all 16 lanes of vpdpbusd). The result (of the
// output region's size) is stored over the output. Nothing here knows any particular intrinsic.
//
// Errors (TargetOptionError): a name that is no LLVM intrinsic, an overloaded one whose name does
// not spell its types, argument counts or sizes that do not fit. An instruction the target CPU
// lacks is found by LLVM's instruction selection (CpuTargetMachine.cpp reports it).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

namespace texc {

/// One operand of the call: its first element's address, element type and element count.
struct TargetIntrinsicOperand {
  llvm::Value* address;
  llvm::Type* element;
  int64_t count;
};

/// Emits the call of LLVM intrinsic `name` on `operands` (output first) and the store of its result;
/// `op` names the op in messages. Returns the loads and the store it emitted, each with the index of
/// its operand (for the caller's alias metadata).
std::vector<std::pair<llvm::Instruction*, size_t>> emit_target_intrinsic_call(llvm::IRBuilder<>& b, llvm::Module& module, const std::string& name,
                                const std::vector<TargetIntrinsicOperand>& operands, const std::string& op);

}  // namespace texc

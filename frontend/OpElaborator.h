// Elaboration of one op (or intrinsic) into an OpDef: the heart of semantic analysis.
//
// Binds the signature (tensor parameters' dimensions bind dimension variables; int attributes take
// call arguments, -D values or defaults), walks the compute block in order (sizes, tensor
// definitions with extent inference and out-of-bounds checks, calls of other ops expanded into
// stages), checks the outputs, and checks the schedule blocks against the resulting stages.
//
// A call `Y = conv2d(X, W, pad = 1)` checks the arguments, elaborates the callee with its dimension
// variables bound by unifying its parameter shapes with the arguments' shapes, and copies the
// callee's stages and schedule blocks into the caller (frontend/OpCallExpansion.h: renaming,
// buffers, carried schedules). A carried schedule block is dropped when the caller's own schedule
// for an overlapping target names one of the stages that call created.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "frontend/Ast.h"
#include "frontend/DefineValue.h"
#include "frontend/ExprElaborator.h"
#include "frontend/Scope.h"
#include "ir/Op.h"

namespace texc {

/// What every op can see: the declarations of all loaded files and the params' values.
struct ProgramSymbols {
  std::map<std::string, const ast::OpDecl*> ops;         // the ops (not intrinsics) the main file sees
  std::map<uint32_t, std::map<std::string, const ast::OpDecl*>> file_ops;  // by file id: the ops it sees
  std::map<std::string, const ast::OpDecl*> intrinsic_decls;
  std::map<std::string, IntrinsicDef> intrinsics;        // elaborated
  CallableNames callables;
  std::map<uint32_t, Scope> file_scopes;                 // by file id: the params an op of that file sees
  std::string stdlib_dir;                                // for "add `import nn.activation`" hints
};

class OpElaborator {
 public:
  /// `defines` (-D) bind the dimension variables and attributes of entry ops. `target` (the
  /// --target being compiled for, "" for none) selects the ops' `compute TARGET` implementations:
  /// with "" every op is its definition (what the reference interpreter evaluates).
  OpElaborator(const ProgramSymbols& program, const std::map<std::string, DefineValue>& defines,
               const std::string& target = "")
      : program_(program), defines_(defines), target_(target) {}

  /// An entry op: every dimension must be known from literals, params, defaults or -D.
  OpDef entry(const ast::OpDecl& decl);
  /// A declared intrinsic (its pattern is elaborated like an entry op without schedules).
  IntrinsicDef intrinsic(const ast::OpDecl& decl);

 private:
  struct CallSite;
  struct OpState;

  OpDef elaborate(const ast::OpDecl& decl, const CallSite* call);
  /// The op called `name` in the ops of file `file` (its own, else one it imports); null if none.
  const ast::OpDecl* visible_op(uint32_t file, const std::string& name) const;
  OpDef elaborate_compute(const ast::OpDecl& decl, const CallSite* call, const ast::ComputeVariant* variant);
  void bind_signature(const ast::OpDecl& decl, const CallSite* call, OpState& state);
  void size_definition(const ast::Assign& assign, OpState& state);
  void tensor_definition(const ast::TensorDef& def, OpState& state);
  void op_call(const ast::Assign& assign, const ast::Call& call, OpState& state);
  [[noreturn]] void unknown_op(const ast::Call& call) const;
  /// The input domains of a called op (`callee`, elaborated) that hold for inputs of this op
  /// passed to it whole, unless this op declares its own (frontend/InputDomain.h).
  void inherit_input_domains(const OpDef& callee, OpState& state) const;
  void check_outputs(const ast::OpDecl& decl, OpState& state);
  void schedules(const ast::OpDecl& decl, const ast::ComputeVariant* variant, OpState& state);

  const ProgramSymbols& program_;
  const std::map<std::string, DefineValue>& defines_;
  std::string target_;
  struct Caller {
    std::string name;
    SourceLoc loc;  // of its name: which op, when ops of two files share a name
  };
  std::vector<Caller> call_stack_;  // the callers of the op being elaborated, outermost first
};

}  // namespace texc

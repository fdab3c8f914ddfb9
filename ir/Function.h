// A lowered op: a loop AST over its argument buffers. The unit that backends compile and the
// loop interpreter executes. Arguments are the op's inputs then its outputs (the C signature).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/IR.h"

namespace texc {

/// Where a lowered function runs: on the host (a CPU op; the default) or on a device (a GPU
/// kernel, started by a host function with its LaunchAttributes).
enum class FunctionKind : uint8_t { Host, Device };

/// How a device function is launched: the extent of each thread tag it binds ("blockIdx.x" is a
/// grid extent, "threadIdx.x" a block extent; a tag not listed has extent 1), and the shared memory
/// allocated per block at launch beyond the function's own constant-size shared buffers.
struct LaunchAttributes {
  struct ThreadExtent {
    std::string tag;
    Expr extent;
  };
  std::vector<ThreadExtent> thread_extents;
  int64_t dynamic_shared_bytes = 0;
  /// The outputs (argument names, in argument order) that must hold zeros when the kernel starts:
  /// its blocks add their partial results into them atomically (split-K,
  /// lower/gpu/CrossBlockReduction.h). The host fills them before each launch.
  std::vector<std::string> zeroed_outputs = {};
};

/// An attribute of an op as compiled: `stride: int = 2` or `eps: f32 = 1e-5`. Attributes are
/// compile-time constants, folded into the code; the C header defines OP_ATTR_NAME to each value.
struct AttributeValue {
  std::string name;
  Type type;         // Index() for an int attribute, else the declared float type
  std::string text;  // the value as C source: "2", "1e-05" (the double that the source's value gives)
};

struct LoweredFunc {
  std::string name;
  std::vector<Buffer> args;  // inputs (role Input) then outputs (role Output)
  Stmt body;
  /// The logical (multi-dimensional) shape of each argument. After storage flattening the args
  /// are 1-D; these keep what the C header documents.
  std::vector<std::vector<int64_t>> arg_dims;
  FunctionKind kind = FunctionKind::Host;
  LaunchAttributes launch = {};  // device functions only
  /// Comment lines the C header prints with the function (how the two halves of an op with
  /// `const` inputs are called: tools/driver/LowerForTarget.h).
  std::vector<std::string> doc = {};
  std::vector<AttributeValue> attributes = {};  // the op's attributes, in parameter order
  /// The host entry of a graph of kernels (docs/graph.md): the bytes of the workspace arena it
  /// allocates on each call for the intermediates (the header's OP_WORKSPACE_BYTES; its
  /// `<op>_with_workspace` takes them from the caller, ir/CallerWorkspace.h); 0 otherwise.
  int64_t workspace_bytes = 0;
  /// The target it was lowered for when that is not the module's: a host function of an op
  /// compiled for vdla as a graph of VDLA and host kernels (tools/driver/VdlaGraph.h); "" otherwise.
  std::string target = {};
};

}  // namespace texc

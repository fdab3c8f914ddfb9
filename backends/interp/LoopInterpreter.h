// LoopInterpreter: executes a loop AST (an ir::LoweredFunc) on host tensors — the `interp` target,
// and the way tests check lowering apart from any code generator.
//
// Every node that can appear in a loop AST is executed: For of every kind runs serially
// (parallel, vectorized, unrolled, thread-bound and vthread loops are plain loops); Store and Load
// with any number of indices on argument or Allocate'd buffers of any scope (an Allocate's shape
// is evaluated when it is entered; its contents start as NaN / 0xA5 bytes so reads of unwritten
// elements show up); Seq, IfThenElse, LetStmt, Let, Select (only the chosen branch), Cast, Math
// calls, Extern calls (ExternRegistry.h, `address_of(Load)` arguments passed as element pointers),
// Ramp/Broadcast and vector Loads/Stores (evaluated lane by lane; a vector Store evaluates every
// lane of its value before storing), and Block (iter vars bound to their bindings, guarded by the
// predicate, init run when every reduction iter var is at its domain's min) so that a scheduled
// AST can run before lower_blocks.
//
// Values: integers in int64, wrapped to the node type's width after every operation; floats in
// double, rounded to f32/f16 after every operation of that type, so results follow compiled code.
//
// The AST is compiled once (constructor) into a tree of closures with variables resolved to frame
// slots and buffers to pointers; run() then executes without any map look-up. Every Load and Store
// is checked against its buffer's shape: an out-of-bounds access, a variable used outside its
// binding, or an integer division by zero throws InterpError naming the buffer, the index and the
// extent. Nothing in a LoweredFunc makes it crash.
#pragma once
#include <memory>
#include <vector>

#include "backends/interp/Tensor.h"
#include "ir/Function.h"

namespace texc {

/// Watches a run of the loop interpreter (cuda-interp's race detector, CudaInterpreter.h). While
/// the interpreter compiles, it asks which buffers and pragmas the observer watches; while it runs,
/// it reports each access of a watched buffer and each entry into a watched pragma. Unwatched
/// buffers and pragmas cost nothing; nothing the observer does changes what the code computes
/// (it may throw InterpError to stop the run).
class LoopObserver {
 public:
  virtual ~LoopObserver() = default;
  /// An id >= 0 for a buffer whose element accesses access() must see, -1 for one it ignores.
  virtual int watch_buffer(const Buffer& buffer) = 0;
  /// An id >= 0 for an AttrStmt of key Pragma that pragma() must see on entry, -1 otherwise.
  virtual int watch_pragma(const AttrStmt& pragma) = 0;
  /// A Load (write false) or Store (write true) of the element `flat` (row-major, in bounds) of a
  /// watched buffer, once per lane of a vector access.
  virtual void access(int buffer, int64_t flat, bool write) = 0;
  /// An atomic read-modify-write (atomic_add) of the element `flat` of a watched buffer: by
  /// default a write; a race detector lets other threads' atomic updates of it pass.
  virtual void atomic_access(int buffer, int64_t flat) { access(buffer, flat, true); }
  /// Entry into a watched pragma, with its value, before its body runs.
  virtual void pragma(int id, int64_t value) = 0;
};

struct LoopInterpreterOptions {
  /// Buffers that are read or written but are neither arguments nor Allocate'd are an error
  /// (a lowering bug) unless this is set; then they are allocated once per run with their declared
  /// (constant) shape, as for a default loop AST before storage is placed.
  bool allocate_unbound_buffers = false;
  /// Sees the accesses of the buffers it watches; it must outlive the interpreter.
  LoopObserver* observer = nullptr;
};

class LoopInterpreter {
 public:
  /// Compiles func.body; throws InterpError for a construct it cannot execute (an unknown
  /// intrinsic or extern function, a Reduce left in the AST, an unbound variable).
  explicit LoopInterpreter(const LoweredFunc& func, LoopInterpreterOptions options = {});
  ~LoopInterpreter();
  LoopInterpreter(const LoopInterpreter&) = delete;
  LoopInterpreter& operator=(const LoopInterpreter&) = delete;

  /// Executes the function on one tensor per func.args (inputs then outputs), each with the
  /// argument's element type and the number of elements of its declared shape (a flattened 1-D
  /// argument accepts the multi-dimensional tensor). Throws InterpError on a mismatch or a run-time
  /// failure; outputs may then be partly written.
  void run(const std::vector<Tensor*>& args) const;

 private:
  struct Program;
  std::unique_ptr<Program> program_;
};

}  // namespace texc

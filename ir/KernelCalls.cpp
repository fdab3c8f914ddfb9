#include "ir/KernelCalls.h"

#include "ir/Intrinsics.h"

namespace texc {

namespace {

/// Appends the calls of `s` to `out`; false when `s` is not of the form.
bool collect(const LoweredFunc& func, const Stmt& s, Buffer& workspace, KernelCalls& out) {
  if (!s) return true;
  if (const auto* a = s->as<Allocate>()) {
    int64_t bytes = 0;
    if (workspace || a->buffer->name != "workspace" || a->buffer->dtype != UInt(8) || a->buffer->shape.size() != 1 ||
        !is_const_int(a->buffer->shape[0], &bytes))
      return false;
    workspace = a->buffer;
    out.workspace_bytes = bytes;
    return collect(func, a->body, workspace, out);
  }
  if (const auto* seq = s->as<Seq>()) {
    for (const Stmt& part : seq->stmts)
      if (!collect(func, part, workspace, out)) return false;
    return true;
  }
  const auto* eval = s->as<Evaluate>();
  const Call* call = eval ? eval->value->as<Call>() : nullptr;
  if (!call || call->call_kind != CallKind::Extern) return false;
  KernelCall kernel;
  kernel.kernel = call->name;
  for (const Expr& arg : call->args) {
    const auto* address = arg->as<Call>();
    const Load* first = is_intrinsic_call(address, Intrinsic::AddressOf) ? address->args[0]->as<Load>() : nullptr;
    int64_t index = 0;
    if (!first || first->indices.size() != 1 || !is_const_int(first->indices[0], &index)) return false;
    KernelCallArg ref;
    if (workspace && first->buffer == workspace) {
      ref.workspace_offset = index;  // the workspace is u8: the index is the byte offset
    } else {
      for (size_t i = 0; i < func.args.size(); ++i)
        if (func.args[i] == first->buffer) ref.arg = int(i);
      if (ref.arg < 0 || index != 0) return false;
    }
    kernel.args.push_back(ref);
  }
  out.calls.push_back(std::move(kernel));
  return true;
}

}  // namespace

std::optional<KernelCalls> kernel_calls(const LoweredFunc& func) {
  if (func.kind != FunctionKind::Host || !func.body) return std::nullopt;
  KernelCalls out;
  Buffer workspace;
  if (!collect(func, func.body, workspace, out) || out.calls.empty()) return std::nullopt;
  return out;
}

}  // namespace texc

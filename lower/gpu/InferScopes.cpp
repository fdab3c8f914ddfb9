#include "lower/gpu/InferScopes.h"

#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "ir/Target.h"
#include "lower/schedule/Primitives.h"
#include "lower/schedule/StageNest.h"

namespace texc {

MemScope gpu_scope_of_attach(const std::vector<const For*>& attach) {
  MemScope scope = MemScope::Global;
  for (const For* l : attach) {
    if (l->for_kind != ForKind::ThreadBound) continue;
    ThreadLevel level = thread_level(l->thread_tag);
    if (level == ThreadLevel::Thread || level == ThreadLevel::Virtual) return MemScope::Local;
    if (level == ThreadLevel::Block) scope = MemScope::Shared;
  }
  return scope;
}

void infer_gpu_scopes(ScheduleState& st) {
  BufferMap scoped;
  for (auto& [name, stage] : st.stages) {
    if (st.inlined.count(name) || is_op_output(st, name) || stage.buffer->scope != MemScope::Global) continue;
    if (st.blocks_of(name).size() != 1) continue;
    std::optional<StageSite> site = find_stage_site(st, name);
    if (!site) continue;
    // Only the loops under which a consumer reads the stage place it: an enclosing loop that holds
    // no reader is one of the stage's own loops with other stages computed inside it (a called
    // op's `bind(Y.i, blockIdx.x)` with its row statistics at Y.i), and the stage is computed for
    // its readers outside that loop, as at the root.
    std::vector<const For*> attach;
    const BufferNode* buffer = stage.buffer.get();  // not the structured binding: a lambda reads it
    for (const For* l : site->attach_loops) {
      bool read_inside = false;
      for_each_stmt(l->body, [&](const Stmt& s) {
        if (s.get() != site->block && (s->as<Block>() || s->as<Evaluate>()) && reads_buffer(s, buffer))
          read_inside = true;
      });
      if (read_inside) attach.push_back(l);
    }
    MemScope scope = gpu_scope_of_attach(attach);
    if (scope == MemScope::Global) continue;
    const Buffer& b = stage.buffer;
    scoped[b.get()] = BufferNode::make(b->name, b->dtype, b->shape, scope, b->role);
  }
  if (!scoped.empty()) st.replace_buffers(scoped);
}

}  // namespace texc

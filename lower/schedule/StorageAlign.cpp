// storage_align(S, S.ax, factor, offset): the rows of stage S's buffer along axis S.ax are padded
// so that the stride of that axis is k*factor + offset for the smallest k that fits the row (TVM's
// storage_align). With a shared tile of rows of 8 floats, storage_align(AS, AS.i, 8, 4) makes its
// rows 12 apart: the threads of a warp that read one column of several rows then hit different
// banks. Only the allocation changes (plan_storage pads the buffer's last dimension, so the
// padding elements are never read or written); what is computed stays the same.
//
// S.ax must be the second-to-last axis of S (the stride of that axis is the length of a row; the
// stride of an outer axis is not a row length texc pads); factor > 0 and 0 <= offset < factor.
// S must be an intermediate stage (a cache or a computed stage: the arguments' layout is the
// caller's). The axis is named as S's own axis, before any split or fuse of it renamed its loop.
#include <string>

#include "ir/Diagnostics.h"
#include "lower/schedule/Primitives.h"

namespace texc {

void apply_storage_align(ScheduleState& st, const SchedStep& step) {
  const SchedPrimitive& p = step.prim;
  expect_arity(step, 4, 4, 0);
  const std::string name = stage_arg(st, step, 0);
  const Stage& stage = st.stage(name, p.args[0].loc);
  const std::string axis = loop_name_arg(step, 1);
  size_t dim = stage.axes.size();
  auto axis_name = [&](size_t d) { return name + "." + stage.axes[d].var->name; };  // "AS.i"
  for (size_t d = 0; d < stage.axes.size(); ++d)
    if (axis_name(d) == axis) dim = d;
  if (dim == stage.axes.size())
    throw_error(DiagId::ScheduleError, p.args[1].loc,
                "storage_align: '" + axis + "' is not an axis of stage '" + name + "' (name the axis as the stage has it" +
                    (stage.axes.empty() ? std::string(")") : ", e.g. '" + axis_name(0) + "')"));
  if (stage.axes.size() < 2 || dim != stage.axes.size() - 2)
    throw_error(DiagId::ScheduleError, p.args[1].loc,
                "storage_align pads the rows of '" + name + "': its axis must be the second-to-last of the stage's " +
                    std::to_string(stage.axes.size()) + " (" +
                    (stage.axes.size() >= 2 ? "'" + axis_name(stage.axes.size() - 2) + "'" : std::string("none")) +
                    "), whose stride is the length of a row; '" + axis + "' is not");
  const int64_t factor = int_arg(step, 2), offset = int_arg(step, 3);
  if (factor <= 0)
    throw_error(DiagId::ScheduleError, p.args[2].loc, "storage_align factor must be positive, got " + std::to_string(factor));
  if (offset < 0 || offset >= factor)
    throw_error(DiagId::ScheduleError, p.args[3].loc,
                "storage_align offset must be in 0.." + std::to_string(factor - 1) + " (below the factor), got " +
                    std::to_string(offset));
  if (stage.buffer->role != BufferRole::Intermediate)
    throw_error(DiagId::ScheduleError, p.args[0].loc,
                "storage_align of '" + name + "': the layout of an op's inputs and outputs is its caller's; align a "
                "cache of it instead (cache_read / cache_write)");
  st.storage_aligns[stage.buffer->name] = {factor, offset};
}

}  // namespace texc

#include "lower/SplitPrepare.h"

#include <set>

#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "lower/OpParts.h"

namespace texc {

std::optional<PreparedOp> split_prepare(const OpDef& op) {
  if (op.const_inputs.empty()) return std::nullopt;
  std::set<std::string> outputs;
  for (const Buffer& b : op.outputs) outputs.insert(b->name);

  // Stages are in a topological order: one pass finds the prepare stages.
  std::set<std::string> prepare_stages;
  std::vector<std::set<std::string>> reads;
  for (const Stage& s : op.stages) {
    reads.push_back(buffers_read(s.body));
    bool from_const = !outputs.count(s.name) && !reads.back().empty();
    for (const std::string& r : reads.back())
      if (!op.const_inputs.count(r) && !prepare_stages.count(r)) from_const = false;
    if (from_const) prepare_stages.insert(s.name);
  }
  std::set<std::string> prepared_set, read_by_main, read_by_prepare;
  for (size_t i = 0; i < op.stages.size(); ++i) {
    bool in_prepare = prepare_stages.count(op.stages[i].name) > 0;
    for (const std::string& r : reads[i]) {
      if (in_prepare) read_by_prepare.insert(r);
      else read_by_main.insert(r);
      if (!in_prepare && prepare_stages.count(r)) prepared_set.insert(r);
    }
  }
  if (prepared_set.empty()) return std::nullopt;

  PreparedOp out;
  // prepare: const inputs -> prepared buffers.
  OpDef& prepare = out.prepare;
  prepare.name = op.name + "_prepare";
  prepare.loc = op.loc;
  prepare.schedules = op.schedules;
  prepare.intrinsics = op.intrinsics;
  prepare.input_domains = op.input_domains;
  for (const Buffer& b : op.inputs)
    if (op.const_inputs.count(b->name) && read_by_prepare.count(b->name)) prepare.inputs.push_back(b);
  BufferMap to_output;
  for (const Stage& s : op.stages) {
    if (!prepare_stages.count(s.name)) continue;
    Stage copy = s;
    if (prepared_set.count(s.name)) {
      copy.buffer = with_role(s.buffer, BufferRole::Output);
      to_output[s.buffer.get()] = copy.buffer;
      prepare.outputs.push_back(copy.buffer);
      out.prepared.push_back(s.name);
    }
    prepare.stages.push_back(std::move(copy));
  }
  for (Stage& s : prepare.stages) s.body = substitute_buffers(s.body, to_output);

  // main: the rest, reading the prepared buffers as inputs.
  OpDef& main = out.main;
  main.name = op.name;
  main.loc = op.loc;
  main.schedules = op.schedules;
  main.intrinsics = op.intrinsics;
  main.outputs = op.outputs;
  main.input_domains = op.input_domains;  // its inputs' (texc tune draws them there)
  for (const Buffer& b : op.inputs)
    if (!op.const_inputs.count(b->name) || read_by_main.count(b->name)) main.inputs.push_back(b);
  BufferMap to_input;
  for (const Stage& s : op.stages)
    if (prepared_set.count(s.name)) {
      Buffer input = with_role(s.buffer, BufferRole::Input);
      to_input[s.buffer.get()] = input;
      main.inputs.push_back(input);
    }
  for (const Stage& s : op.stages) {
    if (prepare_stages.count(s.name)) continue;
    Stage copy = s;
    copy.body = substitute_buffers(s.body, to_input);
    main.stages.push_back(std::move(copy));
  }
  for (const Stage& s : op.stages) (prepare_stages.count(s.name) ? main : prepare).elided_stages.insert(s.name);
  main.prepare_function = prepare.name;
  return out;
}

}  // namespace texc

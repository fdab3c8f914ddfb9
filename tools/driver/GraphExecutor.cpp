#include "tools/driver/GraphExecutor.h"

#include <deque>
#include <map>

#include "ir/Diagnostics.h"

namespace texc {

void run_graph(const OpDef& op, const GraphOps& graph, const std::vector<OpExecutor>& kernels,
               std::vector<Tensor*>& args,
               const std::function<void(size_t kernel, std::vector<Tensor*>& kernel_args)>& after_kernel) {
  TEXC_CHECK(kernels.size() == graph.kernels.size() && args.size() == op.inputs.size() + op.outputs.size())
      << "run_graph of op '" << op.name << "' with " << kernels.size() << " kernels and " << args.size() << " tensors";
  std::map<std::string, Tensor*> by_name;
  for (size_t i = 0; i < op.inputs.size(); ++i) by_name[op.inputs[i]->name] = args[i];
  for (size_t i = 0; i < op.outputs.size(); ++i) by_name[op.outputs[i]->name] = args[op.inputs.size() + i];
  std::deque<Tensor> intermediates;  // stable addresses
  for (const GraphIntermediate& t : graph.intermediates) {
    intermediates.emplace_back(t.buffer->dtype, buffer_shape(t.buffer));
    intermediates.back().fill_poison();
    by_name[t.buffer->name] = &intermediates.back();
  }
  for (size_t k = 0; k < kernels.size(); ++k) {
    const OpDef& sub = graph.kernels[k].op;
    std::vector<Tensor*> kernel_args;
    for (const Buffer& b : sub.inputs) kernel_args.push_back(by_name.at(b->name));
    for (const Buffer& b : sub.outputs) kernel_args.push_back(by_name.at(b->name));
    kernels[k](kernel_args);
    if (after_kernel) after_kernel(k, kernel_args);
  }
}

}  // namespace texc

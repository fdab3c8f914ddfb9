#include "backends/vdla/RunProgram.h"

#include <cstring>

namespace texc::vdla {

SimResult run_with_arguments(const VdlaProgram& program, const std::vector<HostTensor>& args, const SimOptions& options) {
  auto invalid = [](std::string message) {
    SimResult r;
    r.error.kind = SimError::Kind::InvalidStream;
    r.error.message = std::move(message);
    return r;
  };
  if (args.size() != program.args.size())
    return invalid("the program has " + std::to_string(program.args.size()) + " arguments, not " + std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].bytes != program.args[i].bytes())
      return invalid("argument '" + program.args[i].name + "' has " + std::to_string(args[i].bytes) + " bytes, not " +
                     std::to_string(program.args[i].bytes()));
  std::vector<uint8_t> dram = make_dram_image(program);
  for (size_t i = 0; i < args.size(); ++i)
    if (!program.args[i].is_output) std::memcpy(dram.data() + program.args[i].dram_offset, args[i].data, args[i].bytes);
  SimResult result = simulate(program, dram, options);
  if (result.ok())
    for (size_t i = 0; i < args.size(); ++i)
      if (program.args[i].is_output) std::memcpy(args[i].data, dram.data() + program.args[i].dram_offset, args[i].bytes);
  return result;
}

}  // namespace texc::vdla

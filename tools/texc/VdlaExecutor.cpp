#include "tools/texc/VdlaExecutor.h"

#include <cstring>

#include "backends/interp/InterpError.h"
#include "backends/vdla/Codegen.h"
#include "backends/vdla/Trace.h"
#include "tools/texc/EnvironmentError.h"

namespace texc {

vdla::VdlaConfig vdla_config_of(const CommandLine& cl) {
  return cl.vdla_config.empty() ? vdla::VdlaConfig{} : vdla::load_vdla_config(cl.vdla_config);
}

OpExecutor make_vdla_executor(const LoweredFunc& func, const vdla::VdlaConfig& config, SourceLoc loc,
                              std::shared_ptr<VdlaRunStats> stats, const std::string& trace_path) {
  auto program = std::make_shared<vdla::VdlaProgram>(vdla::generate_program(func, config, loc));
  return [program, stats, trace_path, name = func.name](std::vector<Tensor*>& args) {
    std::vector<uint8_t> dram = vdla::make_dram_image(*program);
    if (args.size() != program->args.size())
      throw InterpError("op '" + name + "' has " + std::to_string(program->args.size()) + " arguments, not " +
                        std::to_string(args.size()));
    for (size_t i = 0; i < args.size(); ++i)
      if (!program->args[i].is_output)
        std::memcpy(dram.data() + program->args[i].dram_offset, args[i]->data(), args[i]->num_bytes());
    vdla::SimOptions options;
    options.record_timeline = !trace_path.empty();
    vdla::SimResult result = vdla::simulate(*program, dram, options);
    if (!result.ok()) throw InterpError("the VDLA simulator stopped: " + result.error.message);
    for (size_t i = 0; i < args.size(); ++i)
      if (program->args[i].is_output)
        std::memcpy(args[i]->data(), dram.data() + program->args[i].dram_offset, args[i]->num_bytes());
    if (!trace_path.empty() && !vdla::write_trace(trace_path, *program, result))
      throw EnvironmentError("cannot write the trace '" + trace_path + "'");
    stats->result = std::move(result);
    stats->ran = true;
  };
}

std::string format_vdla_stats(const vdla::SimResult& r) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "  vdla: %llu cycles, GEMM utilization %.1f%%, busy LOAD %llu COMPUTE %llu STORE %llu, DRAM bytes "
                "INP %llu WGT %llu ACC %llu OUT %llu UOP %llu",
                (unsigned long long)r.total_cycles, 100.0 * r.gemm_utilization,
                (unsigned long long)r.busy_cycles[0], (unsigned long long)r.busy_cycles[1],
                (unsigned long long)r.busy_cycles[2], (unsigned long long)r.dram_bytes[size_t(vdla::MemBuffer::Inp)],
                (unsigned long long)r.dram_bytes[size_t(vdla::MemBuffer::Wgt)],
                (unsigned long long)r.dram_bytes[size_t(vdla::MemBuffer::Acc)],
                (unsigned long long)r.dram_bytes[size_t(vdla::MemBuffer::Out)],
                (unsigned long long)r.dram_bytes[size_t(vdla::MemBuffer::Uop)]);
  return buf;
}

}  // namespace texc

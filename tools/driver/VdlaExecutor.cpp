#include "tools/driver/VdlaExecutor.h"

#include <cstring>

#include "backends/vdla/Trace.h"
#include "tools/driver/EnvironmentError.h"
#include "tools/driver/OutputFile.h"

namespace texc {

vdla::VdlaConfig vdla_config_of(const CompileOptions& opts) {
  return opts.vdla_config.empty() ? vdla::VdlaConfig{} : vdla::load_vdla_config(opts.vdla_config);
}

VdlaRunObserver keep_vdla_run(std::shared_ptr<VdlaRunStats> stats, const std::string& trace_path) {
  return [stats, trace_path](const vdla::VdlaProgram& program, vdla::SimResult& result) {
    if (!trace_path.empty()) {  // whole or not at all, never over an input (OutputFile.h)
      OutputFile trace(trace_path, "--trace");
      if (!vdla::write_trace(trace.write_path(), program, result))
        throw EnvironmentError("cannot write the trace '" + trace_path + "'");
      trace.commit();
    }
    stats->result = std::move(result);
    stats->ran = true;
  };
}

std::string format_vdla_stats(const VdlaRunStats& stats) {
  const vdla::SimResult& r = stats.result;
  char buf[640];
  std::snprintf(buf, sizeof buf,
                "  vdla: %llu cycles = %.4g ms simulated at a nominal %.0f MHz clock (the simulator took %.4g ms of "
                "host wall time), GEMM utilization %.1f%%, busy LOAD %llu COMPUTE %llu STORE %llu, DRAM bytes "
                "INP %llu WGT %llu ACC %llu OUT %llu UOP %llu",
                (unsigned long long)r.total_cycles, vdla_cycles_to_ms(r.total_cycles), kVdlaNominalClockMhz,
                stats.host_ms, 100.0 * r.gemm_utilization,
                (unsigned long long)r.busy_cycles[0], (unsigned long long)r.busy_cycles[1],
                (unsigned long long)r.busy_cycles[2], (unsigned long long)r.dram_bytes[size_t(vdla::MemBuffer::Inp)],
                (unsigned long long)r.dram_bytes[size_t(vdla::MemBuffer::Wgt)],
                (unsigned long long)(r.dram_bytes[size_t(vdla::MemBuffer::Acc)] +  // ACC: int32 and int8 rows
                                     r.dram_bytes[size_t(vdla::MemBuffer::Acc8)]),
                (unsigned long long)r.dram_bytes[size_t(vdla::MemBuffer::Out)],
                (unsigned long long)r.dram_bytes[size_t(vdla::MemBuffer::Uop)]);
  return buf;
}

}  // namespace texc

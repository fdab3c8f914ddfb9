#include "backends/vdla/Trace.h"

#include <fmt/format.h>

#include <fstream>

namespace texc::vdla {

namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += char(c);
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20) out += fmt::format("\\u{:04x}", c);
    else out += char(c);
  }
  return out + "\"";
}

}  // namespace

std::string trace_json(const VdlaProgram& program, const SimResult& result) {
  std::string out = "{\"displayTimeUnit\": \"ns\",\n \"otherData\": {\"time_unit\": \"1 us in the viewer is 1 VDLA cycle\", ";
  out += fmt::format("\"total_cycles\": {}, \"gemm_utilization\": {:.4f}}},\n \"traceEvents\": [\n", result.total_cycles,
                     result.gemm_utilization);
  out += "  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": \"VDLA\"}}";
  for (int e = 0; e < kNumEngines; ++e) {
    out += fmt::format(",\n  {{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": {}, \"args\": {{\"name\": {}}}}}", e,
                       quoted(engine_name(Engine(e))));
    out += fmt::format(",\n  {{\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 1, \"tid\": {}, \"args\": {{\"sort_index\": {}}}}}",
                       e, e);
  }
  for (const TimelineEvent& ev : result.timeline) {
    std::string args = fmt::format("\"index\": {}", ev.insn_index);
    if (!ev.is_wait && !program.comment(size_t(ev.insn_index)).empty())
      args += ", \"comment\": " + quoted(program.comment(size_t(ev.insn_index)));
    out += fmt::format(",\n  {{\"name\": {}, \"cat\": \"{}\", \"ph\": \"X\", \"pid\": 1, \"tid\": {}, \"ts\": {}, \"dur\": {}, \"args\": {{{}}}}}",
                       quoted(ev.name), ev.is_wait ? "wait" : "insn", int(ev.engine), ev.start, ev.duration, args);
  }
  return out + "\n ]\n}\n";
}

bool write_trace(const std::string& path, const VdlaProgram& program, const SimResult& result) {
  std::ofstream out(path);
  if (!out) return false;
  out << trace_json(program, result);
  return bool(out.flush());
}

}  // namespace texc::vdla

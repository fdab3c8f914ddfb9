#include "tools/texc/FarmJobOfCommandLine.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace texc {

FarmJob farm_job_template(const CommandLine& cl) {
  FarmJob job;
  std::ifstream in(cl.file, std::ios::binary);
  if (!in) throw CommandLineError("cannot read " + cl.file);
  std::ostringstream text;
  text << in.rdbuf();
  job.source = text.str();
  job.file = std::filesystem::path(cl.file).filename().string();
  job.args = {"--target", cl.target};
  if (!cl.mcpu.empty()) job.args.insert(job.args.end(), {"--mcpu", cl.mcpu});
  if (!cl.mattr.empty()) job.args.insert(job.args.end(), {"--mattr", cl.mattr});
  if (!cl.arch.empty()) job.args.insert(job.args.end(), {"--arch", cl.arch});
  for (const auto& [name, value] : cl.defines) job.args.insert(job.args.end(), {"-D", name + "=" + value.text});
  for (const auto& [name, value] : cl.knobs) job.args.insert(job.args.end(), {"--knob", name + "=" + value});
  if (cl.no_fuse) job.args.push_back("--no-fuse");
  return job;
}

CommandLine command_line_of_job(const FarmJob& job, const std::string& path) {
  static const std::set<std::string> with_value = {"--target", "--mcpu", "--mattr", "--arch", "-D", "--knob"};
  std::vector<std::string> args = {"texc", "run", path};
  for (size_t i = 0; i < job.args.size(); ++i) {
    const std::string& a = job.args[i];
    if (with_value.count(a) && i + 1 < job.args.size()) {
      args.push_back(a);
      args.push_back(job.args[++i]);
    } else if (a == "--no-fuse") {
      args.push_back(a);
    } else {
      throw CommandLineError("the job's argument '" + a + "' is not one a worker accepts");
    }
  }
  args.insert(args.end(), {"--op", job.op});
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  return parse_command_line(int(argv.size()), argv.data());
}

}  // namespace texc

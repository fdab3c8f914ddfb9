#include "tools/texc/FarmJobOfCommandLine.h"

#include <set>

#include "frontend/Frontend.h"

namespace texc {

FarmJob farm_job_template(const CommandLine& cl) {
  FarmJob job;
  try {
    job.sources = collect_job_sources(cl.file, cl.include_dirs, cl.stdlib_dir.empty() ? default_stdlib_dir() : cl.stdlib_dir);
  } catch (const std::runtime_error& e) {  // UserError is not one: main() prints it located
    throw CommandLineError(e.what());
  }
  job.args = {"--target", cl.target};
  if (!cl.mcpu.empty()) job.args.insert(job.args.end(), {"--mcpu", cl.mcpu});
  if (!cl.mattr.empty()) job.args.insert(job.args.end(), {"--mattr", cl.mattr});
  if (!cl.arch.empty()) job.args.insert(job.args.end(), {"--arch", cl.arch});
  for (const auto& [name, value] : cl.defines) job.args.insert(job.args.end(), {"-D", name + "=" + value.text});
  for (const auto& [name, value] : cl.knobs) job.args.insert(job.args.end(), {"--knob", name + "=" + value});
  if (cl.no_fuse) job.args.push_back("--no-fuse");
  if (cl.no_graph_fusion) job.args.push_back("--no-graph-fusion");  // a network's kernels, so its tasks
  if (!cl.layout.empty()) job.args.insert(job.args.end(), {"--layout", cl.layout});  // likewise
  return job;
}

CommandLine command_line_of_job(const FarmJob& job, const std::string& root, const std::string& empty_stdlib) {
  static const std::set<std::string> with_value = {"--target", "--mcpu", "--mattr", "--arch", "-D", "--knob", "--layout"};
  std::vector<std::string> args = {"texc", "run", root + "/" + job.sources.main};
  for (size_t i = 0; i < job.args.size(); ++i) {
    const std::string& a = job.args[i];
    if (with_value.count(a) && i + 1 < job.args.size()) {
      args.push_back(a);
      args.push_back(job.args[++i]);
    } else if (a == "--no-fuse" || a == "--no-graph-fusion") {
      args.push_back(a);
    } else {
      throw CommandLineError("the job's argument '" + a + "' is not one a worker accepts");
    }
  }
  args.insert(args.end(), {"--op", job.op});
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  CommandLine cl = parse_command_line(int(argv.size()), argv.data());
  for (const std::string& dir : job.sources.include_dirs) cl.include_dirs.push_back(root + "/" + dir);
  cl.stdlib_dir = job.sources.stdlib_dir.empty() ? empty_stdlib : root + "/" + job.sources.stdlib_dir;
  return cl;
}

}  // namespace texc

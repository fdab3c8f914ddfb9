// onnx_conformance: ONNX's backend node tests (libonnx-testdata: CASES/<case>/model.onnx and
// test_data_set_0/input_N.pb, output_N.pb) through texc. For every case: import the model (in
// process, tools/onnx/ImportOnnx.h); a model the importer refuses counts as unsupported, under
// the op type of the node it names. Otherwise write WORK/<case>/model.tex, its weights and the
// case's inputs as WORK/<case>/in/OP.NAME.npy, run `TEXC run model.tex --target T --inputs in
// --save-io out --repeat 1` (which also checks the compiled op against texc's reference
// interpreter) and compare every output with output_N.pb: |got - want| <= atol + rtol * |want|
// (ONNX's rtol 1e-3, atol 1e-7; NaN matches NaN; integers and bools exactly).
//
//   onnx_conformance --texc TEXC --cases DIR --work DIR [--target x86] [--jobs N] [--only REGEX]
//                    [--markdown FILE] [--verbose]
// Prints one line per case that fails (all with --verbose), then the counts: passed, failed and
// unsupported, in all and by op type. Exit 1 when a supported case fails, 2 on a usage error.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "backends/interp/Npy.h"
#include "tools/onnx/ImportOnnx.h"
#include "tools/onnx/OnnxTensor.h"

namespace fs = std::filesystem;
using namespace texc;

namespace {

enum class Outcome { Pass, Fail, Unsupported };

struct Case {
  std::string name;
  fs::path dir;
  std::set<std::string> op_types;  // of the model's nodes
  Outcome outcome = Outcome::Unsupported;
  std::string unsupported_op;      // the op type the importer refused
  std::string message;
  ImportedModel model;
};

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}


std::string compare(const Tensor& got, const Tensor& want, double rtol, double atol) {
  if (got.num_elements() != want.num_elements())
    return "shape " + shape_string(got.shape()) + ", expected " + shape_string(want.shape());
  if (got.dtype() != want.dtype()) return "element type " + got.dtype().str() + ", expected " + want.dtype().str();
  double worst = 0;
  int64_t bad = -1;
  for (int64_t i = 0; i < got.num_elements(); ++i) {
    if (got.dtype().is_float()) {
      double g = got.get_double(i), w = want.get_double(i);
      if (std::isnan(g) && std::isnan(w)) continue;
      if (std::isinf(w) && g == w) continue;
      double err = std::fabs(g - w) - (atol + rtol * std::fabs(w));
      if (!(err <= 0) && (bad < 0 || err > worst || std::isnan(err))) bad = i, worst = std::isnan(err) ? INFINITY : err;
    } else if (got.get_int(i) != want.get_int(i) && bad < 0) {
      bad = i;
    }
  }
  if (bad < 0) return "";
  std::ostringstream m;
  m << "element " << bad << " is " << got.get_double(bad) << ", expected " << want.get_double(bad);
  return m.str();
}

// Starts `/bin/sh -c cmd` and returns its pid (-1 when it cannot be started).
pid_t start_shell(const std::string& cmd) {
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// What went wrong with case c whose `texc run` in work directory w has ended ("" when it passed).
std::string check_case(const Case& c, const fs::path& w, bool run_succeeded) {
  if (!run_succeeded) {
    std::ifstream log(w / "run.log");
    std::string line, last;
    while (std::getline(log, line))
      if (line.find("error") != std::string::npos || line.find("FAIL") != std::string::npos) last = line;
    return "texc run failed (" + (w / "run.log").string() + "): " + last;
  }
  for (size_t o = 0; o < c.model.outputs.size(); ++o) {
    const ImportedTensor& out = c.model.outputs[o];
    try {
      Tensor got = read_npy((w / "out" / (c.model.op_name + "." + out.tex_name + ".npy")).string());
      Tensor want = read_onnx_tensor_file((c.dir / "test_data_set_0" / ("output_" + std::to_string(o) + ".pb")).string());
      std::string diff = compare(got, want, 1e-3, 1e-7);
      if (!diff.empty()) return "output '" + out.onnx_name + "': " + diff;
    } catch (const std::exception& e) {
      return e.what();
    }
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  std::string texc_path, cases_dir, work_dir, target = "x86", only, markdown;
  int jobs = 1;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "onnx_conformance: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--texc") texc_path = value();
    else if (a == "--cases") cases_dir = value();
    else if (a == "--work") work_dir = value();
    else if (a == "--target") target = value();
    else if (a == "--only") only = value();
    else if (a == "--markdown") markdown = value();
    else if (a == "--jobs") jobs = std::max(1, std::atoi(value().c_str()));
    else if (a == "--verbose") verbose = true;
    else {
      std::cerr << "onnx_conformance: unknown argument '" << a << "'\n";
      return 2;
    }
  }
  if (texc_path.empty() || cases_dir.empty() || work_dir.empty()) {
    std::cerr << "usage: onnx_conformance --texc TEXC --cases DIR --work DIR [--target T] [--jobs N] [--only REGEX] "
                 "[--markdown FILE] [--verbose]\n";
    return 2;
  }
  if (!fs::is_directory(cases_dir)) {
    std::cerr << "onnx_conformance: no directory " << cases_dir << "\n";
    return 2;
  }
  std::vector<Case> cases;
  std::regex only_re(only.empty() ? ".*" : only);
  for (const auto& e : fs::directory_iterator(cases_dir)) {
    if (!fs::exists(e.path() / "model.onnx")) continue;
    std::string name = e.path().filename().string();
    if (!std::regex_search(name, only_re)) continue;
    Case c;
    c.name = name;
    c.dir = e.path();
    cases.push_back(std::move(c));
  }
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
  fs::create_directories(work_dir);

  // import (in process) and write the files of every supported case
  std::vector<size_t> to_run;
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    Case& c = cases[ci];
    try {
      for (const std::string& t : onnx_node_op_types((c.dir / "model.onnx").string())) c.op_types.insert(t);
      c.model = import_onnx_file((c.dir / "model.onnx").string());
    } catch (const OnnxImportError& e) {
      c.outcome = Outcome::Unsupported;
      c.unsupported_op = e.op_type.empty() ? "(whole model)" : e.op_type;
      c.message = e.what();
      continue;
    }
    fs::path w = fs::path(work_dir) / c.name;
    fs::remove_all(w);
    fs::create_directories(w / "in");
    std::ofstream(w / "model.tex") << c.model.tex_source;
    try {
      write_weights(c.model, (w / "in").string());
      // input_N.pb: the N-th graph input that is not an initializer (by position: the files'
      // tensor names are not always the inputs'); every input of the op must get its file
      std::set<std::string> written;
      for (size_t k = 0; k < c.model.graph_inputs.size(); ++k) {
        fs::path pb = c.dir / "test_data_set_0" / ("input_" + std::to_string(k) + ".pb");
        if (!fs::exists(pb)) break;
        Tensor t = read_onnx_tensor_file(pb.string());
        for (const ImportedTensor& in : c.model.inputs)
          if (in.onnx_name == c.model.graph_inputs[k]) {
            write_npy((w / "in" / (c.model.op_name + "." + in.tex_name + ".npy")).string(), t);
            written.insert(in.onnx_name);
          }
      }
      for (const ImportedTensor& in : c.model.inputs)
        if (!written.count(in.onnx_name)) throw std::runtime_error("the case has no input file for '" + in.onnx_name + "'");
    } catch (const std::exception& e) {
      c.outcome = Outcome::Fail;
      c.message = std::string("writing the inputs: ") + e.what();
      continue;
    }
    to_run.push_back(ci);
  }

  // run them: up to `jobs` texc processes at a time, started and reaped by this (only) thread, which
  // also reads and compares every case's outputs (no worker threads: the run once died at a worker
  // thread's exit with glibc's "double free or corruption", and child processes need none)
  std::map<pid_t, size_t> running;  // child -> case index
  size_t next = 0;
  while (next < to_run.size() || !running.empty()) {
    while (next < to_run.size() && running.size() < size_t(jobs)) {
      size_t ci = to_run[next++];
      fs::path w = fs::path(work_dir) / cases[ci].name;
      fs::remove_all(w / "out");
      std::string cmd = "timeout 300 " + shell_quote(texc_path) + " run " + shell_quote((w / "model.tex").string()) +
                        " --target " + shell_quote(target) + " --inputs " + shell_quote((w / "in").string()) +
                        " --save-io " + shell_quote((w / "out").string()) + " --repeat 1 > " +
                        shell_quote((w / "run.log").string()) + " 2>&1";
      pid_t pid = start_shell(cmd);
      if (pid < 0) {
        cases[ci].outcome = Outcome::Fail;
        cases[ci].message = "cannot start texc";
        continue;
      }
      running[pid] = ci;
    }
    if (running.empty()) continue;
    int status = 0;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) break;
    auto it = running.find(pid);
    if (it == running.end()) continue;
    Case& c = cases[it->second];
    running.erase(it);
    std::string failure = check_case(c, fs::path(work_dir) / c.name, WIFEXITED(status) && WEXITSTATUS(status) == 0);
    c.outcome = failure.empty() ? Outcome::Pass : Outcome::Fail;
    c.message = failure;
  }

  // report
  struct Counts {
    int pass = 0, fail = 0, unsupported = 0;
  };
  Counts total;
  std::map<std::string, Counts> by_op;
  for (const Case& c : cases) {
    if (c.outcome == Outcome::Pass) ++total.pass;
    if (c.outcome == Outcome::Fail) ++total.fail;
    if (c.outcome == Outcome::Unsupported) ++total.unsupported;
    if (c.outcome == Outcome::Unsupported) {
      ++by_op[c.unsupported_op].unsupported;
    } else {
      for (const std::string& op : c.op_types) (c.outcome == Outcome::Pass ? by_op[op].pass : by_op[op].fail)++;
    }
    if (c.outcome == Outcome::Fail) std::cout << "FAIL " << c.name << ": " << c.message << "\n";
    else if (verbose) std::cout << (c.outcome == Outcome::Pass ? "PASS " : "UNSUPPORTED ") << c.name
                                << (c.message.empty() ? "" : ": " + c.message) << "\n";
  }
  std::cout << "onnx node tests on " << target << ": " << cases.size() << " cases, " << total.pass << " passed, "
            << total.fail << " failed, " << total.unsupported << " unsupported\n";
  std::ostringstream table;
  table << "| op type | passed | failed | unsupported |\n|---|---|---|---|\n";
  for (const auto& [op, n] : by_op) table << "| " << op << " | " << n.pass << " | " << n.fail << " | " << n.unsupported << " |\n";
  std::cout << table.str();
  if (!markdown.empty()) {
    std::ofstream md(markdown);
    md << "onnx node tests on " << target << ": " << cases.size() << " cases, " << total.pass << " passed, "
       << total.fail << " failed, " << total.unsupported << " unsupported\n\n" << table.str();
  }
  return total.fail ? 1 : 0;
}


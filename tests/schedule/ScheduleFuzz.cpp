// schedule_fuzz: random legal schedules over a corpus of ops, each lowered, run and compared with
// the reference interpreter.
//
//   schedule_fuzz [--seed S] [--count N] [--seconds T] [--target interp|x86|x86-sse|cuda-interp] [--ops DIR]
//                 [--regressions DIR] [--op NAME] [--case K] [--max-primitives M] [--no-fork]
//                 [--verbose] [--print-changed] [--direct] [--save-failures DIR] [--max-rejection-rate R]
//
// First every regression (DIR/*.tex: an op with the schedule that once failed; a line
// `# schedule_fuzz: --no-fuse` lowers it with --no-fuse) is checked; then cases 0, 1, 2, ... are
// generated until N cases ran or T seconds passed (N = 100 when neither is given). Case K of
// seed S is always the same op and schedule: `--seed S --case K` reproduces it. Each case runs in
// a child process (unless --no-fork), so an internal error or a hang (60 s) is reported as a
// failure of that case and the run goes on. A failing case is printed as the op's .tex source with
// the schedule inserted, ready to become a regression. Every case is compiled from that text by
// the front end, so the printed form is exactly what was checked (--direct hands the generated
// primitives to lower_op instead, which is faster). The last line is `N passed, M failed`.
// Exit status 1 when a case failed or the generator's rejection rate (primitives its own state
// rejected, i.e. legality it failed to model) exceeds --max-rejection-rate (default 0.05).
//
// --target cuda-interp: the schedules are GPU schedules (GpuScheduleGenerator.h), each run on
// cuda-interp, whose race detector makes a data race a failure. A generated schedule the lowering
// rejects with a located error (too many threads per block, a tag bound to two extents...) is
// skipped, not a failure; the skips are counted by message.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/Frontend.h"
#include "ir/Diagnostics.h"
#include "tests/schedule/ScheduleCheck.h"
#include "tests/schedule/GpuScheduleGenerator.h"
#include "tests/schedule/ScheduleGenerator.h"
#include "backends/execute/ChildRun.h"

#ifndef TEXC_SCHEDULE_TEST_DIR
#define TEXC_SCHEDULE_TEST_DIR "."
#endif

namespace fs = std::filesystem;
using namespace texc;

namespace {

struct Flags {
  uint64_t seed = 1;
  int64_t count = -1;
  double seconds = -1;
  std::string target = "interp";
  std::string ops_dir = std::string(TEXC_SCHEDULE_TEST_DIR) + "/ops";
  std::string regressions_dir = std::string(TEXC_SCHEDULE_TEST_DIR) + "/regressions";
  std::string only_op;
  int64_t only_case = -1;
  int max_primitives = 10;
  bool fork = true;
  bool verbose = false;
  bool print_changed = false;
  bool via_text = true;
  std::string save_failures_dir;
  double max_rejection_rate = 0.05;
};

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "schedule_fuzz: " << problem << "\n"
            << "usage: schedule_fuzz [--seed S] [--count N] [--seconds T] [--target interp|x86|x86-sse|cuda-interp] [--ops DIR]\n"
               "                     [--regressions DIR] [--op NAME] [--case K] [--max-primitives M] [--no-fork]\n"
               "                     [--verbose] [--print-changed] [--direct] [--save-failures DIR]\n"
               "                     [--max-rejection-rate R]\n";
  std::exit(2);
}

Flags parse_flags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage("missing value after " + a);
      return argv[++i];
    };
    try {
      if (a == "--seed") f.seed = std::stoull(value());
      else if (a == "--count") f.count = std::stoll(value());
      else if (a == "--seconds") f.seconds = std::stod(value());
      else if (a == "--target") f.target = value();
      else if (a == "--ops") f.ops_dir = value();
      else if (a == "--regressions") f.regressions_dir = value();
      else if (a == "--op") f.only_op = value();
      else if (a == "--case") f.only_case = std::stoll(value());
      else if (a == "--max-primitives") f.max_primitives = std::stoi(value());
      else if (a == "--no-fork") f.fork = false;
      else if (a == "--verbose") f.verbose = true;
      else if (a == "--print-changed") f.print_changed = true;
      else if (a == "--direct") f.via_text = false;
      else if (a == "--save-failures") f.save_failures_dir = value();
      else if (a == "--max-rejection-rate") f.max_rejection_rate = std::stod(value());
      else usage("unknown flag " + a);
    } catch (const std::logic_error&) {
      usage("bad value for " + a);
    }
  }
  if (f.target != "interp" && f.target != "x86" && f.target != "x86-sse" && f.target != "cuda-interp")
    usage("--target must be interp, x86, x86-sse or cuda-interp");
  if (f.count < 0 && f.seconds < 0) f.count = 100;
  return f;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> tex_files(const std::string& dir) {
  std::vector<std::string> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".tex") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

struct CorpusOp {
  std::string path;
  std::string source;
  OpDef op;
};

// ---- one case, possibly in a child process

// What a case reports back: its schedule (as soon as it is known), the generator's statistics, and
// the outcome.
struct CaseReport {
  std::string schedule_text;
  bool no_fuse = true;
  bool has_schedule = false;
  int attempted = 0;
  std::vector<std::string> rejections;
  bool finished = false;
  CaseOutcome outcome;
  bool target_unavailable = false;
  bool vector_code = false;
};

// Records sent by the child (backends/execute/ChildRun.h): "<tag> <length>\n<payload>".
void send(ChildChannel& parent, const std::string& tag, const std::string& payload) {
  parent.send(tag + " " + std::to_string(payload.size()) + "\n" + payload);
}

void apply_record(CaseReport& r, const std::string& tag, const std::string& payload) {
  if (tag == "schedule") {
    r.has_schedule = true;
    r.no_fuse = payload[0] == '1';
    r.schedule_text = payload.substr(1);
  } else if (tag == "attempted") {
    r.attempted = std::stoi(payload);
  } else if (tag == "rejection") {
    r.rejections.push_back(payload);
  } else if (tag == "outcome") {
    r.finished = true;
    r.outcome.status = CaseOutcome::Status(payload[0] - '0');
    r.outcome.message = payload.substr(1);
  } else if (tag == "vector") {
    r.vector_code = true;
  } else if (tag == "unavailable") {
    r.finished = true;
    r.target_unavailable = true;
    r.outcome.message = payload;
  }
}

// The work of one case; `emit` receives the records.
using Emit = std::function<void(const std::string&, const std::string&)>;

void run_generated_case(const CorpusOp& c, uint64_t case_seed, const Flags& flags, const Emit& emit) {
  std::mt19937_64 rng(case_seed);
  GeneratorOptions options;
  options.max_primitives = flags.max_primitives;
  GeneratedSchedule schedule =
      flags.target == "cuda-interp" ? generate_gpu_schedule(c.op, rng) : generate_schedule(c.op, rng, options);
  emit("schedule", std::string(schedule.no_fuse ? "1" : "0") + schedule.text());
  emit("attempted", std::to_string(schedule.attempted));
  for (const std::string& r : schedule.rejections) emit("rejection", r);
  OpDef op = c.op;
  op.schedules = {schedule.block()};
  if (flags.via_text) {
    // The case as printed: the op's source with the schedule, through the front end.
    try {
      Program program = compile_source(c.path, insert_schedule(c.source, schedule.text()), FrontendOptions{});
      op = program.ops.at(0);
    } catch (const UserError& e) {
      emit("outcome", std::to_string(int(CaseOutcome::Status::Rejected)) + "the printed schedule does not compile: " +
                          format_diagnostic(e.diag));
      return;
    }
  }
  try {
    CaseOutcome outcome = check_scheduled_op(op, schedule.no_fuse, flags.target, case_seed, flags.print_changed);
    emit("outcome", std::to_string(int(outcome.status)) + outcome.message);
    if (outcome.vector_code) emit("vector", "");
  } catch (const TargetUnavailable& e) {
    emit("unavailable", e.what());
  }
}

void run_regression_op(const OpDef& op, bool no_fuse, const Flags& flags, const Emit& emit) {
  try {
    CaseOutcome outcome = check_scheduled_op(op, no_fuse, flags.target, flags.seed, flags.print_changed);
    emit("outcome", std::to_string(int(outcome.status)) + outcome.message);
  } catch (const TargetUnavailable& e) {
    emit("unavailable", e.what());
  }
}

// Runs work() in a child process (or in this one), collecting its records. A child that dies
// or hangs leaves an unfinished report with `crash` describing it.
CaseReport run_isolated(const Flags& flags, const std::function<void(const Emit&)>& work, std::string* crash) {
  CaseReport report;
  if (!flags.fork) {
    work([&](const std::string& tag, const std::string& payload) { apply_record(report, tag, payload); });
    return report;
  }
  ChildOutcome child = run_in_child(
      [&](ChildChannel& parent) {
        work([&](const std::string& tag, const std::string& payload) { send(parent, tag, payload); });
      },
      60);
  const std::string& data = child.data;
  size_t pos = 0;
  while (pos < data.size()) {
    size_t space = data.find(' ', pos), nl = data.find('\n', pos);
    if (space == std::string::npos || nl == std::string::npos) break;
    std::string tag = data.substr(pos, space - pos);
    size_t len = std::stoull(data.substr(space + 1, nl - space - 1));
    if (nl + 1 + len > data.size()) break;
    apply_record(report, tag, data.substr(nl + 1, len));
    pos = nl + 1 + len;
  }
  if (!report.finished) {
    if (child.end == ChildOutcome::End::TimedOut) *crash = "timed out (60 s)";
    else if (child.end == ChildOutcome::End::Signaled) *crash = std::string("crashed with signal ") + strsignal(child.signal);
    else if (child.end == ChildOutcome::End::Exited || child.end == ChildOutcome::End::Returned)
      *crash = "exited with status " + std::to_string(child.exit_status) + " before finishing";
    else *crash = child.describe();
  }
  return report;
}

// A diagnostic's message without its location and source lines, its numbers replaced by N and
// its quoted names by '', so that skips group by kind.
std::string diagnostic_kind(const std::string& diagnostic) {
  std::string line = diagnostic.substr(0, diagnostic.find('\n'));
  size_t error = line.find("error: ");
  if (error != std::string::npos) line = line.substr(error + 7);
  std::string out;
  bool quoted = false;
  for (char c : line) {
    if (c == '\'') {
      quoted = !quoted;
      out += c;
    } else if (!quoted && std::isdigit(static_cast<unsigned char>(c))) {
      if (out.empty() || out.back() != 'N') out += 'N';
    } else if (!quoted) {
      out += c;
    }
  }
  return out.size() > 120 ? out.substr(0, 117) + "..." : out;
}

uint64_t case_seed(uint64_t seed, int64_t k) {
  std::seed_seq seq{uint32_t(seed), uint32_t(seed >> 32), uint32_t(k), uint32_t(uint64_t(k) >> 32)};
  std::mt19937_64 rng(seq);
  return rng();
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags = parse_flags(argc, argv);
  FrontendOptions fe;

  // The corpus.
  std::vector<CorpusOp> corpus;
  for (const std::string& path : tex_files(flags.ops_dir)) {
    try {
      Program program = compile_file(path, fe);
      for (OpDef& op : program.ops) {
        if (!flags.only_op.empty() && op.name != flags.only_op) continue;
        op.schedules.clear();
        corpus.push_back({path, read_file(path), std::move(op)});
      }
    } catch (const UserError& e) {
      std::cerr << format_diagnostic(e.diag) << "\n";
      return 2;
    }
  }
  if (corpus.empty())
    usage("no ops found in " + flags.ops_dir + (flags.only_op.empty() ? "" : " named " + flags.only_op));

  int64_t passed = 0, failed = 0;
  bool unavailable_reported = false;
  auto report_unavailable = [&](const CaseReport& r) {
    if (!unavailable_reported) std::cout << "skip: " << r.outcome.message << "\n";
    unavailable_reported = true;
  };

  // Regressions first.
  if (flags.only_case < 0) {
    for (const std::string& path : tex_files(flags.regressions_dir)) {
      std::string source = read_file(path);
      bool no_fuse = source.find("# schedule_fuzz: --no-fuse") != std::string::npos;
      Program program;
      try {
        program = compile_file(path, fe);
      } catch (const UserError& e) {
        std::cout << "FAIL regression " << path << ": does not compile:\n" << format_diagnostic(e.diag) << "\n";
        ++failed;
        continue;
      }
      for (const OpDef& op : program.ops) {
        std::string crash;
        CaseReport r = run_isolated(
            flags, [&](const Emit& emit) { run_regression_op(op, no_fuse, flags, emit); }, &crash);
        if (r.target_unavailable) {
          report_unavailable(r);
          continue;
        }
        if (r.finished && r.outcome.status == CaseOutcome::Status::Passed) {
          ++passed;
          if (flags.verbose) std::cout << "pass regression " << path << "\n";
          continue;
        }
        ++failed;
        std::cout << "FAIL regression " << path << " (op " << op.name << "): "
                  << (r.finished ? std::string(status_name(r.outcome.status)) + ": " + r.outcome.message : crash)
                  << "\n";
      }
    }
  }

  // Generated cases.
  auto start = std::chrono::steady_clock::now();
  int64_t cases = 0, attempted = 0, rejected = 0, with_vector_code = 0, skipped = 0;
  std::map<std::string, int64_t> skip_reasons;  // cuda-interp: the lowering's messages, by kind
  std::map<std::string, int64_t> per_op;
  std::vector<std::string> rejection_samples;
  for (int64_t k = flags.only_case >= 0 ? flags.only_case : 0;; ++k) {
    if (flags.only_case >= 0 && k != flags.only_case) break;
    if (flags.count >= 0 && cases >= flags.count) break;
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (flags.seconds >= 0 && elapsed >= flags.seconds) break;
    uint64_t seed = case_seed(flags.seed, k);
    const CorpusOp& c = corpus[seed % corpus.size()];
    std::string crash;
    CaseReport r = run_isolated(
        flags, [&](const Emit& emit) { run_generated_case(c, seed, flags, emit); }, &crash);
    ++cases;
    if (r.vector_code) ++with_vector_code;
    attempted += r.attempted;
    rejected += int64_t(r.rejections.size());
    for (const std::string& msg : r.rejections)
      if (rejection_samples.size() < 20) rejection_samples.push_back(c.op.name + ": " + msg);
    if (r.target_unavailable) {
      report_unavailable(r);
      break;
    }
    bool ok = r.finished && r.outcome.status == CaseOutcome::Status::Passed;
    if (flags.target == "cuda-interp" && r.finished && r.outcome.status == CaseOutcome::Status::Rejected &&
        r.outcome.message.rfind("the printed schedule does not compile", 0) != 0) {
      ++skipped;
      ++skip_reasons[diagnostic_kind(r.outcome.message)];
      if (flags.verbose) std::cout << "case " << k << " (" << c.op.name << "): skipped: " << r.outcome.message << "\n";
      continue;
    }
    std::string repro = "--seed " + std::to_string(flags.seed) + " --case " + std::to_string(k);
    std::string tex = "# schedule_fuzz regression: " + fs::path(c.path).filename().string() + ", " + repro + "\n" +
                      (r.no_fuse ? "# schedule_fuzz: --no-fuse\n" : "") + insert_schedule(c.source, r.schedule_text);
    if (flags.verbose) {
      std::cout << "case " << k << " (" << c.op.name << (r.no_fuse ? ", --no-fuse" : "") << "): "
                << (ok ? "pass" : "FAIL") << (r.vector_code ? " (vector code)" : "") << "\n"
                << tex;
      for (const std::string& msg : r.rejections) std::cout << "  rejected: " << msg << "\n";
    }
    if (ok) {
      ++passed;
      ++per_op[c.op.name];
      continue;
    }
    ++failed;
    std::string why = r.finished ? std::string(status_name(r.outcome.status)) + ": " + r.outcome.message
                                 : crash + (r.has_schedule ? " (lowering or running)" : " (generating the schedule)");
    std::cout << "FAIL case " << k << " (op " << c.op.name << ", " << repro << "): " << why << "\n";
    if (r.has_schedule) std::cout << tex << "\n";
    if (!flags.save_failures_dir.empty() && r.has_schedule) {
      fs::create_directories(flags.save_failures_dir);
      std::ofstream(flags.save_failures_dir + "/" + c.op.name + "_seed" + std::to_string(flags.seed) + "_case" +
                    std::to_string(k) + ".tex")
          << tex;
    }
  }

  double rate = attempted ? double(rejected) / double(attempted) : 0.0;
  std::cout << "generated " << cases << " schedules over " << corpus.size() << " ops (";
  bool first = true;
  for (const auto& [name, n] : per_op) {
    std::cout << (first ? "" : ", ") << name << " " << n;
    first = false;
  }
  std::cout << " passed); " << with_vector_code << " ran vector code; the generator's state rejected " << rejected
            << " of " << attempted << " primitives (" << rate * 100 << "%)\n";
  for (const std::string& s : rejection_samples) std::cout << "  rejected: " << s << "\n";
  if (flags.target == "cuda-interp") {
    std::cout << skipped << " schedules skipped (the lowering rejected them with a located error)\n";
    for (const auto& [kind, n] : skip_reasons) std::cout << "  skipped " << n << ": " << kind << "\n";
  }
  std::cout << passed << " passed, " << failed << " failed" << std::endl;
  if (rate > flags.max_rejection_rate) {
    std::cout << "the rejection rate is above " << flags.max_rejection_rate * 100 << "%: the generator models "
              << "legality poorly\n";
    return 1;
  }
  return failed ? 1 : 0;
}

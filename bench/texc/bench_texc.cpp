// bench_texc: texc on the workloads of shared/spec/workloads.md, per the contract in bench/README.md.
//
// Per workload W: bench/texc_workloads/W.tex (the stdlib op instantiated at W's exact shape) is
// elaborated by the front end, lowered for x86 and JIT-compiled for the host CPU once, outside the
// timed call; the timed call is one call of the compiled op on the peers' layouts (row-major A, B,
// C; NCHW input, OIHW weights, NCHW output), with no re-layout outside it.
//
// Variants:
//   stdlib  the stdlib schedule as shipped: every knob at its first value (no tuning records)
//   tuned   the knob configuration recorded for W in bench/texc/tuned_knobs.txt (only workloads
//           listed there; knobs not listed keep their first value)
// Threads: texrt_set_num_threads(--threads), before the first call.
#include "bench/common/Harness.h"

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/llvm/LLVMBackend.h"
#include "frontend/Frontend.h"
#include "lower/Lower.h"
#include "runtime/texrt.h"

using namespace bench;

namespace {

const std::string kSource = TEXC_BENCH_SOURCE_DIR;

// tuned_knobs.txt: lines `W KNOB=VALUE ...`; `#` starts a comment. true/false are 1/0.
std::map<std::string, texc::KnobConfig> read_tuned_knobs(const std::string &path) {
  std::map<std::string, texc::KnobConfig> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (auto h = line.find('#'); h != std::string::npos) line.resize(h);
    std::istringstream ss(line);
    std::string w, kv;
    if (!(ss >> w)) continue;
    texc::KnobConfig &cfg = out[w];
    while (ss >> kv) {
      auto eq = kv.find('=');
      if (eq == std::string::npos) throw std::runtime_error(path + ": bad knob '" + kv + "'");
      std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
      cfg[k] = v == "true" ? 1 : v == "false" ? 0 : std::stoll(v);
    }
  }
  return out;
}

std::string knobs_text(const texc::KnobConfig &k) {
  std::string s;
  for (const auto &[name, v] : k) s += (s.empty() ? "" : " ") + name + "=" + std::to_string(v);
  return s.empty() ? "all knobs at their first value" : s;
}

struct Compiled {
  std::unique_ptr<texc::JitModule> jit;
  void *fn = nullptr;
  size_t nargs = 0;
};

// Front end + lowering + JIT of bench/texc_workloads/<W>.tex with the given knobs.
Compiled compile_workload(const Workload &w, const texc::KnobConfig &knobs) {
  texc::FrontendOptions fo;
  fo.stdlib_dir = kSource + "/stdlib";
  texc::Program p = texc::compile_file(kSource + "/bench/texc_workloads/" + w.name + ".tex", fo);
  const texc::OpDef *op = nullptr;
  for (const auto &o : p.ops)
    if (o.name == w.name) op = &o;
  if (!op) throw std::runtime_error("no op " + w.name + " in " + w.name + ".tex");
  texc::LowerOptions lo;
  lo.target = "x86";
  lo.knobs = knobs;
  texc::LoweredFunc f = texc::lower_op(*op, lo);
  texc::CpuTargetOptions t;
  t.arch = "x86";  // host CPU and features
  Compiled c;
  c.nargs = f.args.size();
  c.jit = texc::JitModule::create({f}, t);
  c.fn = c.jit->lookup(w.name);
  if (!c.fn) throw std::runtime_error("JIT: no symbol " + w.name);
  return c;
}

using Fn3 = void (*)(const float *, const float *, float *);

}  // namespace

int main(int argc, char **argv) {
  Options o = parse_options(argc, argv, "texc", {Kind::Gemm, Kind::Conv, Kind::DwConv});
  texrt_set_num_threads(o.threads);
  const std::string tuned_path = kSource + "/bench/texc/tuned_knobs.txt";
  std::map<std::string, texc::KnobConfig> tuned;
  try {
    tuned = read_tuned_knobs(tuned_path);
  } catch (const std::exception &e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  bool ok = true;
  for (const Workload &w : o.workloads) {
    std::vector<std::pair<std::string, texc::KnobConfig>> variants;
    if (o.want_variant("stdlib")) variants.push_back({"stdlib", {}});
    if (o.want_variant("tuned") && tuned.count(w.name)) variants.push_back({"tuned", tuned.at(w.name)});
    for (const auto &[variant, knobs] : variants) {
      Compiled c;
      std::string error;
      try {
        c = compile_workload(w, knobs);
        if (c.nargs != 3) throw std::runtime_error("expected 3 arguments, got " + std::to_string(c.nargs));
      } catch (const std::exception &e) {
        error = std::string("compile: ") + e.what();
      }
      const std::string op = w.kind == Kind::Gemm ? "linalg.matmul" : w.kind == Kind::Conv ? "nn.conv2d" : "nn.depthwise_conv2d";
      std::string detail = "bench/texc_workloads/" + w.name + ".tex: stdlib " + op + ", " + knobs_text(knobs) +
                           "; x86 JIT (LLVM 19, host CPU) compiled outside the timed call; peers' layouts, "
                           "no re-layout; texrt threads=" + std::to_string(texrt_get_num_threads());
      Fn3 fn = reinterpret_cast<Fn3>(c.fn);
      if (w.kind == Kind::Gemm) {
        Floats A(w.M * w.K), B(w.K * w.N), C(w.M * w.N);
        fill_random(A, 1);
        fill_random(B, 2);
        auto call = [&] {
          if (!fn) throw std::runtime_error(error);
          fn(A.data(), B.data(), C.data());
        };
        ok &= measure(o, w, "texc", variant, call, [&] { return check_gemm(w, A.data(), B.data(), C.data()); }, detail);
      } else {
        Floats in(w.IC * w.H * w.W), wt(w.OC * (w.kind == Kind::Conv ? w.IC : 1) * w.KH * w.KW), out(w.OC * w.OH() * w.OW());
        fill_random(in, 3);
        fill_random(wt, 4);
        auto call = [&] {
          if (!fn) throw std::runtime_error(error);
          fn(in.data(), wt.data(), out.data());
        };
        ok &= measure(o, w, "texc", variant, call, [&] { return check_conv(w, in.data(), wt.data(), out.data()); }, detail);
      }
    }
  }
  return ok ? 0 : 1;
}

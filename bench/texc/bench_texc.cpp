// bench_texc: texc on the workloads of docs/workloads.md, per the contract in bench/README.md.
//
// Per workload W: bench/texc_workloads/W.tex (the stdlib op instantiated at W's exact shape) is
// elaborated by the front end, lowered for x86 and JIT-compiled for the host CPU once, outside the
// timed call; the timed call is one call of the compiled op on the peers' layouts (row-major A, B,
// C; NCHW input, OIHW weights, NCHW output), with no re-layout outside it.
//
// Variants:
//   stdlib  the stdlib schedule as shipped: every knob at its first value (no tuning records)
//   tuned   the knobs of the best valid record of W (same op, shapes and target, as `texc run
//           --records` picks: this CPU's records first) in bench/records/x86-t<threads>.jsonl,
//           else in x86-t1.jsonl (at 2 threads: among the records with the parallel knobs on); the
//           records are written by `texc tune` (bench/tune_workloads.py). Only workloads with a
//           record.
//   nchwc, nchwc_e2e (convolutions): the blocked-layout path, see compile_blocked (default knobs)
//   nchwc (depthwise): nn.depthwise_conv2d_nchwc on NCHW[16]c, see measure_dw_blocked
//   stdlib (qconv Q2-Q12): nn.int8_cpu.conv2d_u8s8 (vpdpbusd) on its blocked layouts, see
//           measure_qconv; skipped, with one line on stderr, without AVX-512 VNNI. No `tuned`
//           variant: there are no tuning records of it.
// Threads: texrt_set_num_threads(--threads), before the first call.
#include "bench/common/Harness.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/llvm/LLVMBackend.h"
#include "frontend/Frontend.h"
#include "lower/Lower.h"
#include "runtime/texrt.h"
#include "lower/SplitPrepare.h"
#include "tuner/CpuRunners.h"
#include "tuner/Records.h"
#include "tuner/Space.h"
#include "tools/driver/TargetPropertiesOf.h"

using namespace bench;

namespace {

// How texc lowers for this host (`texc run --target x86`): the schedules' target.vector_bits,
// target.vector_registers... are the host CPU's (a stdlib schedule that picks its register tile by
// them, conv2d_nchwc's, would otherwise get the baseline's 128-bit, 16-register x86).
texc::LowerOptions host_lower_options(const texc::KnobConfig &knobs) {
  static const texc::TargetProperties host = [] {
    texc::CompileOptions o;
    o.target = "x86";
    return texc::target_properties_of(o);
  }();
  texc::LowerOptions lo;
  lo.target = "x86";
  lo.knobs = knobs;
  lo.target_properties = host;
  return lo;
}


// Where stdlib/, bench/texc_workloads/ and bench/records/ are read from at run time:
// $TEXC_BENCH_ROOT if set (a snapshot, or a copy with experimental schedules), else the source tree.
const std::string kSource = [] {
  const char *r = std::getenv("TEXC_BENCH_ROOT");
  return std::string(r && *r ? r : TEXC_BENCH_SOURCE_DIR);
}();

// The tuned knobs of this thread count: the records of bench/records/x86-t<threads>.jsonl if that
// file exists; else those of x86-t1.jsonl, and for more than one thread only the records whose
// parallel knobs (named *_PAR) are on, so that a configuration tuned at 1 thread still splits its
// work. `from` says which, for the detail of the measurement.
struct TunedRecords {
  std::vector<texc::Record> records;
  std::string from;
};
TunedRecords tuned_records(int threads) {
  TunedRecords t;
  std::string own = kSource + "/bench/records/x86-t" + std::to_string(threads) + ".jsonl";
  if (std::ifstream(own)) {
    t.records = texc::read_records(own).records;
    t.from = "bench/records/x86-t" + std::to_string(threads) + ".jsonl";
    return t;
  }
  std::string one = kSource + "/bench/records/x86-t1.jsonl";
  if (!std::ifstream(one)) return t;
  for (texc::Record &r : texc::read_records(one).records) {
    bool parallel = true;
    for (const auto &[name, value] : r.knobs)
      if (threads > 1 && name.size() > 4 && name.compare(name.size() - 4, 4, "_PAR") == 0 && value == 0) parallel = false;
    if (parallel) t.records.push_back(std::move(r));
  }
  texc::name_legacy_x86_machines(t.records);  // records written before records named their machine
  t.from = threads > 1 ? "bench/records/x86-t1.jsonl, parallel knobs on" : "bench/records/x86-t1.jsonl";
  return t;
}

// The best valid record of the workload's op at its exact shapes, if any.
std::optional<texc::Record> tuned_record(const std::vector<texc::Record> &records, const Workload &w) {
  if (records.empty()) return std::nullopt;
  texc::FrontendOptions fo;
  fo.stdlib_dir = kSource + "/stdlib";
  fo.target = "x86";
  texc::Program p = texc::compile_file(kSource + "/bench/texc_workloads/" + w.name + ".tex", fo);
  for (const auto &op : p.ops) {
    if (op.name != w.name) continue;
    std::set<std::string> knob_names;  // records of an older version of the op's template do not count
    const texc::Space space(op, "x86");  // named: knobs() refers into it
    for (const texc::SchedKnob &k : space.knobs()) knob_names.insert(k.name);
    std::optional<texc::PreparedOp> split = texc::split_prepare(op);  // records describe the main half
    texc::RecordQuery query;
    query.op = op.name;
    query.target = "x86";
    query.shapes = texc::op_shapes(split ? split->main : op);
    query.knob_names = knob_names;
    query.here = texc::x86_machine(texc::CpuTargetOptions{});  // this machine, or one with its features
    query.exact_shapes = true;
    texc::RecordChoice c = texc::choose_record(records, query);
    if (c.record) return c.record;
  }
  return std::nullopt;
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
  // A workload whose weights are `const` (conv C*.tex): <op>_prepare(weights, prepared) re-lays
  // them out once, outside the timed calls, and the op reads `prepared` (prepared_elems floats).
  void *prepare = nullptr;
  size_t prepared_elems = 0;
};

// Front end + lowering + JIT of bench/texc_workloads/<W>.tex with the given knobs.
Compiled compile_workload(const Workload &w, const texc::KnobConfig &knobs) {
  texc::FrontendOptions fo;
  fo.stdlib_dir = kSource + "/stdlib";
  fo.target = "x86";
  texc::Program p = texc::compile_file(kSource + "/bench/texc_workloads/" + w.name + ".tex", fo);
  const texc::OpDef *op = nullptr;
  for (const auto &o : p.ops)
    if (o.name == w.name) op = &o;
  if (!op) throw std::runtime_error("no op " + w.name + " in " + w.name + ".tex");
  texc::LowerOptions lo = host_lower_options(knobs);
  std::optional<texc::PreparedOp> split = texc::split_prepare(*op);
  std::vector<texc::LoweredFunc> fs;
  if (split) fs.push_back(texc::lower_op(split->prepare, lo));
  fs.push_back(texc::lower_op(split ? split->main : *op, lo));
  texc::CpuTargetOptions t;
  t.arch = "x86";  // host CPU and features
  Compiled c;
  c.nargs = fs.back().args.size();
  c.jit = texc::JitModule::create(fs, t);
  c.fn = c.jit->lookup(w.name);
  if (!c.fn) throw std::runtime_error("JIT: no symbol " + w.name);
  if (split) {
    if (fs[0].args.size() != 2) throw std::runtime_error(w.name + "_prepare: expected (weights, prepared)");
    c.prepare = c.jit->lookup(w.name + "_prepare");
    c.prepared_elems = 1;
    for (const texc::Expr &e : fs[0].args[1]->shape) {
      int64_t n = 0;
      if (!texc::is_const_int(e, &n)) throw std::runtime_error("prepared buffer of unknown size");
      c.prepared_elems *= size_t(n);
    }
  }
  return c;
}

using Fn3 = void (*)(const float *, const float *, float *);
using Fn2 = void (*)(const float *, float *);

// The blocked-layout path of a convolution (stdlib nn.conv2d_nchwc): activations NCHW[CI]c with
// CI = min(16, IC) input channels per block (C1's 3 channels are one block of 3, not padded to 16),
// 16 output channels per block, weights OIHW[CI]i[16]o. Ops, generated for the workload's shape:
//   wpack(Wt) -> Wb        weights re-laid out once, outside the timed call
//   xpack(X) -> Xb         NCHW -> NCHW[CI]c (outside the timed call for the `nchwc` variant)
//   conv(Xb, Wb) -> Yb     the convolution alone, blocked in and out (variant `nchwc`)
//   yunpack(Yb) -> Y       NCHW[16]c -> NCHW (for the check)
//   e2e(X, Wb) -> Y        NCHW in, NCHW out: xpack, conv, yunpack in one op (variant `nchwc_e2e`)
struct Blocked {
  std::unique_ptr<texc::JitModule> jit;
  Fn2 wpack = nullptr, xpack = nullptr, yunpack = nullptr;
  Fn3 conv = nullptr, e2e = nullptr;
  int64_t CI = 0, CB = 0, FB = 0;
};

Blocked compile_blocked(const Workload &w, const texc::KnobConfig &knobs) {
  Blocked b;
  b.CI = std::min<int64_t>(16, w.IC);
  b.CB = (w.IC + b.CI - 1) / b.CI;
  b.FB = (w.OC + 15) / 16;
  auto s = [](int64_t v) { return std::to_string(v); };
  std::string X = "f32[1, " + s(w.IC) + ", " + s(w.H) + ", " + s(w.W) + "]";
  std::string Xb = "f32[1, " + s(b.CB) + ", " + s(w.H) + ", " + s(w.W) + ", " + s(b.CI) + "]";
  std::string Wt = "f32[" + s(w.OC) + ", " + s(w.IC) + ", " + s(w.KH) + ", " + s(w.KW) + "]";
  std::string Wb = "f32[" + s(b.FB) + ", " + s(b.CB) + ", " + s(w.KH) + ", " + s(w.KW) + ", " + s(b.CI) + ", 16]";
  std::string Yb = "f32[1, " + s(b.FB) + ", " + s(w.OH()) + ", " + s(w.OW()) + ", 16]";
  std::string conv = "conv2d_nchwc(Xb, Wb, stride = " + s(w.stride) + ", pad = " + s(w.pad) + ")";
  std::string src =
      "import nn.conv2d_nchwc\n"
      "op wpack(Wt: " + Wt + ") -> Wb {\n  compute { Wb = oihw_to_oihwio(Wt, in_block = " + s(b.CI) + ", out_block = 16) }\n}\n"
      "op xpack(X: " + X + ") -> Xb {\n  compute { Xb = nchw_to_nchwc(X, block = " + s(b.CI) + ") }\n}\n"
      "op conv(Xb: " + Xb + ", Wb: " + Wb + ") -> Yb {\n  compute { Yb = " + conv + " }\n}\n"
      "op yunpack(Yb: " + Yb + ") -> Y {\n  compute { Y = nchwc_to_nchw(Yb, channels = " + s(w.OC) + ") }\n}\n"
      "op e2e(X: " + X + ", Wb: " + Wb + ") -> Y {\n  compute {\n    Xb = nchw_to_nchwc(X, block = " + s(b.CI) +
      ")\n    Yb = " + conv + "\n    Y = nchwc_to_nchw(Yb, channels = " + s(w.OC) + ")\n  }\n}\n";
  texc::FrontendOptions fo;
  fo.stdlib_dir = kSource + "/stdlib";
  fo.target = "x86";
  texc::Program p = texc::compile_source(w.name + "_nchwc.tex", src, fo);
  std::vector<texc::LoweredFunc> fs;
  for (const auto &op : p.ops) {
    texc::LowerOptions lo = host_lower_options(knobs);
    fs.push_back(texc::lower_op(op, lo));
  }
  texc::CpuTargetOptions t;
  t.arch = "x86";
  b.jit = texc::JitModule::create(fs, t);
  b.wpack = reinterpret_cast<Fn2>(b.jit->lookup("wpack"));
  b.xpack = reinterpret_cast<Fn2>(b.jit->lookup("xpack"));
  b.yunpack = reinterpret_cast<Fn2>(b.jit->lookup("yunpack"));
  b.conv = reinterpret_cast<Fn3>(b.jit->lookup("conv"));
  b.e2e = reinterpret_cast<Fn3>(b.jit->lookup("e2e"));
  if (!b.wpack || !b.xpack || !b.yunpack || !b.conv || !b.e2e) throw std::runtime_error("JIT: missing blocked ops");
  return b;
}

// The `nchwc` and `nchwc_e2e` variants of a convolution.
bool measure_blocked(const Options &o, const Workload &w, const std::string &variant, const texc::KnobConfig &knobs) {
  Blocked b;
  std::string error;
  try {
    b = compile_blocked(w, knobs);
  } catch (const std::exception &e) {
    error = std::string("compile: ") + e.what();
  }
  Floats in(w.IC * w.H * w.W), wt(w.OC * w.IC * w.KH * w.KW), out(w.OC * w.OH() * w.OW());
  fill_random(in, 3);
  fill_random(wt, 4);
  Floats Wb(b.FB * b.CB * w.KH * w.KW * b.CI * 16), Xb(b.CB * b.CI * w.H * w.W), Yb(b.FB * 16 * w.OH() * w.OW());
  if (error.empty()) {
    b.wpack(wt.data(), Wb.data());  // constant weights: re-laid out once, untimed
    b.xpack(in.data(), Xb.data());
  }
  const std::string common = "stdlib nn.conv2d_nchwc (generated op at the workload's shape), " + knobs_text(knobs) +
                             "; weights re-laid out once outside the timed call to OIHW[" + std::to_string(b.CI) +
                             "]i[16]o; x86 JIT (LLVM 19, host CPU) outside the timed call; texrt threads=" +
                             std::to_string(texrt_get_num_threads());
  auto check_nchw = [&] { return check_conv(w, in.data(), wt.data(), out.data()); };
  if (variant == "nchwc") {
    auto call = [&] {
      if (!b.conv) throw std::runtime_error(error);
      b.conv(Xb.data(), Wb.data(), Yb.data());
    };
    auto check = [&] {
      b.yunpack(Yb.data(), out.data());  // untimed: back to NCHW for the float64 check
      return check_nchw();
    };
    return measure(o, w, "texc", variant, call, check,
                   "preferred layout: the convolution alone on NCHW[" + std::to_string(b.CI) +
                       "]c input (transformed outside the timed call), NCHW[16]c output (transformed back for the check only); " +
                       common);
  }
  auto call = [&] {
    if (!b.e2e) throw std::runtime_error(error);
    b.e2e(in.data(), Wb.data(), out.data());
  };
  return measure(o, w, "texc", variant, call, check_nchw,
                 "NCHW in and out: NCHW -> NCHW[" + std::to_string(b.CI) + "]c, convolution, NCHW[16]c -> NCHW, all in the timed call; " +
                     common);
}

// The channel-blocked path of a depthwise convolution (stdlib nn.depthwise_conv2d_nchwc, variant
// `nchwc`): activations NCHW[16]c (channels padded with zeros to a multiple of 16), weights
// [C/16][KH][KW][16], both re-laid out outside the timed call; the output NCHW[16]c is converted
// back to NCHW for the check only: the analogue of oneDNN `any` (nChw16c).
bool measure_dw_blocked(const Options &o, const Workload &w, const texc::KnobConfig &knobs) {
  const int64_t CB = (w.IC + 15) / 16;
  auto s = [](int64_t v) { return std::to_string(v); };
  std::string X = "f32[1, " + s(w.IC) + ", " + s(w.H) + ", " + s(w.W) + "]";
  std::string Xb = "f32[1, " + s(CB) + ", " + s(w.H) + ", " + s(w.W) + ", 16]";
  std::string Wt = "f32[" + s(w.OC) + ", 1, " + s(w.KH) + ", " + s(w.KW) + "]";
  std::string Wb = "f32[" + s(CB) + ", " + s(w.KH) + ", " + s(w.KW) + ", 16]";
  std::string Yb = "f32[1, " + s(CB) + ", " + s(w.OH()) + ", " + s(w.OW()) + ", 16]";
  std::string src =
      "import nn.conv2d_nchwc\nimport nn.depthwise_conv2d\n"
      "op wpack(Wt: " + Wt + ") -> Wb {\n  compute {\n    Wb[cb: " + s(CB) + ", ry: " + s(w.KH) + ", rx: " + s(w.KW) +
      ", ci: 16] = select(cb*16 + ci < " + s(w.OC) + ", Wt[cb*16 + ci, 0, ry, rx], 0.0)\n  }\n}\n"
      "op xpack(X: " + X + ") -> Xb {\n  compute { Xb = nchw_to_nchwc(X, block = 16) }\n}\n"
      "op conv(Xb: " + Xb + ", Wb: " + Wb + ") -> Yb {\n  compute { Yb = depthwise_conv2d_nchwc(Xb, Wb, stride = " +
      s(w.stride) + ", pad = " + s(w.pad) + ") }\n}\n"
      "op yunpack(Yb: " + Yb + ") -> Y {\n  compute { Y = nchwc_to_nchw(Yb, channels = " + s(w.OC) + ") }\n}\n";
  std::unique_ptr<texc::JitModule> jit;
  Fn2 wpack = nullptr, xpack = nullptr, yunpack = nullptr;
  Fn3 conv = nullptr;
  std::string error;
  try {
    texc::FrontendOptions fo;
    fo.stdlib_dir = kSource + "/stdlib";
    fo.target = "x86";
    texc::Program p = texc::compile_source(w.name + "_dw_nchwc.tex", src, fo);
    std::vector<texc::LoweredFunc> fs;
    for (const auto &op : p.ops) {
      texc::LowerOptions lo = host_lower_options(knobs);
      fs.push_back(texc::lower_op(op, lo));
    }
    texc::CpuTargetOptions t;
    t.arch = "x86";
    jit = texc::JitModule::create(fs, t);
    wpack = reinterpret_cast<Fn2>(jit->lookup("wpack"));
    xpack = reinterpret_cast<Fn2>(jit->lookup("xpack"));
    yunpack = reinterpret_cast<Fn2>(jit->lookup("yunpack"));
    conv = reinterpret_cast<Fn3>(jit->lookup("conv"));
    if (!wpack || !xpack || !yunpack || !conv) throw std::runtime_error("JIT: missing blocked ops");
  } catch (const std::exception &e) {
    error = std::string("compile: ") + e.what();
    conv = nullptr;
  }
  Floats in(w.IC * w.H * w.W), wt(w.OC * w.KH * w.KW), out(w.OC * w.OH() * w.OW());
  fill_random(in, 3);
  fill_random(wt, 4);
  Floats Wbuf(CB * w.KH * w.KW * 16), Xbuf(CB * 16 * w.H * w.W), Ybuf(CB * 16 * w.OH() * w.OW());
  if (error.empty()) {
    wpack(wt.data(), Wbuf.data());
    xpack(in.data(), Xbuf.data());
  }
  auto call = [&] {
    if (!conv) throw std::runtime_error(error);
    conv(Xbuf.data(), Wbuf.data(), Ybuf.data());
  };
  auto check = [&] {
    yunpack(Ybuf.data(), out.data());  // untimed: back to NCHW for the float64 check
    return check_conv(w, in.data(), wt.data(), out.data());
  };
  return measure(o, w, "texc", "nchwc", call, check,
                 "preferred layout: stdlib nn.depthwise_conv2d_nchwc (generated op at the workload's shape) alone on "
                 "NCHW[16]c input (transformed outside the timed call), NCHW[16]c output (transformed back for the check "
                 "only), weights re-laid out once to [C/16][KH][KW][16]; " + knobs_text(knobs) +
                     "; x86 JIT (LLVM 19, host CPU) outside the timed call; texrt threads=" +
                     std::to_string(texrt_get_num_threads()));
}

// The int8 convolution (variant `stdlib` of Q2-Q12): stdlib nn.int8_cpu.conv2d_u8s8, an op
// generated at the workload's shape and shift, JIT-compiled outside the timed call, default knobs.
// Its layouts (docs/stdlib.md): input X[n, cb, y, x, ci] = plain X[n, cb*4 + ci, y, x] (4 input
// channels per block), weights Wt[fb, cb, ry, rx, fo, ci] = plain Wt[fb*16 + fo, cb*4 + ci, ry, rx]
// (16 outputs x 4 inputs per block), output Y[n, fb, oy, ox, fo] = plain Y[n, fb*16 + fo, oy, ox].
// The re-layouts are plain loops here, outside the timed call (the output's for the check only),
// so the check does not depend on texc for them. Needs IC % 4 == 0 and OC % 16 == 0 (C2-C12 have).
bool measure_qconv(const Options &o, const Workload &w) {
  using FnQ = void (*)(const uint8_t *, const int8_t *, uint8_t *);
  const int64_t CB = w.IC / 4, FB = w.OC / 16, H = w.H, W = w.W, KH = w.KH, KW = w.KW, OH = w.OH(), OW = w.OW();
  auto s = [](int64_t v) { return std::to_string(v); };
  const std::string src =
      "import nn.int8_cpu\n"
      "op conv(X: u8[1, " + s(CB) + ", " + s(H) + ", " + s(W) + ", 4], Wt: i8[" + s(FB) + ", " + s(CB) + ", " + s(KH) +
      ", " + s(KW) + ", 16, 4]) -> Y {\n  compute { Y = conv2d_u8s8(X, Wt, shift = " + s(w.shift) + ", stride = " +
      s(w.stride) + ", pad = " + s(w.pad) + ") }\n}\n";
  std::unique_ptr<texc::JitModule> jit;
  FnQ conv = nullptr;
  std::string error;
  if (w.IC % 4 != 0 || w.OC % 16 != 0) error = "conv2d_u8s8 needs IC % 4 == 0 and OC % 16 == 0";
  try {
    if (!error.empty()) throw std::runtime_error(error);
    texc::FrontendOptions fo;
    fo.stdlib_dir = kSource + "/stdlib";
    fo.target = "x86";
    texc::Program p = texc::compile_source(w.name + "_u8s8.tex", src, fo);
    std::vector<texc::LoweredFunc> fs;
    for (const auto &op : p.ops) {
      texc::LowerOptions lo = host_lower_options({});
      fs.push_back(texc::lower_op(op, lo));
    }
    if (fs.size() != 1 || fs[0].args.size() != 3) throw std::runtime_error("expected one op conv(X, Wt) -> Y");
    texc::CpuTargetOptions t;
    t.arch = "x86";  // host CPU and features (avx512vnni)
    jit = texc::JitModule::create(fs, t);
    conv = reinterpret_cast<FnQ>(jit->lookup("conv"));
    if (!conv) throw std::runtime_error("JIT: no symbol conv");
  } catch (const std::exception &e) {
    error = std::string("compile: ") + e.what();
    conv = nullptr;
  }
  U8s in(w.IC * H * W), out(w.OC * OH * OW), Xb(w.IC * H * W), Yb(w.OC * OH * OW);
  S8s wt(w.OC * w.IC * KH * KW), Wb(w.OC * w.IC * KH * KW);
  fill_random(in, 3);
  fill_random(wt, 4);
  for (int64_t cb = 0; cb < CB; ++cb)
    for (int64_t y = 0; y < H; ++y)
      for (int64_t x = 0; x < W; ++x)
        for (int64_t ci = 0; ci < 4; ++ci) Xb[((cb * H + y) * W + x) * 4 + ci] = in[((cb * 4 + ci) * H + y) * W + x];
  for (int64_t fb = 0; fb < FB; ++fb)
    for (int64_t cb = 0; cb < CB; ++cb)
      for (int64_t ry = 0; ry < KH; ++ry)
        for (int64_t rx = 0; rx < KW; ++rx)
          for (int64_t fo = 0; fo < 16; ++fo)
            for (int64_t ci = 0; ci < 4; ++ci)
              Wb[((((fb * CB + cb) * KH + ry) * KW + rx) * 16 + fo) * 4 + ci] =
                  wt[(((fb * 16 + fo) * w.IC + cb * 4 + ci) * KH + ry) * KW + rx];
  auto call = [&] {
    if (!conv) throw std::runtime_error(error);
    conv(Xb.data(), Wb.data(), Yb.data());
  };
  auto check = [&] {
    // untimed: back to NCHW for the exact integer check
    for (int64_t fb = 0; fb < FB; ++fb)
      for (int64_t y = 0; y < OH; ++y)
        for (int64_t x = 0; x < OW; ++x)
          for (int64_t fo = 0; fo < 16; ++fo) out[((fb * 16 + fo) * OH + y) * OW + x] = Yb[((fb * OH + y) * OW + x) * 16 + fo];
    return check_qconv(w, in.data(), wt.data(), out.data());
  };
  return measure(o, w, "texc", "stdlib", call, check,
                 "stdlib nn.int8_cpu.conv2d_u8s8 (vpdpbusd; generated op at the workload's shape, shift " + s(w.shift) +
                     "), all knobs at their first value, alone on u8 NCHW[4]c input (transformed outside the timed call), "
                     "u8 NCHW[16]c output (transformed back for the check only), s8 weights re-laid out once to "
                     "OIHW[16]o[4]i; x86 JIT (LLVM 19, host CPU) outside the timed call; texrt threads=" +
                     std::to_string(texrt_get_num_threads()));
}

}  // namespace

int main(int argc, char **argv) {
  Options o = parse_options(argc, argv, "texc", {Kind::Gemm, Kind::Conv, Kind::DwConv, Kind::QConv});
  texrt_set_num_threads(o.threads);
  TunedRecords tuned;
  try {
    tuned = tuned_records(o.threads);
  } catch (const std::exception &e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  bool ok = true;
  const bool vnni = cpu_has_avx512_vnni();
  bool said_skipped = false;
  for (const Workload &w : o.workloads) {
    if (w.kind == Kind::QConv) {
      if (!vnni && !said_skipped) std::cerr << "bench_texc: " << kQConvSkipped << "\n";
      said_skipped = true;
      if (vnni && o.want_variant("stdlib")) ok &= measure_qconv(o, w);
      continue;
    }
    std::vector<std::pair<std::string, texc::KnobConfig>> variants;
    if (o.want_variant("stdlib")) variants.push_back({"stdlib", {}});
    std::string tuned_from;
    if (o.want_variant("tuned")) {
      std::optional<texc::Record> r;
      try {
        r = tuned_record(tuned.records, w);
      } catch (const std::exception &e) {
        std::cerr << "bench_texc: " << w.name << ": " << e.what() << "\n";
      }
      if (r) {
        variants.push_back({"tuned", r->knobs});
        tuned_from = " (the best record of " + tuned.from + ": trial " + std::to_string(r->trial) + ", measured on " +
                     r->device + ")";
      }
    }
    if (w.kind == Kind::Conv) {
      for (const std::string v : {"nchwc", "nchwc_e2e"})
        if (o.want_variant(v)) ok &= measure_blocked(o, w, v, texc::KnobConfig{});
    }
    if (w.kind == Kind::DwConv && o.want_variant("nchwc")) ok &= measure_dw_blocked(o, w, texc::KnobConfig{});
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
                           (variant == "tuned" ? tuned_from : "") +
                           "; x86 JIT (LLVM 19, host CPU) compiled outside the timed call; peers' layouts" +
                           std::string(c.prepare ? "; const weights re-laid out once by " + w.name + "_prepare, untimed"
                                                 : ", no re-layout") +
                           "; texrt threads=" + std::to_string(texrt_get_num_threads());
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
        // const weights: prepared once, untimed, as oneDNN reorders its weights once.
        Floats prepared(c.prepared_elems);
        if (c.prepare) reinterpret_cast<Fn2>(c.prepare)(wt.data(), prepared.data());
        const float *weights = c.prepare ? prepared.data() : wt.data();
        auto call = [&] {
          if (!fn) throw std::runtime_error(error);
          fn(in.data(), weights, out.data());
        };
        ok &= measure(o, w, "texc", variant, call, [&] { return check_conv(w, in.data(), wt.data(), out.data()); }, detail);
      }
    }
  }
  return ok ? 0 : 1;
}

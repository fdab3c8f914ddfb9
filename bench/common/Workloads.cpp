#include "bench/common/Workloads.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace bench {

const char *kind_name(Kind k) {
  switch (k) {
  case Kind::Gemm: return "gemm";
  case Kind::Conv: return "conv";
  case Kind::DwConv: return "dwconv";
  case Kind::QConv: return "qconv";
  }
  return "?";
}

double Workload::flops() const {
  switch (kind) {
  case Kind::Gemm: return 2.0 * M * N * K;
  case Kind::Conv:
  case Kind::QConv: return 2.0 * OC * OH() * OW() * IC * KH * KW;
  case Kind::DwConv: return 2.0 * OC * OH() * OW() * KH * KW;
  }
  return 0;
}

std::string Workload::shape() const {
  std::ostringstream s;
  if (kind == Kind::Gemm)
    s << M << "x" << N << "x" << K;
  else
    s << H << "x" << W << " " << IC << "->" << OC << " k" << KH << " s" << stride;
  if (kind == Kind::QConv) s << " >>" << shift;
  return s.str();
}

static Workload gemm(const char *name, int64_t m, int64_t n, int64_t k) {
  Workload w;
  w.name = name;
  w.kind = Kind::Gemm;
  w.M = m, w.N = n, w.K = k;
  return w;
}

static Workload conv(const char *name, int64_t hw, int64_t ic, int64_t oc, int64_t k, int64_t s) {
  Workload w;
  w.name = name;
  w.kind = Kind::Conv;
  w.H = w.W = hw, w.IC = ic, w.OC = oc, w.KH = w.KW = k, w.stride = s, w.pad = k / 2;
  return w;
}

static Workload dwconv(const char *name, int64_t hw, int64_t c, int64_t k, int64_t s) {
  Workload w = conv(name, hw, c, c, k, s);
  w.kind = Kind::DwConv;
  w.pad = 1;  // workloads.md: padding 1
  return w;
}

int64_t qconv_shift(int64_t reduction) {
  // One product x*w: x uniform on 0..255 (mean 127.5), w uniform on -128..127 (mean -0.5), both
  // of variance (256^2 - 1) / 12; var(x*w) = E[x^2] E[w^2] - (E[x] E[w])^2.
  const double var_u = (256.0 * 256.0 - 1.0) / 12.0;
  const double ex2 = var_u + 127.5 * 127.5, ew2 = var_u + 0.5 * 0.5;
  const double sigma = std::sqrt(double(reduction) * (ex2 * ew2 - 63.75 * 63.75));
  return std::lround(std::log2(sigma / 100.0));
}

// Q<n>: C<n> quantized.
static Workload qconv(const Workload &c) {
  Workload w = c;
  w.name = "Q" + c.name.substr(1);
  w.kind = Kind::QConv;
  w.shift = qconv_shift(c.IC * c.KH * c.KW);
  return w;
}

static std::vector<Workload> with_qconv(std::vector<Workload> all) {
  std::vector<Workload> q;
  for (const Workload &w : all)
    if (w.kind == Kind::Conv && w.name != "C1") q.push_back(qconv(w));  // C1 has 3 input channels
  all.insert(all.end(), q.begin(), q.end());
  return all;
}

const std::vector<Workload> &all_workloads() {
  static const std::vector<Workload> all = with_qconv({
      gemm("G1", 256, 256, 256),          gemm("G2", 512, 512, 512),
      gemm("G3", 1024, 1024, 1024),       gemm("G4", 2048, 2048, 2048),
      gemm("G5", 1000, 1000, 1000),       gemm("G6", 127, 255, 511),
      conv("C1", 224, 3, 64, 7, 2),       conv("C2", 56, 64, 64, 3, 1),
      conv("C3", 56, 64, 64, 1, 1),       conv("C4", 56, 64, 128, 3, 2),
      conv("C5", 56, 64, 128, 1, 2),      conv("C6", 28, 128, 128, 3, 1),
      conv("C7", 28, 128, 256, 3, 2),     conv("C8", 28, 128, 256, 1, 2),
      conv("C9", 14, 256, 256, 3, 1),     conv("C10", 14, 256, 512, 3, 2),
      conv("C11", 14, 256, 512, 1, 2),    conv("C12", 7, 512, 512, 3, 1),
      dwconv("D1", 112, 32, 3, 1),        dwconv("D2", 112, 64, 3, 2),
      dwconv("D3", 56, 128, 3, 1),        dwconv("D4", 56, 128, 3, 2),
      dwconv("D5", 28, 256, 3, 1),        dwconv("D6", 28, 256, 3, 2),
      dwconv("D7", 14, 512, 3, 1),        dwconv("D8", 14, 512, 3, 2),
      dwconv("D9", 7, 1024, 3, 1),
  });
  return all;
}

std::vector<Workload> select_workloads(const std::string &list) {
  std::vector<Workload> out;
  auto add = [&](const Workload &w) {
    for (const Workload &o : out)
      if (o.name == w.name) return;
    out.push_back(w);
  };
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    bool found = false;
    for (const Workload &w : all_workloads()) {
      if (item == "all" || item == w.name || item == kind_name(w.kind)) {
        add(w);
        found = true;
      }
    }
    if (!found) throw std::invalid_argument("unknown workload '" + item + "'");
  }
  // Keep the order of workloads.md whatever the order on the command line.
  std::vector<Workload> ordered;
  for (const Workload &w : all_workloads())
    for (const Workload &o : out)
      if (o.name == w.name) ordered.push_back(o);
  return ordered;
}

}  // namespace bench

#include "bench/common/Harness.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <random>
#include <sstream>

namespace bench {

// ---- command line -------------------------------------------------------------------------

bool Options::want_variant(const std::string &v) const {
  if (variants.empty()) return true;
  std::stringstream ss(variants);
  std::string item;
  while (std::getline(ss, item, ','))
    if (item == v) return true;
  return false;
}

static void usage(const std::string &peer, const std::vector<Kind> &kinds, int code) {
  std::string ks;
  for (Kind k : kinds) ks += std::string(ks.empty() ? "" : ",") + kind_name(k);
  std::fprintf(code ? stderr : stdout,
               "usage: bench_%s [--workloads LIST] [--threads N] [--repeat N] [--variants LIST] [--json]\n"
               "  --workloads LIST  names (G1,C2,D3,Q2), kinds (gemm,conv,dwconv,qconv) or all; default: %s\n"
               "  --threads N       worker threads (default 1)\n"
               "  --repeat N        timed samples after warm-up; the median is reported (default 10)\n"
               "  --variants LIST   only these variants (default: all of this peer's variants)\n"
               "  --json            one JSON object per measurement on stdout\n",
               peer.c_str(), ks.c_str());
  std::exit(code);
}

Options parse_options(int argc, char **argv, const std::string &peer, std::vector<Kind> kinds) {
  Options o;
  std::string list;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(peer, kinds, 2);
      return argv[++i];
    };
    if (a == "--workloads") list = value();
    else if (a == "--threads") o.threads = std::atoi(value().c_str());
    else if (a == "--repeat") o.repeat = std::atoi(value().c_str());
    else if (a == "--variants") o.variants = value();
    else if (a == "--json") o.json = true;
    else if (a == "--help" || a == "-h") usage(peer, kinds, 0);
    else {
      std::fprintf(stderr, "bench_%s: unknown argument '%s'\n", peer.c_str(), a.c_str());
      usage(peer, kinds, 2);
    }
  }
  if (o.threads < 1 || o.repeat < 1) usage(peer, kinds, 2);
  if (list.empty())
    for (Kind k : kinds) list += std::string(list.empty() ? "" : ",") + kind_name(k);
  try {
    for (const Workload &w : select_workloads(list))
      if (std::find(kinds.begin(), kinds.end(), w.kind) != kinds.end()) o.workloads.push_back(w);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bench_%s: %s\n", peer.c_str(), e.what());
    std::exit(2);
  }
  return o;
}

// ---- data ---------------------------------------------------------------------------------

void Floats::Free::operator()(float *p) const { std::free(p); }

Floats::Floats(int64_t n) : n_(n) {
  size_t bytes = ((size_t(n) * sizeof(float) + 63) / 64) * 64;
  if (bytes == 0) bytes = 64;
  p_.reset(static_cast<float *>(std::aligned_alloc(64, bytes)));
  std::memset(p_.get(), 0, bytes);
}

void fill_random(Floats &a, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < a.size(); ++i) a[i] = dist(rng);
}

template <typename T>
void Int8s<T>::Free::operator()(T *p) const { std::free(p); }

template <typename T>
Int8s<T>::Int8s(int64_t n) : n_(n) {
  size_t bytes = ((size_t(n) + 63) / 64) * 64;
  if (bytes == 0) bytes = 64;
  p_.reset(static_cast<T *>(std::aligned_alloc(64, bytes)));
  std::memset(p_.get(), 0, bytes);
}

template class Int8s<uint8_t>;
template class Int8s<int8_t>;

void fill_random(U8s &a, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> dist(0, 255);
  for (int64_t i = 0; i < a.size(); ++i) a[i] = uint8_t(dist(rng));
}

void fill_random(S8s &a, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> dist(-128, 127);
  for (int64_t i = 0; i < a.size(); ++i) a[i] = int8_t(dist(rng));
}

bool cpu_has_avx512_vnni() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_cpu_supports("avx512vnni");
#else
  return false;
#endif
}

const char *const kQConvSkipped =
    "qconv workloads skipped: this CPU has no AVX-512 VNNI (avx512_vnni in /proc/cpuinfo), which they need";

// ---- timing -------------------------------------------------------------------------------

using Clock = std::chrono::steady_clock;

static double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

static double cpu_ms_now() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

Timing time_it(const std::function<void()> &call, int repeat) {
  // Warm-up: at least 3 calls and 200 ms (JIT/first-touch/thread-pool start-up fall in here).
  double fastest = 1e30;
  auto start = Clock::now();
  for (int n = 0; n < 3 || ms_since(start) < 200.0; ++n) {
    auto t0 = Clock::now();
    call();
    fastest = std::min(fastest, ms_since(t0));
  }
  Timing t;
  t.inner = fastest >= 1.0 ? 1 : std::min(1000, int(std::ceil(1.0 / std::max(fastest, 1e-6))));
  std::vector<double> samples, cpu;
  for (int r = 0; r < repeat; ++r) {
    double c0 = cpu_ms_now();
    auto t0 = Clock::now();
    for (int k = 0; k < t.inner; ++k) call();
    samples.push_back(ms_since(t0) / t.inner);
    cpu.push_back((cpu_ms_now() - c0) / t.inner);
  }
  t.median_ms = median(samples);
  t.min_ms = *std::min_element(samples.begin(), samples.end());
  t.cpu_ms = median(cpu);
  t.runs = int(samples.size());
  return t;
}

// ---- verification -------------------------------------------------------------------------

// The output points to check: all of them when the reference is cheap, else a seeded sample.
static std::vector<int64_t> points_to_check(int64_t total, int64_t reduction) {
  std::vector<int64_t> pts;
  const int64_t kSample = 65536;
  if (double(total) * double(reduction) <= double(int64_t(1) << 27) || total <= kSample) {
    pts.resize(total);
    for (int64_t i = 0; i < total; ++i) pts[i] = i;
    return pts;
  }
  std::mt19937_64 rng(12345);
  std::uniform_int_distribution<int64_t> dist(0, total - 1);
  pts.push_back(0);
  pts.push_back(total - 1);
  for (int64_t i = 0; i < kSample; ++i) pts.push_back(dist(rng));
  std::sort(pts.begin(), pts.end());
  pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
  return pts;
}

template <typename Ref>
static Check compare(const float *out, const std::vector<int64_t> &pts, int64_t total, Ref ref,
                     double tolerance = kTolerance) {
  Check c;
  c.points = int64_t(pts.size());
  c.total = total;
  double max_ref = 0, max_err = 0;
  bool finite = true;
  for (int64_t p : pts) {
    double r = ref(p);
    double x = out[p];
    if (!std::isfinite(x)) finite = false;
    max_ref = std::max(max_ref, std::fabs(r));
    max_err = std::max(max_err, std::fabs(x - r));
  }
  c.max_rel_err = max_ref > 0 ? max_err / max_ref : max_err;
  if (!finite) c.max_rel_err = INFINITY;
  c.ok = finite && c.max_rel_err < tolerance;
  return c;
}

Check check_gemm(const Workload &w, const float *A, const float *B, const float *C, double tolerance) {
  const int64_t M = w.M, N = w.N, K = w.K;
  auto pts = points_to_check(M * N, K);
  return compare(
      C, pts, M * N,
      [&](int64_t p) {
        int64_t i = p / N, j = p % N;
        double s = 0;
        for (int64_t k = 0; k < K; ++k) s += double(A[i * K + k]) * double(B[k * N + j]);
        return s;
      },
      tolerance);
}

Check check_conv(const Workload &w, const float *in, const float *wt, const float *out, double tolerance) {
  const int64_t OH = w.OH(), OW = w.OW(), H = w.H, W = w.W, KH = w.KH, KW = w.KW;
  const bool dw = w.kind == Kind::DwConv;
  const int64_t ICg = dw ? 1 : w.IC;  // input channels per output channel
  auto pts = points_to_check(w.OC * OH * OW, ICg * KH * KW);
  return compare(out, pts, w.OC * OH * OW, [&](int64_t p) {
    int64_t oc = p / (OH * OW), oh = (p / OW) % OH, ow = p % OW;
    double s = 0;
    for (int64_t g = 0; g < ICg; ++g) {
      int64_t ic = dw ? oc : g;
      for (int64_t kh = 0; kh < KH; ++kh) {
        int64_t ih = oh * w.stride + kh - w.pad;
        if (ih < 0 || ih >= H) continue;
        for (int64_t kw = 0; kw < KW; ++kw) {
          int64_t iw = ow * w.stride + kw - w.pad;
          if (iw < 0 || iw >= W) continue;
          s += double(in[(ic * H + ih) * W + iw]) * double(wt[((oc * ICg + g) * KH + kh) * KW + kw]);
        }
      }
    }
    return s;
  }, tolerance);
}

Check check_qconv(const Workload &w, const uint8_t *in, const int8_t *wt, const uint8_t *out) {
  const int64_t OH = w.OH(), OW = w.OW(), H = w.H, W = w.W, KH = w.KH, KW = w.KW, IC = w.IC;
  const int64_t total = w.OC * OH * OW;
  const int64_t scale = int64_t(1) << w.shift;
  auto clip = [](int64_t v) { return std::min<int64_t>(std::max<int64_t>(v, 0), 255); };
  Check c;
  c.points = c.total = total;
  c.ok = true;
  int64_t max_err = 0;
  for (int64_t p = 0; p < total; ++p) {
    int64_t oc = p / (OH * OW), oh = (p / OW) % OH, ow = p % OW;
    int64_t s = 0;
    for (int64_t ic = 0; ic < IC; ++ic)
      for (int64_t kh = 0; kh < KH; ++kh) {
        int64_t ih = oh * w.stride + kh - w.pad;
        if (ih < 0 || ih >= H) continue;
        for (int64_t kw = 0; kw < KW; ++kw) {
          int64_t iw = ow * w.stride + kw - w.pad;
          if (iw < 0 || iw >= W) continue;
          s += int64_t(in[(ic * H + ih) * W + iw]) * int64_t(wt[((oc * IC + ic) * KH + kh) * KW + kw]);
        }
      }
    // floor(s / 2^shift), and whether the exact quotient's fraction is >= 1/2 (then round to
    // nearest may give floor + 1).
    int64_t fl = s >> w.shift;
    bool half_up = 2 * (s - fl * scale) >= scale;
    int64_t floored = clip(fl), rounded = half_up ? clip(fl + 1) : floored;
    int64_t x = out[p];
    max_err = std::max(max_err, std::abs(x - floored));
    if (x != floored && x != rounded) c.ok = false;
  }
  c.max_rel_err = double(max_err);
  return c;
}

// ---- output -------------------------------------------------------------------------------

std::string json_escape(const std::string &s) {
  std::string r;
  for (char c : s) {
    switch (c) {
    case '"': r += "\\\""; break;
    case '\\': r += "\\\\"; break;
    case '\n': r += "\\n"; break;
    case '\t': r += "\\t"; break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        r += buf;
      } else {
        r += c;
      }
    }
  }
  return r;
}

static std::string num(double x) {
  if (!std::isfinite(x)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

void report(const Options &o, const Workload &w, const Measurement &m) {
  if (o.json) {
    std::printf("{\"workload\":\"%s\",\"kind\":\"%s\",\"shape\":\"%s\",\"peer\":\"%s\","
                "\"variant\":\"%s\",\"threads\":%d,\"median_ms\":%s,\"min_ms\":%s,\"cpu_ms\":%s,\"gflops\":%s,"
                "\"verified\":%s,\"max_rel_err\":%s,\"checked_points\":%lld,\"total_points\":%lld,"
                "\"runs\":%d,\"inner\":%d,\"detail\":\"%s\",\"error\":%s}\n",
                w.name.c_str(), kind_name(w.kind), w.shape().c_str(), m.peer.c_str(),
                m.variant.c_str(), m.threads, num(m.timing.median_ms).c_str(),
                num(m.timing.min_ms).c_str(), num(m.timing.cpu_ms).c_str(), num(m.gflops).c_str(), m.check.ok ? "true" : "false",
                num(m.check.max_rel_err).c_str(), (long long)m.check.points,
                (long long)m.check.total, m.timing.runs, m.timing.inner,
                json_escape(m.detail).c_str(),
                m.error.empty() ? "null" : ("\"" + json_escape(m.error) + "\"").c_str());
  } else {
    std::printf("%-4s %-22s %-8s %-22s t=%d  %9.4f ms  %8.2f GFLOP/s  %s (err %.2g, %lld/%lld pts)%s%s\n",
                w.name.c_str(), w.shape().c_str(), m.peer.c_str(), m.variant.c_str(), m.threads,
                m.timing.median_ms, m.gflops, m.check.ok ? "ok" : "WRONG", m.check.max_rel_err,
                (long long)m.check.points, (long long)m.check.total,
                m.error.empty() ? "" : "  error: ", m.error.c_str());
  }
  std::fflush(stdout);
}

bool measure(const Options &o, const Workload &w, const std::string &peer,
             const std::string &variant, const std::function<void()> &call,
             const std::function<Check()> &check, const std::string &detail) {
  if (!o.want_variant(variant)) return true;
  Measurement m;
  m.workload = w.name, m.peer = peer, m.variant = variant, m.threads = o.threads;
  m.detail = detail;
  try {
    call();
    Check before = check();
    m.timing = time_it(call, o.repeat);
    Check after = check();
    m.check = after;
    m.check.ok = before.ok && after.ok;
    m.check.max_rel_err = std::max(before.max_rel_err, after.max_rel_err);
    m.gflops = w.flops() / (m.timing.median_ms * 1e6);
  } catch (const std::exception &e) {
    m.error = e.what();
  }
  report(o, w, m);
  return m.error.empty() && m.check.ok;
}

}  // namespace bench

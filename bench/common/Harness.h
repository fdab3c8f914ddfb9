// What every bench_* executable shares: the command line, aligned buffers with seeded random
// data, the timing rule (warm-up, then the median of --repeat timed samples), the float64
// reference check (int8 convolutions: an exact integer one), and the one-JSON-object-per-measurement
// output. See bench/README.md.
#pragma once

#include "bench/common/Workloads.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace bench {

// ---- command line -------------------------------------------------------------------------

struct Options {
  std::vector<Workload> workloads;  // --workloads (default: every workload of the peer's kinds)
  int threads = 1;                  // --threads
  int repeat = 10;                  // --repeat: timed samples after warm-up
  bool json = false;                // --json: one JSON object per line, nothing else on stdout
  std::string variants;             // --variants a,b: only these variants (default all)

  bool want_variant(const std::string &v) const;
};

// Parses the common flags; `kinds` are the workload kinds this executable measures (workloads of
// other kinds named on the command line are skipped, so one list can be passed to every peer).
// Prints usage and exits on --help or a bad flag.
Options parse_options(int argc, char **argv, const std::string &peer, std::vector<Kind> kinds);

// ---- data ---------------------------------------------------------------------------------

// A 64-byte aligned float array, zero-initialised.
class Floats {
public:
  Floats() = default;
  explicit Floats(int64_t n);
  float *data() { return p_.get(); }
  const float *data() const { return p_.get(); }
  int64_t size() const { return n_; }
  float &operator[](int64_t i) { return p_.get()[i]; }
  float operator[](int64_t i) const { return p_.get()[i]; }

private:
  struct Free {
    void operator()(float *p) const;
  };
  std::unique_ptr<float, Free> p_;
  int64_t n_ = 0;
};

// Uniform in [-1, 1), deterministic for a given seed.
void fill_random(Floats &a, uint64_t seed);

// A 64-byte aligned array of 8-bit integers (T = uint8_t or int8_t), zero-initialised: the data of
// the int8 workloads (u8 activations, s8 weights, u8 outputs).
template <typename T>
class Int8s {
public:
  Int8s() = default;
  explicit Int8s(int64_t n);
  T *data() { return p_.get(); }
  const T *data() const { return p_.get(); }
  int64_t size() const { return n_; }
  T &operator[](int64_t i) { return p_.get()[i]; }
  T operator[](int64_t i) const { return p_.get()[i]; }

private:
  struct Free {
    void operator()(T *p) const;
  };
  std::unique_ptr<T, Free> p_;
  int64_t n_ = 0;
};
using U8s = Int8s<uint8_t>;
using S8s = Int8s<int8_t>;

// Every value equally likely: u8 in [0, 255], s8 in [-128, 127]; deterministic for a given seed.
void fill_random(U8s &a, uint64_t seed);
void fill_random(S8s &a, uint64_t seed);

// Whether this CPU has AVX-512 VNNI (vpdpbusd), which the qconv workloads need: texc's
// nn.int8_cpu schedule is written for it, and oneDNN without it takes u8 x s8 products through
// vpmaddubsw, whose 16-bit pair sums saturate on this data. Without it bench_texc and bench_onednn
// skip the qconv workloads with one line on stderr (kQConvSkipped), not as a failure.
bool cpu_has_avx512_vnni();
extern const char *const kQConvSkipped;

// ---- timing -------------------------------------------------------------------------------

struct Timing {
  double median_ms = 0;  // median over samples of (sample time / inner)
  double min_ms = 0;
  double cpu_ms = 0;     // median over samples of process CPU time / inner: with 1 thread, a
                         // cpu_ms well below median_ms means the process was preempted
  int runs = 0;          // timed samples
  int inner = 1;         // calls per sample (>1 only when one call takes < 1 ms)
};

// Warms up (at least 3 calls and 0.2 s), then takes `repeat` samples. A call shorter than 1 ms is
// repeated `inner` times per sample so that a sample lasts about 1 ms; the reported time is per
// call. Data stay in cache between calls (warm-cache timing, as in the reference measurements).
Timing time_it(const std::function<void()> &call, int repeat);

// ---- verification -------------------------------------------------------------------------

struct Check {
  bool ok = false;
  double max_rel_err = 0;  // max |out - ref| / max |ref| over the checked points (qconv: see check_qconv)
  int64_t points = 0;      // output points compared with the reference
  int64_t total = 0;       // output points in all
};

// Relative error bound for fp32 results against the float64 reference.
constexpr double kTolerance = 1e-4;
// TF32 keeps 10 mantissa bits: each product is within ~2 * 2^-11 of its magnitude.
constexpr double kTf32Tolerance = 2e-3;

// Output points are checked exhaustively when points x reduction length <= 2^27 multiply-adds,
// otherwise at 65536 random points (plus the first and last); the reference is computed in double.
// gemm: A [M][K], B [K][N], C [M][N], row-major.
// `tolerance`: kTolerance, or kTf32Tolerance for a product computed from TF32-rounded operands.
Check check_gemm(const Workload &w, const float *A, const float *B, const float *C, double tolerance = kTolerance);
// conv: in NCHW [IC][H][W], weights OIHW [OC][IC][KH][KW], out NCHW [OC][OH][OW].
// dwconv: weights [C][1][KH][KW].
Check check_conv(const Workload &w, const float *in, const float *weights, const float *out, double tolerance = kTolerance);

// qconv: in u8 NCHW [IC][H][W], weights s8 OIHW [OC][IC][KH][KW], out u8 NCHW [OC][OH][OW], all the
// output points, against the exact sum s (int64) of each: a point is right when it is
// clip(floor(s / 2^shift), 0, 255) (an arithmetic shift, texc's requantization) or
// clip(round(s / 2^shift), 0, 255) (round to nearest, ties either way: oneDNN's output scale
// 2^-shift, applied in fp32, which is exact here), so never more than 1 from the first.
// max_rel_err holds the largest |out - clip(floor(s / 2^shift), 0, 255)|, in output units.
Check check_qconv(const Workload &w, const uint8_t *in, const int8_t *weights, const uint8_t *out);

// ---- output -------------------------------------------------------------------------------

struct Measurement {
  std::string workload, peer, variant;
  int threads = 1;
  Timing timing;
  double gflops = 0;
  Check check;
  std::string detail;  // implementation notes (primitive chosen, schedule, layouts)
  std::string error;   // set when the variant could not run; then no timing
};

// Prints one measurement: a JSON object on one line with --json, else a readable line.
// Keys: workload, kind, shape, peer, variant, threads, median_ms, min_ms, cpu_ms, gflops, verified,
// max_rel_err, checked_points, total_points, runs, inner, detail, error.
void report(const Options &o, const Workload &w, const Measurement &m);

// The whole measurement for one variant: `prepare` sets up (untimed), `call` is what is timed,
// `check` verifies the output of the calls made so far. Verification runs after the warm-up
// calls and again after timing; exceptions become the measurement's error. Returns false if
// the result was wrong or the variant failed.
bool measure(const Options &o, const Workload &w, const std::string &peer,
             const std::string &variant, const std::function<void()> &call,
             const std::function<Check()> &check, const std::string &detail = "");

std::string json_escape(const std::string &s);

}  // namespace bench

// OpenBLAS cblas_sgemm, row-major, on the matrix-product workloads (G1-G6).
// Threads: openblas_set_num_threads(--threads) (the Debian pthread build of OpenBLAS).
// Kernels: OpenBLAS (DYNAMIC_ARCH) picks its kernels by CPU model when it loads, unless
// OPENBLAS_CORETYPE in the environment forces a choice; the variant is then named sgemm_<coretype>
// (e.g. sgemm_haswell: AVX2 kernels only), so a forced run never passes for the default one.
// bench/run_bench.py removes OPENBLAS_CORETYPE from the environment.
#include "bench/common/Harness.h"

#include <cblas.h>

#include <cctype>
#include <cstdlib>
#include <string>

using namespace bench;

int main(int argc, char **argv) {
  Options o = parse_options(argc, argv, "openblas", {Kind::Gemm});
  openblas_set_num_threads(o.threads);
  std::string detail = std::string("cblas_sgemm row-major NN; ") + openblas_get_config() +
                       "; core=" + openblas_get_corename() +
                       "; threads=" + std::to_string(openblas_get_num_threads());
  std::string variant = "sgemm";
  if (const char *core = std::getenv("OPENBLAS_CORETYPE"); core && *core) {
    variant += "_";
    for (const char *p = core; *p; ++p) variant += char(std::tolower(static_cast<unsigned char>(*p)));
  }
  bool ok = true;
  for (const Workload &w : o.workloads) {
    Floats A(w.M * w.K), B(w.K * w.N), C(w.M * w.N);
    fill_random(A, 1);
    fill_random(B, 2);
    ok &= measure(
        o, w, "openblas", variant,
        [&] {
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(w.M), int(w.N), int(w.K), 1.0f,
                      A.data(), int(w.K), B.data(), int(w.N), 0.0f, C.data(), int(w.N));
        },
        [&] { return check_gemm(w, A.data(), B.data(), C.data()); }, detail);
  }
  return ok ? 0 : 1;
}

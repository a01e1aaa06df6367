// BlasGemm on OpenBLAS's cblas_sgemm / cblas_dgemm (OPKIT_HAVE_OPENBLAS), on
// Eigen's product compiled for AVX-512 (OPKIT_HAVE_GEMM_AVX512,
// libopkit_gemm_avx512.so), or on Eigen's product at the build's baseline.
//
// Note [MatMul on AVX-512]
// Debian 12's OpenBLAS (0.3.21) has AVX-512 kernels only for the Intel cores
// it knows (SkylakeX, Cooperlake, SapphireRapids); on an AMD Zen 4 or Zen 5
// it runs its AVX2 "Haswell" kernels, at half the vector width the CPU has.
// Eigen's product compiled for AVX-512 is then much faster: one thread, this
// project's training-step shapes, on a Zen 5 (`bench/blas_gemm_bench.cc`):
// 64x784x512 float 298 us against OpenBLAS's 570 us (numpy's product on
// OpenBLAS forced to its SkylakeX kernels with OPENBLAS_CORETYPE: 370 us,
// against 521 us unforced). So when the CPU has AVX-512 (F, DQ, VL, BW)
// and OpenBLAS's core is not one of its AVX-512 ones, or opkit has no
// OpenBLAS, BlasGemm runs the AVX-512 build; otherwise OpenBLAS. The choice
// is made once per process and is BlasGemmBackend(). The portable build
// stays portable: the AVX-512 code lives in a library of its own
// (gemm_avx512.cc says why) that is called only after the CPU check.
#include "opkit/kernels/blas_gemm.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

#include "opkit/core/errors.h"
#include "opkit/kernels/internal/eigen_gemm.h"

#ifdef OPKIT_HAVE_OPENBLAS
#include <cblas.h>

#include <mutex>
#endif

#ifdef OPKIT_HAVE_GEMM_AVX512
#include "opkit/kernels/gemm_avx512.h"
#endif

namespace opkit {
namespace {

#ifdef OPKIT_HAVE_OPENBLAS
// Note [OpenBLAS threads]
// Kernels call BlasGemm from the intra-op pool, one block per thread, so the
// product of each call must stay on its calling thread: an OpenBLAS that
// started its own threads for every call would run (intra-op threads) x
// (OpenBLAS threads) busy threads on the machine's cores, and its threads
// would ignore the session's intra_op_parallelism setting. So at the first
// BlasGemm call, OpenBLAS is set to one thread -- unless the user chose a
// count with OPENBLAS_NUM_THREADS, GOTO_NUM_THREADS or OMP_NUM_THREADS,
// which is then left alone (and multiplies with the intra-op threads, as
// the user asked).
//
// The setting is OpenBLAS's own, one per process: other users of the same
// library in the process are single-threaded from then on too. That
// includes numpy in a Python process that imported opkit (Debian's numpy
// reaches the same libopenblas.so.0 through libblas.so.3): a large
// numpy.matmul after an opkit convolution uses one core. Set
// OPENBLAS_NUM_THREADS before starting the process to keep OpenBLAS's
// threads (for numpy and opkit alike), or call
// threadpoolctl / openblas_set_num_threads afterwards to change it again.
void LimitOpenBlasThreadsOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const char* var :
         {"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"}) {
      const char* value = std::getenv(var);
      if (value != nullptr && value[0] != '\0') return;
    }
    openblas_set_num_threads(1);
  });
}

// Whether every dimension fits cblas's int.
bool FitsBlasInt(int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
                 int64_t ldc) {
  constexpr int64_t kMax = std::numeric_limits<int>::max();
  return m <= kMax && n <= kMax && k <= kMax && lda <= kMax && ldb <= kMax &&
         ldc <= kMax;
}

CBLAS_TRANSPOSE Op(bool transpose) {
  return transpose ? CblasTrans : CblasNoTrans;
}

void Cblas(bool ta, bool tb, int m, int n, int k, const float* a, int lda,
           const float* b, int ldb, float* c, int ldc) {
  cblas_sgemm(CblasRowMajor, Op(ta), Op(tb), m, n, k, 1.0f, a, lda, b, ldb,
              0.0f, c, ldc);
}

void Cblas(bool ta, bool tb, int m, int n, int k, const double* a, int lda,
           const double* b, int ldb, double* c, int ldc) {
  cblas_dgemm(CblasRowMajor, Op(ta), Op(tb), m, n, k, 1.0, a, lda, b, ldb, 0.0,
              c, ldc);
}
#endif  // OPKIT_HAVE_OPENBLAS

// Whether OpenBLAS runs AVX-512 kernels on this CPU: its core name is one of
// the Intel cores it has them for. False without OpenBLAS.
bool OpenBlasRunsAvx512() {
#ifdef OPKIT_HAVE_OPENBLAS
  const char* core = openblas_get_corename();
  if (core == nullptr) return false;
  std::string name(core);
  for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (const char* avx512_core : {"skylakex", "cooperlake", "sapphirerapids"}) {
    if (name.find(avx512_core) != std::string::npos) return true;
  }
#endif
  return false;
}

// Whether this build and this CPU can multiply on `backend`.
bool Available(GemmBackend backend) {
  switch (backend) {
    case GemmBackend::kOpenBlas:
#ifdef OPKIT_HAVE_OPENBLAS
      return true;
#else
      return false;
#endif
    case GemmBackend::kEigenAvx512:
#ifdef OPKIT_HAVE_GEMM_AVX512
      return internal::GemmAvx512Supported();
#else
      return false;
#endif
    case GemmBackend::kEigen:
      return true;
  }
  return false;
}

// Note [MatMul on AVX-512]: the AVX-512 build where the CPU has it and
// OpenBLAS (if any) does not run AVX-512 kernels itself; else OpenBLAS; else
// baseline Eigen.
GemmBackend ChooseBackend() {
  if (Available(GemmBackend::kEigenAvx512) && !OpenBlasRunsAvx512()) {
    return GemmBackend::kEigenAvx512;
  }
  return Available(GemmBackend::kOpenBlas) ? GemmBackend::kOpenBlas
                                           : GemmBackend::kEigen;
}

// The backend BlasGemm uses: ChooseBackend() until SetBlasGemmBackend.
std::atomic<int>& CurrentBackend() {
  static std::atomic<int> backend{static_cast<int>(ChooseBackend())};
  return backend;
}

}  // namespace

GemmBackend BlasGemmBackend() {
  return static_cast<GemmBackend>(
      CurrentBackend().load(std::memory_order_relaxed));
}

Status SetBlasGemmBackend(GemmBackend backend) {
  if (!Available(backend)) {
    return errors::InvalidArgument(
        "BlasGemm cannot multiply on '", GemmBackendName(backend), "' here: ",
        backend == GemmBackend::kOpenBlas
            ? "opkit was built without OpenBLAS (install libopenblas-dev and "
              "rebuild)"
        : backend == GemmBackend::kEigenAvx512
            ? "this CPU (or this build) has no AVX-512 F, DQ, VL and BW"
            : "it is not a GemmBackend value (kOpenBlas, kEigenAvx512, kEigen)",
        "; it stays on '", GemmBackendName(BlasGemmBackend()), "'");
  }
  CurrentBackend().store(static_cast<int>(backend), std::memory_order_relaxed);
  return OkStatus();
}

const char* GemmBackendName(GemmBackend backend) {
  switch (backend) {
    case GemmBackend::kOpenBlas:
      return "openblas";
    case GemmBackend::kEigenAvx512:
      return "eigen_avx512";
    case GemmBackend::kEigen:
      return "eigen";
  }
  return "unknown";
}

namespace {

template <typename T>
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a,
          int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    for (int64_t i = 0; i < m; ++i) {
      std::fill(c + i * ldc, c + i * ldc + n, T(0));
    }
    return;
  }
  const GemmBackend backend = BlasGemmBackend();
#ifdef OPKIT_HAVE_GEMM_AVX512
  if (backend == GemmBackend::kEigenAvx512) {
    internal::GemmAvx512(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
    return;
  }
#endif
#ifdef OPKIT_HAVE_OPENBLAS
  if (backend == GemmBackend::kOpenBlas && FitsBlasInt(m, n, k, lda, ldb, ldc)) {
    LimitOpenBlasThreadsOnce();
    Cblas(ta, tb, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
          a, static_cast<int>(lda), b, static_cast<int>(ldb), c,
          static_cast<int>(ldc));
    return;
  }
#endif
  internal::EigenGemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
}

}  // namespace

void BlasGemm(bool transpose_a, bool transpose_b, int64_t m, int64_t n,
              int64_t k, const float* a, int64_t lda, const float* b,
              int64_t ldb, float* c, int64_t ldc) {
  Gemm(transpose_a, transpose_b, m, n, k, a, lda, b, ldb, c, ldc);
}

void BlasGemm(bool transpose_a, bool transpose_b, int64_t m, int64_t n,
              int64_t k, const double* a, int64_t lda, const double* b,
              int64_t ldb, double* c, int64_t ldc) {
  Gemm(transpose_a, transpose_b, m, n, k, a, lda, b, ldb, c, ldc);
}

}  // namespace opkit

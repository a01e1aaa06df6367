// BlasGemm on OpenBLAS's cblas_sgemm / cblas_dgemm (OPKIT_HAVE_OPENBLAS), or
// on Eigen's dense product.
#include "opkit/kernels/blas_gemm.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>

#include "Eigen/Core"

#ifdef OPKIT_HAVE_OPENBLAS
#include <cblas.h>

#include <mutex>
#endif

namespace opkit {
namespace {

template <typename T>
void EigenGemm(bool transpose_a, bool transpose_b, int64_t m, int64_t n,
               int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
               T* c, int64_t ldc) {
  using Matrix =
      Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Stride = Eigen::OuterStride<>;
  using ConstMap = Eigen::Map<const Matrix, Eigen::Unaligned, Stride>;
  ConstMap am(a, transpose_a ? k : m, transpose_a ? m : k, Stride(lda));
  ConstMap bm(b, transpose_b ? n : k, transpose_b ? k : n, Stride(ldb));
  Eigen::Map<Matrix, Eigen::Unaligned, Stride> cm(c, m, n, Stride(ldc));
  if (transpose_a && transpose_b) {
    cm.noalias() = am.transpose() * bm.transpose();
  } else if (transpose_a) {
    cm.noalias() = am.transpose() * bm;
  } else if (transpose_b) {
    cm.noalias() = am * bm.transpose();
  } else {
    cm.noalias() = am * bm;
  }
}

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

}  // namespace

bool BlasGemmUsesOpenBlas() {
#ifdef OPKIT_HAVE_OPENBLAS
  return true;
#else
  return false;
#endif
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
#ifdef OPKIT_HAVE_OPENBLAS
  if (FitsBlasInt(m, n, k, lda, ldb, ldc)) {
    LimitOpenBlasThreadsOnce();
    Cblas(ta, tb, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
          a, static_cast<int>(lda), b, static_cast<int>(ldb), c,
          static_cast<int>(ldc));
    return;
  }
#endif
  EigenGemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
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

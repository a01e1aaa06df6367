// BlasGemm: one row-major matrix product C = A * B for float or double on
// OpenBLAS (run-time dispatch to the CPU's widest vector unit, whatever the
// flags opkit was compiled with), or on Eigen when opkit was built without
// OpenBLAS or a dimension does not fit BLAS's int. For kernels that split
// their work over the intra-op pool themselves and call this once per block
// (conv_ops.cc):
//
//   Shard(ctx, rows, cost, [&](int64_t begin, int64_t end) {
//     BlasGemm(end - begin, n, k, a + begin * lda, lda, b, ldb,
//              c + begin * ldc, ldc);
//   });
//
// Single-threaded per call: see Note [OpenBLAS threads] in blas_gemm.cc.
#ifndef OPKIT_KERNELS_BLAS_GEMM_H_
#define OPKIT_KERNELS_BLAS_GEMM_H_

#include <cstdint>

#include "opkit/core/export.h"

namespace opkit {

// Whether BlasGemm runs on OpenBLAS in this build (false: on Eigen).
OPKIT_EXPORT bool BlasGemmUsesOpenBlas();

// c[i * ldc + j] = sum over l < k of op(a)[i][l] * op(b)[l][j], for i < m
// and j < n: op(a) is m x k, op(b) is k x n. Each matrix is row-major with
// the given leading dimension (at least its stored row length), so that a
// block of rows or columns of a wider matrix is read or written in place;
// op(a)[i][l] is a[i * lda + l], or a[l * lda + i] when transpose_a (a is
// stored k x m), and likewise for b. c's previous contents are ignored
// (NaN in them does not leak); k == 0 writes zeros. m, n, k >= 0. Runs on
// the calling thread; thread-safe.
OPKIT_EXPORT void BlasGemm(bool transpose_a, bool transpose_b, int64_t m,
                           int64_t n, int64_t k, const float* a, int64_t lda,
                           const float* b, int64_t ldb, float* c, int64_t ldc);
OPKIT_EXPORT void BlasGemm(bool transpose_a, bool transpose_b, int64_t m,
                           int64_t n, int64_t k, const double* a, int64_t lda,
                           const double* b, int64_t ldb, double* c,
                           int64_t ldc);

// The same without transposes.
inline void BlasGemm(int64_t m, int64_t n, int64_t k, const float* a,
                     int64_t lda, const float* b, int64_t ldb, float* c,
                     int64_t ldc) {
  BlasGemm(false, false, m, n, k, a, lda, b, ldb, c, ldc);
}
inline void BlasGemm(int64_t m, int64_t n, int64_t k, const double* a,
                     int64_t lda, const double* b, int64_t ldb, double* c,
                     int64_t ldc) {
  BlasGemm(false, false, m, n, k, a, lda, b, ldb, c, ldc);
}

}  // namespace opkit

#endif  // OPKIT_KERNELS_BLAS_GEMM_H_

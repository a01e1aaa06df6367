// BlasGemm: one row-major matrix product C = A * B for float or double on
// OpenBLAS (run-time dispatch to the CPU's vector unit, whatever the flags
// opkit was compiled with) or on Eigen compiled for AVX-512 where OpenBLAS
// has no AVX-512 kernels for the CPU (BlasGemmBackend()), or on Eigen when
// opkit was built without OpenBLAS or a dimension does not fit BLAS's int. For kernels that split
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
#include "opkit/core/status.h"

namespace opkit {

// What BlasGemm multiplies on in this process (Note [MatMul on AVX-512] in
// blas_gemm.cc): OpenBLAS; Eigen compiled for AVX-512, on a CPU that has it
// where OpenBLAS is missing or runs its AVX2 kernels; or Eigen compiled for
// the build's baseline (no OpenBLAS, no AVX-512). Decided once.
enum class GemmBackend { kOpenBlas, kEigenAvx512, kEigen };
OPKIT_EXPORT GemmBackend BlasGemmBackend();
// "openblas", "eigen_avx512" or "eigen".
OPKIT_EXPORT const char* GemmBackendName(GemmBackend backend);
// Makes BlasGemm multiply on `backend` from now on in this process (to
// compare backends, or to keep OpenBLAS's rounding where results must match
// an earlier run); kEigen is always available. InvalidArgument, with the
// backend left as it was, when this build or this CPU does not have it.
OPKIT_EXPORT Status SetBlasGemmBackend(GemmBackend backend);

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

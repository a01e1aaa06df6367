// EigenGemm: BlasGemm's contract (opkit/kernels/blas_gemm.h) on Eigen's dense
// product, for the two places that compile it: blas_gemm.cc (the build's
// baseline instructions) and gemm_avx512.cc (AVX-512, in a library of its
// own). Header-only so that each compiles its own copy for its instructions.
//
//   internal::EigenGemm(false, true, m, n, k, a, lda, b, ldb, c, ldc);
#ifndef OPKIT_KERNELS_INTERNAL_EIGEN_GEMM_H_
#define OPKIT_KERNELS_INTERNAL_EIGEN_GEMM_H_

#include <cstdint>

#include "opkit/core/eigen.h"

namespace opkit {
namespace internal {

// c = op(a) * op(b), each row-major with its leading dimension; m, n, k > 0.
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

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_KERNELS_INTERNAL_EIGEN_GEMM_H_

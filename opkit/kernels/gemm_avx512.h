// The float and double matrix products of BlasGemm compiled for AVX-512
// (Eigen's product, built with -mavx512f/dq/vl/bw), in a shared library of
// their own, libopkit_gemm_avx512.so (Note [MatMul on AVX-512] in
// blas_gemm.cc). BlasGemm calls these only on a CPU that has AVX-512;
// nothing else should.
//
//   if (GemmAvx512Supported()) GemmAvx512(false, false, m, n, k, a, lda, ...);
#ifndef OPKIT_KERNELS_GEMM_AVX512_H_
#define OPKIT_KERNELS_GEMM_AVX512_H_

#include <cstdint>

#if defined(OPKIT_BUILDING_GEMM_AVX512)
#define OPKIT_GEMM_AVX512_EXPORT __attribute__((visibility("default")))
#else
#define OPKIT_GEMM_AVX512_EXPORT
#endif

namespace opkit {
namespace internal {

// Whether the CPU and the operating system run the instructions GemmAvx512
// is compiled for (AVX-512 F, DQ, VL and BW, AVX2 and FMA). The check itself
// runs on any x86-64 CPU.
OPKIT_GEMM_AVX512_EXPORT bool GemmAvx512Supported();

// BlasGemm's contract (blas_gemm.h): c = op(a) * op(b), row-major with
// leading dimensions, m, n, k > 0. Only when GemmAvx512Supported().
OPKIT_GEMM_AVX512_EXPORT void GemmAvx512(bool transpose_a, bool transpose_b,
                                         int64_t m, int64_t n, int64_t k,
                                         const float* a, int64_t lda,
                                         const float* b, int64_t ldb, float* c,
                                         int64_t ldc);
OPKIT_GEMM_AVX512_EXPORT void GemmAvx512(bool transpose_a, bool transpose_b,
                                         int64_t m, int64_t n, int64_t k,
                                         const double* a, int64_t lda,
                                         const double* b, int64_t ldb,
                                         double* c, int64_t ldc);

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_KERNELS_GEMM_AVX512_H_

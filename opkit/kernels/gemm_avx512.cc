// libopkit_gemm_avx512.so: Eigen's float and double products compiled for
// AVX-512 (Note [MatMul on AVX-512] in blas_gemm.cc). This file is compiled
// alone, with -mavx512f -mavx512dq -mavx512vl -mavx512bw -mavx2 -mfma and
// hidden visibility, into a library of its own: the Eigen and standard
// library templates it instantiates carry AVX-512 instructions, and inside
// one library the linker keeps one copy of each such template for all its
// sources, so in libopkit_ops.so an SSE2 source could end up calling an
// AVX-512 copy. Here every copy stays private to this library, whose only
// entry points are the functions of gemm_avx512.h. It has no static
// initialisers, so loading it on a CPU without AVX-512 is safe; only
// GemmAvx512Supported() runs before the check. (Eigen comes through
// opkit/core/eigen.h, whose pragmas keep GCC 12's AVX-512 intrinsics from
// tripping -Wmaybe-uninitialized, and whose ABI records are constant data.)
#include "opkit/kernels/gemm_avx512.h"

#include "opkit/kernels/internal/eigen_gemm.h"

namespace opkit {
namespace internal {

// GCC's checks read CPUID and, for the AVX and AVX-512 register state, XCR0:
// an operating system that does not save the ZMM registers turns them off.
// The target attribute keeps this function to the baseline instructions.
__attribute__((target("arch=x86-64"))) bool GemmAvx512Supported() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

void GemmAvx512(bool transpose_a, bool transpose_b, int64_t m, int64_t n,
                int64_t k, const float* a, int64_t lda, const float* b,
                int64_t ldb, float* c, int64_t ldc) {
  EigenGemm(transpose_a, transpose_b, m, n, k, a, lda, b, ldb, c, ldc);
}

void GemmAvx512(bool transpose_a, bool transpose_b, int64_t m, int64_t n,
                int64_t k, const double* a, int64_t lda, const double* b,
                int64_t ldb, double* c, int64_t ldc) {
  EigenGemm(transpose_a, transpose_b, m, n, k, a, lda, b, ldb, c, ldc);
}

}  // namespace internal
}  // namespace opkit

// A loadable op library that replaces the built-in CPU MatMul for float and
// double with a BLAS: oneDNN's dnnl_sgemm for float when oneDNN is
// installed (the fastest float GEMM measured on this kind of machine, see
// bench/blas_matmul_bench.cc), OpenBLAS's cblas_sgemm otherwise, and
// OpenBLAS's cblas_dgemm for double. It registers the same op, device and types
// as the built-in kernels, with a higher priority, so loading it is all it
// takes (Note [Kernel priority] in opkit/kernel/kernel_registry.h); the
// built-in kernels stay registered and win again when it is unloaded. Nodes
// that ask for the "eigen" label keep the built-in kernel.
//
//   OPKIT_ASSIGN_OR_RETURN(OpLibrary blas, LoadOpLibrary("blas_matmul.so"));
//   ctx->Run("MatMul", {a, b}, &out);   // now cblas_sgemm
//   blas.Unload();                      // Eigen again
#include <cblas.h>
#ifdef OPKIT_BLAS_MATMUL_USE_DNNL
#include <dnnl.h>
#endif

#include <cstdint>
#include <limits>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/tensor/tensor.h"

namespace opkit {
namespace {

// Row-major C[m,n] = op(A) op(B).
Status Gemm(bool ta, bool tb, int m, int n, int k, const float* a, int lda,
            const float* b, int ldb, float* c) {
#ifdef OPKIT_BLAS_MATMUL_USE_DNNL
  const dnnl_status_t s = dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k,
                                     1.0f, a, lda, b, ldb, 0.0f, c, n);
  if (s != dnnl_success) {
    return errors::Internal("dnnl_sgemm failed with status ", static_cast<int>(s));
  }
#else
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
              tb ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a, lda, b, ldb,
              0.0f, c, n);
#endif
  return OkStatus();
}

Status Gemm(bool ta, bool tb, int m, int n, int k, const double* a, int lda,
            const double* b, int ldb, double* c) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
              tb ? CblasTrans : CblasNoTrans, m, n, k, 1.0, a, lda, b, ldb,
              0.0, c, n);
  return OkStatus();
}

// C = op(A) x op(B) with A, B row-major matrices; the same contract and
// errors as the built-in MatMul kernel.
template <typename T>
class BlasMatMulOp : public OpKernel {
 public:
  explicit BlasMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.dims() == 2 && b.dims() == 2,
                errors::InvalidArgument(
                    "In[0] and In[1] must be matrices, got shapes ",
                    a.shape().DebugString(), " and ", b.shape().DebugString()));
    const int64_t m = a.dim_size(transpose_a_ ? 1 : 0);
    const int64_t k = a.dim_size(transpose_a_ ? 0 : 1);
    const int64_t k_b = b.dim_size(transpose_b_ ? 1 : 0);
    const int64_t n = b.dim_size(transpose_b_ ? 0 : 1);
    OP_REQUIRES(ctx, k == k_b,
                errors::InvalidArgument(
                    "Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
                    ", In[1]: ", b.shape().DebugString()));
    // BLAS takes int dimensions.
    constexpr int64_t kMax = std::numeric_limits<int>::max();
    OP_REQUIRES(ctx, m <= kMax && n <= kMax && k <= kMax,
                errors::InvalidArgument(
                    "BlasMatMul handles dimensions up to ", kMax, "; got ", m,
                    "x", k, " times ", k, "x", n,
                    ". Unload blas_matmul to use the built-in kernel."));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    if (out->NumElements() == 0) return;
    if (k == 0) {
      out->flat<T>().setZero();
      return;
    }
    OP_REQUIRES_OK(ctx, Gemm(transpose_a_, transpose_b_, static_cast<int>(m),
                             static_cast<int>(n), static_cast<int>(k),
                             a.flat<T>().data(), static_cast<int>(a.dim_size(1)),
                             b.flat<T>().data(), static_cast<int>(b.dim_size(1)),
                             out->flat<T>().data()));
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

// Priority 1: above the built-in kernels (priority 0), so these win.
REGISTER_KERNEL_BUILDER(
    Name("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T").Priority(1),
    BlasMatMulOp<float>);
REGISTER_KERNEL_BUILDER(
    Name("MatMul").Device(DEVICE_CPU).TypeConstraint<double>("T").Priority(1),
    BlasMatMulOp<double>);

}  // namespace
}  // namespace opkit

// The MatMul computation of matmul_op.cc, for kernels that multiply two
// matrices and then do more work on the product (_FusedMatMul):
//
//   TensorShape shape;
//   OP_REQUIRES_OK(ctx, MatMulOutputShape(a, b, transpose_a, transpose_b,
//                                         &shape));
//   Tensor* out = nullptr;
//   OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
//   LaunchMatMul<float>(ctx, a, b, transpose_a, transpose_b, out);
#ifndef OPKIT_KERNELS_MATMUL_OP_H_
#define OPKIT_KERNELS_MATMUL_OP_H_

#include "opkit/core/status.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"

namespace opkit {

// The [m, n] shape of op(a) * op(b), where op transposes when asked.
// InvalidArgument (MatMul's messages) when a or b is not a matrix or the
// inner dimensions differ.
Status MatMulOutputShape(const Tensor& a, const Tensor& b, bool transpose_a,
                         bool transpose_b, TensorShape* shape);

// out = op(a) * op(b) on the device's intra-op pool: float and double on
// BlasGemm (OpenBLAS) when the build has it, the other types on Eigen.
// Requires the checks of MatMulOutputShape and `out` allocated with its
// shape (empty is fine). Instantiated for every type MatMul's kernels take:
// half, bfloat16, float, double, int32, int64, complex64, complex128.
template <typename T>
void LaunchMatMul(OpKernelContext* ctx, const Tensor& a, const Tensor& b,
                  bool transpose_a, bool transpose_b, Tensor* out);

// The same, always on an Eigen tensor contraction (MatMul's Label("eigen")
// kernel).
template <typename T>
void LaunchEigenMatMul(OpKernelContext* ctx, const Tensor& a, const Tensor& b,
                       bool transpose_a, bool transpose_b, Tensor* out);

#define OPKIT_DECLARE_LAUNCH_MATMUL(T)                                        \
  extern template void LaunchMatMul<T>(OpKernelContext*, const Tensor&,      \
                                       const Tensor&, bool, bool, Tensor*);  \
  extern template void LaunchEigenMatMul<T>(OpKernelContext*, const Tensor&, \
                                            const Tensor&, bool, bool, Tensor*);
OPKIT_DECLARE_LAUNCH_MATMUL(half)
OPKIT_DECLARE_LAUNCH_MATMUL(bfloat16)
OPKIT_DECLARE_LAUNCH_MATMUL(float)
OPKIT_DECLARE_LAUNCH_MATMUL(double)
OPKIT_DECLARE_LAUNCH_MATMUL(int32)
OPKIT_DECLARE_LAUNCH_MATMUL(int64)
OPKIT_DECLARE_LAUNCH_MATMUL(complex64)
OPKIT_DECLARE_LAUNCH_MATMUL(complex128)
#undef OPKIT_DECLARE_LAUNCH_MATMUL

}  // namespace opkit

#endif  // OPKIT_KERNELS_MATMUL_OP_H_

// MatMul on CPU: an Eigen tensor contraction on the device's intra-op pool.
// Registered for every type of the op, unlabelled and with Label("eigen"),
// as TensorFlow registers it. The computation itself (MatMulOutputShape,
// LaunchMatMul) is shared with _FusedMatMul through matmul_op.h.
#include "opkit/kernels/matmul_op.h"

#include <string>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"

namespace opkit {

Status MatMulOutputShape(const Tensor& a, const Tensor& b, bool transpose_a,
                         bool transpose_b, TensorShape* shape) {
  if (!TensorShapeUtils::IsMatrix(a.shape())) {
    return errors::InvalidArgument(
        "In[0] is not a matrix. Instead it has shape ",
        a.shape().DebugString());
  }
  if (!TensorShapeUtils::IsMatrix(b.shape())) {
    return errors::InvalidArgument(
        "In[1] is not a matrix. Instead it has shape ",
        b.shape().DebugString());
  }
  const int a_inner = transpose_a ? 0 : 1;
  const int b_inner = transpose_b ? 1 : 0;
  if (a.dim_size(a_inner) != b.dim_size(b_inner)) {
    return errors::InvalidArgument(
        "Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
        ", In[1]: ", b.shape().DebugString(),
        (transpose_a || transpose_b)
            ? StrCat(" (transpose_a=", transpose_a,
                     ", transpose_b=", transpose_b, ")")
            : std::string());
  }
  *shape = TensorShape({a.dim_size(1 - a_inner), b.dim_size(1 - b_inner)});
  return OkStatus();
}

template <typename T>
void LaunchMatMul(OpKernelContext* ctx, const Tensor& a, const Tensor& b,
                  bool transpose_a, bool transpose_b, Tensor* out) {
  if (out->NumElements() == 0) return;
  const int a_inner = transpose_a ? 0 : 1;
  const int b_inner = transpose_b ? 1 : 0;
  auto z = out->matrix<T>();
  if (a.dim_size(a_inner) == 0) {
    z.setZero();
    return;
  }
  Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> dims;
  dims[0] = Eigen::IndexPair<Eigen::DenseIndex>(a_inner, b_inner);
  z.device(ctx->eigen_device<Eigen::ThreadPoolDevice>()) =
      a.matrix<T>().contract(b.matrix<T>(), dims);
}

#define OPKIT_INSTANTIATE_LAUNCH_MATMUL(T)                                \
  template void LaunchMatMul<T>(OpKernelContext*, const Tensor&,          \
                                const Tensor&, bool, bool, Tensor*);
OPKIT_INSTANTIATE_LAUNCH_MATMUL(half)
OPKIT_INSTANTIATE_LAUNCH_MATMUL(bfloat16)
OPKIT_INSTANTIATE_LAUNCH_MATMUL(float)
OPKIT_INSTANTIATE_LAUNCH_MATMUL(double)
OPKIT_INSTANTIATE_LAUNCH_MATMUL(int32)
OPKIT_INSTANTIATE_LAUNCH_MATMUL(int64)
OPKIT_INSTANTIATE_LAUNCH_MATMUL(complex64)
OPKIT_INSTANTIATE_LAUNCH_MATMUL(complex128)
#undef OPKIT_INSTANTIATE_LAUNCH_MATMUL

namespace {

template <typename T>
class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    TensorShape shape;
    // OP_REQUIRES, not OP_REQUIRES_OK: bad shapes are the caller's error and
    // are not logged as warnings.
    const Status s = MatMulOutputShape(a, b, transpose_a_, transpose_b_, &shape);
    OP_REQUIRES(ctx, s.ok(), s);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    LaunchMatMul<T>(ctx, a, b, transpose_a_, transpose_b_, out);
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

#define OPKIT_REGISTER_MATMUL(T)                                             \
  REGISTER_KERNEL_BUILDER(                                                   \
      Name("MatMul").Device(DEVICE_CPU).TypeConstraint<T>("T"),              \
      MatMulOp<T>);                                                          \
  REGISTER_KERNEL_BUILDER(                                                   \
      Name("MatMul").Device(DEVICE_CPU).TypeConstraint<T>("T").Label("eigen"), \
      MatMulOp<T>)

OPKIT_REGISTER_MATMUL(float);
OPKIT_REGISTER_MATMUL(double);
OPKIT_REGISTER_MATMUL(half);
OPKIT_REGISTER_MATMUL(bfloat16);
OPKIT_REGISTER_MATMUL(int32);
OPKIT_REGISTER_MATMUL(int64);
OPKIT_REGISTER_MATMUL(complex64);
OPKIT_REGISTER_MATMUL(complex128);

#undef OPKIT_REGISTER_MATMUL

}  // namespace
}  // namespace opkit

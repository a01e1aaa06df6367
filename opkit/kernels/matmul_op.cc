// MatMul on CPU: an Eigen tensor contraction on the device's intra-op pool.
// Registered for every type of the op, unlabelled and with Label("eigen"),
// as TensorFlow registers it.
#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"

namespace opkit {
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
    OP_REQUIRES(ctx, TensorShapeUtils::IsMatrix(a.shape()),
                errors::InvalidArgument("In[0] is not a matrix. Instead it has shape ",
                                        a.shape().DebugString()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsMatrix(b.shape()),
                errors::InvalidArgument("In[1] is not a matrix. Instead it has shape ",
                                        b.shape().DebugString()));
    const int a_inner = transpose_a_ ? 0 : 1;
    const int b_inner = transpose_b_ ? 1 : 0;
    OP_REQUIRES(ctx, a.dim_size(a_inner) == b.dim_size(b_inner),
                errors::InvalidArgument(
                    "Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
                    ", In[1]: ", b.shape().DebugString(),
                    (transpose_a_ || transpose_b_)
                        ? StrCat(" (transpose_a=", transpose_a_,
                                 ", transpose_b=", transpose_b_, ")")
                        : std::string()));
    const int64_t m = a.dim_size(1 - a_inner);
    const int64_t n = b.dim_size(1 - b_inner);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    if (out->NumElements() == 0) return;
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

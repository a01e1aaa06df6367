// ExampleMatMulOp<Device, T, USE_CUBLAS>: the shape of TensorFlow's MatMul
// kernel as `shared/seeds/001_*.txt` shows it — one class template over
// device, type and "use cuBLAS", attrs read in the constructor, the product
// computed by LaunchMatMul<Device, T, USE_CUBLAS>, which each device
// specialises (CPU in matmul_op.cc, GPU in matmul_op_gpu.cu.cc).
//
//   REGISTER_KERNEL_BUILDER(
//       Name("ExampleMatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"),
//       ExampleMatMulOp<CPUDevice, float, false>);
#ifndef EXAMPLES_MATMUL_REGISTRATIONS_MATMUL_OP_H_
#define EXAMPLES_MATMUL_REGISTRATIONS_MATMUL_OP_H_

#include <vector>

#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor_shape.h"

namespace tensorflow {

// Computes out = op(a) * op(b), op transposing when asked. `out` is already
// allocated with the product's shape and has at least one element.
template <typename Device, typename T, bool USE_CUBLAS>
struct LaunchMatMul {
  static void Launch(OpKernelContext* ctx, const Tensor& a, const Tensor& b,
                     bool transpose_a, bool transpose_b, Tensor* out);
  // TensorFlow picks cuBLAS algorithms here; nothing to pick on CPU.
  static void GetBlasGemmAlgorithm(OpKernelConstruction* ctx,
                                   std::vector<int64>* algorithms,
                                   bool* algorithms_set_already) {}
};

// Autotuning of GEMM algorithms (a GPU concern); off.
inline bool MatmulAutotuneEnable() { return false; }

template <typename Device, typename T, bool USE_CUBLAS>
class ExampleMatMulOp : public OpKernel {
 public:
  explicit ExampleMatMulOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), algorithms_set_already_(false) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));

    LaunchMatMul<Device, T, USE_CUBLAS>::GetBlasGemmAlgorithm(
        ctx, &algorithms_, &algorithms_set_already_);
    use_autotune_ = MatmulAutotuneEnable();
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);

    // Check that the dimensions of the two matrices are valid.
    OP_REQUIRES(ctx, TensorShapeUtils::IsMatrix(a.shape()),
                errors::InvalidArgument("In[0] is not a matrix. Instead it "
                                        "has shape ",
                                        a.shape().DebugString()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsMatrix(b.shape()),
                errors::InvalidArgument("In[1] is not a matrix. Instead it "
                                        "has shape ",
                                        b.shape().DebugString()));
    const int a_inner = transpose_a_ ? 0 : 1;
    const int b_inner = transpose_b_ ? 1 : 0;
    OP_REQUIRES(ctx, a.dim_size(a_inner) == b.dim_size(b_inner),
                errors::InvalidArgument(
                    "Matrix size-incompatible: In[0]: ",
                    a.shape().DebugString(), ", In[1]: ",
                    b.shape().DebugString()));

    TensorShape out_shape(
        {a.dim_size(1 - a_inner), b.dim_size(1 - b_inner)});
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    LaunchMatMul<Device, T, USE_CUBLAS>::Launch(ctx, a, b, transpose_a_,
                                                transpose_b_, out);
  }

 private:
  std::vector<int64> algorithms_;
  bool algorithms_set_already_;
  bool use_autotune_;
  bool transpose_a_;
  bool transpose_b_;
};

}  // namespace tensorflow

#endif  // EXAMPLES_MATMUL_REGISTRATIONS_MATMUL_OP_H_

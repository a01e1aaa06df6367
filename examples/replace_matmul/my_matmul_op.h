// MyMatMulOp: the naive CPU matrix product of `shared/seeds/000_*.txt`, the
// kernel a library brings to replace the built-in CPU MatMul. Float only,
// three loops, honours transpose_a / transpose_b like the built-in.
// naive_matmul.cc and priority_matmul.cc register it in two ways.
#ifndef EXAMPLES_REPLACE_MATMUL_MY_MATMUL_OP_H_
#define EXAMPLES_REPLACE_MATMUL_MY_MATMUL_OP_H_

#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor_shape.h"

namespace tensorflow {
namespace {

class MyMatMulOp : public OpKernel {
 public:
  explicit MyMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx,
                TensorShapeUtils::IsMatrix(a.shape()) &&
                    TensorShapeUtils::IsMatrix(b.shape()),
                errors::InvalidArgument("MyMatMulOp expects two matrices, got ",
                                        a.shape().DebugString(), " and ",
                                        b.shape().DebugString()));
    const int64 m = a.dim_size(transpose_a_ ? 1 : 0);
    const int64 k = a.dim_size(transpose_a_ ? 0 : 1);
    const int64 k_b = b.dim_size(transpose_b_ ? 1 : 0);
    const int64 n = b.dim_size(transpose_b_ ? 0 : 1);
    OP_REQUIRES(ctx, k == k_b,
                errors::InvalidArgument("Matrix size-incompatible: In[0]: ",
                                        a.shape().DebugString(), ", In[1]: ",
                                        b.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    auto A = a.matrix<float>();
    auto B = b.matrix<float>();
    auto C = out->matrix<float>();
    for (int64 i = 0; i < m; ++i) {
      for (int64 j = 0; j < n; ++j) {
        float sum = 0;
        for (int64 p = 0; p < k; ++p) {
          sum += (transpose_a_ ? A(p, i) : A(i, p)) *
                 (transpose_b_ ? B(j, p) : B(p, j));
        }
        C(i, j) = sum;
      }
    }
  }

 private:
  bool transpose_a_;
  bool transpose_b_;
};

}  // namespace
}  // namespace tensorflow

#endif  // EXAMPLES_REPLACE_MATMUL_MY_MATMUL_OP_H_

// _FusedMatMul on CPU: MatMul (matmul_op.h's LaunchMatMul) followed by the
// epilogue of fused_epilogue.h -- a bias add, then an optional Relu, Relu6,
// Elu or LeakyRelu -- in one pass over the product, split across the
// intra-op pool by rows. Float, as TensorFlow's CPU kernel.
#include <cstdint>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/fused_epilogue.h"
#include "opkit/kernels/kernel_shard.h"
#include "opkit/kernels/matmul_op.h"

namespace opkit {
namespace {

template <typename T>
class FusedMatMulOp : public OpKernel {
 public:
  // Bad attrs and args are the caller's error: OP_REQUIRES, which does not
  // log them as warnings (as MatMul).
  explicit FusedMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
    const Status s =
        ParseFusedOps(ctx, "_FusedMatMul", /*allow_batch_norm=*/false, &spec_);
    OP_REQUIRES(ctx, s.ok(), s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    TensorShape shape;
    Status s = MatMulOutputShape(a, b, transpose_a_, transpose_b_, &shape);
    OP_REQUIRES(ctx, s.ok(), s);
    const int64_t rows = shape.dim_size(0);
    const int64_t channels = shape.dim_size(1);
    FusedEpilogue<T> epilogue;
    s = FusedEpilogue<T>::Create(spec_, ctx, /*first_arg=*/2, channels,
                                 &epilogue);
    OP_REQUIRES(ctx, s.ok(), s);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    LaunchMatMul<T>(ctx, a, b, transpose_a_, transpose_b_, out);
    T* z = out->flat<T>().data();
    Shard(ctx, rows, static_cast<double>(channels) * 4,
          [&](int64_t begin, int64_t end) {
            epilogue.Apply(z + begin * channels, end - begin, channels);
          });
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
  FusedOpSpec spec_;
};

REGISTER_KERNEL_BUILDER(
    Name("_FusedMatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    FusedMatMulOp<float>);

}  // namespace
}  // namespace opkit

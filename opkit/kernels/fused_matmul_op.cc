// _FusedMatMul on CPU: a matrix product followed by the epilogue of
// fused_epilogue.h -- a bias add, then an optional Relu, Relu6, Elu or
// LeakyRelu. Float, as TensorFlow's CPU kernel: the output rows are split
// across the intra-op pool, and each thread multiplies a block of rows with
// BlasGemm (blas_gemm.h) and applies the epilogue to it while it is in
// cache, as conv_ops.cc does (Note [Conv2D on GEMM blocks]). Other types
// would go through matmul_op.h's LaunchMatMul and one epilogue pass.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/blas_gemm.h"
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
        ParseFusedOps(ctx, "_FusedMatMul", /*allow_batch_norm=*/false, &spec_,
                      /*allow_add=*/true);
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
    OP_REQUIRES_OK(ctx, epilogue.BindOutput(*out));
    if (out->NumElements() == 0) return;
    T* z = out->flat<T>().data();
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const int64_t depth = transpose_a_ ? a.dim_size(0) : a.dim_size(1);
      const T* a_data = a.flat<T>().data();
      const T* b_data = b.flat<T>().data();
      const int64_t lda = a.dim_size(1);
      const int64_t ldb = b.dim_size(1);
      // Blocks of about kBlockBytes of output, at least kMinBlockRows rows
      // (each BlasGemm call packs b again).
      constexpr int64_t kBlockBytes = int64_t{512} << 10;
      constexpr int64_t kMinBlockRows = 64;
      const int64_t block_rows = std::max<int64_t>(
          kMinBlockRows,
          kBlockBytes / std::max<int64_t>(1, channels * sizeof(T)));
      Shard(ctx, rows, static_cast<double>(depth) * channels,
            [&](int64_t begin, int64_t end) {
              for (int64_t r0 = begin; r0 < end; r0 += block_rows) {
                const int64_t n = std::min(block_rows, end - r0);
                // Row r0 of op(a): row r0 of a, or column r0 when a is
                // stored transposed.
                const T* a_rows =
                    transpose_a_ ? a_data + r0 : a_data + r0 * lda;
                BlasGemm(transpose_a_, transpose_b_, n, channels, depth, a_rows,
                         lda, b_data, ldb, z + r0 * channels, channels);
                epilogue.Apply(z + r0 * channels, n, channels);
              }
            });
    } else {
      LaunchMatMul<T>(ctx, a, b, transpose_a_, transpose_b_, out);
      Shard(ctx, rows, static_cast<double>(channels) * 4,
            [&](int64_t begin, int64_t end) {
              epilogue.Apply(z + begin * channels, end - begin, channels);
            });
    }
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

// Tile on CPU: the input repeated multiples[i] times along dimension i.
// Written as one strided copy over 2*rank dimensions: (repeat, index) per
// input dimension, the repeat reading with source stride 0.
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/array_kernel_util.h"

namespace opkit {
namespace {

class TileOp : public OpKernel {
 public:
  explicit TileOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& multiples_t = ctx->input(1);
    OP_REQUIRES(ctx, multiples_t.dims() == 1,
                errors::InvalidArgument("Expected multiples argument to be a vector, got ",
                                        multiples_t.shape().DebugString()));
    const int rank = input.dims();
    OP_REQUIRES(ctx, multiples_t.NumElements() == rank,
                errors::InvalidArgument(
                    "Expected multiples argument to be a vector of length ", rank,
                    " but got length ", multiples_t.NumElements()));
    std::vector<int64_t> multiples;
    OP_REQUIRES_OK(ctx, internal::ReadIndexValues(multiples_t, "multiples", &multiples));
    std::vector<int64_t> out_dims(rank);
    for (int i = 0; i < rank; ++i) {
      OP_REQUIRES(ctx, multiples[i] >= 0,
                  errors::InvalidArgument("Expected multiples[", i, "] >= 0, but got ",
                                          multiples[i]));
      OP_REQUIRES(ctx,
                  internal::MultiplyWithoutOverflow(input.dim_size(i), multiples[i],
                                                    &out_dims[i]),
                  errors::InvalidArgument("Tiling dimension ", i, " of size ",
                                          input.dim_size(i), " by ", multiples[i],
                                          " overflows int64"));
    }
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(out_dims, &out_shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const std::vector<int64_t> in_strides = internal::RowMajorStrides(input.shape());
    const std::vector<int64_t> out_strides = internal::RowMajorStrides(out_shape);
    std::vector<int64_t> dims(2 * rank), src(2 * rank), dst(2 * rank);
    for (int i = 0; i < rank; ++i) {
      const int64_t d = input.dim_size(i);
      dims[2 * i] = multiples[i];
      src[2 * i] = 0;
      dst[2 * i] = out_strides[i] * d;
      dims[2 * i + 1] = d;
      src[2 * i + 1] = in_strides[i];
      dst[2 * i + 1] = out_strides[i];
    }
    internal::StridedCopy(input.dtype(), input.data(), src.data(), out->data(),
                          dst.data(), dims.data(), 2 * rank, ctx);
  }
};

REGISTER_KERNEL_BUILDER(Name("Tile")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", internal::ArrayKernelTypes())
                            .HostMemory("multiples"),
                        TileOp);

}  // namespace
}  // namespace opkit

// BroadcastTo on CPU: `input` repeated along the dimensions where it has
// size 1 (or that it lacks, on the left) to fill `shape`, numpy's rules.
//
// An input that already has the target shape is passed on without a copy.
// Otherwise the output is one strided copy whose source stride is 0 along
// the broadcast dimensions, so every dtype works (array_kernel_util.h) and
// large outputs are split across the intra-op pool.
#include <cstdint>
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/array_kernel_util.h"

namespace opkit {
namespace {

class BroadcastToOp : public OpKernel {
 public:
  explicit BroadcastToOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& shape_t = ctx->input(1);
    OP_REQUIRES_OK(ctx, ctx->status());
    OP_REQUIRES(ctx, shape_t.dims() == 1,
                errors::InvalidArgument("shape must be a vector of int32 or int64, got shape ",
                                        shape_t.shape().DebugString()));
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, internal::ReadIndexValues(shape_t, "shape", &dims));
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(dims, &out_shape));
    if (out_shape == input.shape()) {
      ctx->set_output(0, input);
      return;
    }
    const int in_rank = input.dims();
    const int out_rank = out_shape.dims();
    OP_REQUIRES(ctx, in_rank <= out_rank,
                errors::InvalidArgument("Rank of input (", in_rank,
                                        ") must be no greater than rank of output shape (",
                                        out_rank, ")."));
    // The input's dimensions align with the output's from the right.
    const std::vector<int64_t> in_strides = internal::RowMajorStrides(input.shape());
    std::vector<int64_t> src_strides(out_rank, 0);
    for (int i = 0; i < in_rank; ++i) {
      const int o = out_rank - in_rank + i;
      const int64_t in_d = input.dim_size(i);
      const int64_t out_d = out_shape.dim_size(o);
      if (in_d == out_d) {
        src_strides[o] = in_strides[i];
      } else if (in_d != 1) {
        OP_REQUIRES(ctx, out_d == 1,
                    errors::InvalidArgument("Incompatible shapes: ",
                                            input.shape().DebugString(), " vs. ",
                                            out_shape.DebugString()));
        ctx->CtxFailure(errors::InvalidArgument(
            "Unable to broadcast tensor of shape ", input.shape().DebugString(),
            " to tensor of shape ", out_shape.DebugString()));
        return;
      }
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const std::vector<int64_t> dst_strides = internal::RowMajorStrides(out_shape);
    internal::StridedCopy(input.dtype(), input.data(), src_strides.data(), out->data(),
                          dst_strides.data(), out_shape.dim_sizes().data(), out_rank, ctx);
  }
};

REGISTER_KERNEL_BUILDER(Name("BroadcastTo")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", internal::ArrayKernelTypes())
                            .HostMemory("shape"),
                        BroadcastToOp);

}  // namespace
}  // namespace opkit

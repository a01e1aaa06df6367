// OneHot on CPU: output[..., d, ...] is on_value where indices[...] == d,
// else off_value; indices outside [0, depth) give a row of off_value (as in
// TensorFlow). Type-generic in T: on/off values are copied as elements.
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/array_kernel_util.h"

namespace opkit {
namespace {

class OneHotOp : public OpKernel {
 public:
  explicit OneHotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices_t = ctx->input(0);
    const Tensor& depth_t = ctx->input(1);
    const Tensor& on = ctx->input(2);
    const Tensor& off = ctx->input(3);
    const int64_t rank = indices_t.dims();
    OP_REQUIRES(ctx, axis_ == -1 || (axis_ >= 0 && axis_ <= rank),
                errors::InvalidArgument("Expected axis to be -1 or between [0, ", rank,
                                        "].  But received: ", axis_));
    OP_REQUIRES(ctx, depth_t.dims() == 0,
                errors::InvalidArgument("depth must be a scalar, but got: ",
                                        depth_t.shape().DebugString()));
    OP_REQUIRES(ctx, on.dims() == 0,
                errors::InvalidArgument("on_value must be a scalar, but got: ",
                                        on.shape().DebugString()));
    OP_REQUIRES(ctx, off.dims() == 0,
                errors::InvalidArgument("off_value must be a scalar, but got: ",
                                        off.shape().DebugString()));
    const int64_t depth = depth_t.unaligned_flat<int32>()(0);
    OP_REQUIRES(ctx, depth >= 0,
                errors::InvalidArgument("depth must be non-negative, got: ", depth));
    const int64_t axis = axis_ == -1 ? rank : axis_;
    TensorShape out_shape = indices_t.shape();
    OP_REQUIRES_OK(ctx, out_shape.InsertDimWithStatus(static_cast<int>(axis), depth));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    internal::FillElements(off, 0, out, 0, out->NumElements());
    std::vector<int64_t> indices;
    if (indices_t.dtype() == DT_UINT8) {
      auto flat = indices_t.unaligned_flat<uint8>();
      indices.assign(flat.data(), flat.data() + flat.size());
    } else {
      OP_REQUIRES_OK(ctx, internal::ReadIndexValues(indices_t, "indices", &indices));
    }
    int64_t prefix = 1;
    for (int64_t d = 0; d < axis; ++d) prefix *= indices_t.dim_size(static_cast<int>(d));
    const int64_t suffix = indices_t.NumElements() / prefix;
    for (int64_t p = 0; p < prefix; ++p) {
      for (int64_t s = 0; s < suffix; ++s) {
        const int64_t idx = indices[p * suffix + s];
        if (idx < 0 || idx >= depth) continue;
        internal::FillElements(on, 0, out, (p * depth + idx) * suffix + s, 1);
      }
    }
  }

 private:
  int64_t axis_ = -1;
};

REGISTER_KERNEL_BUILDER(Name("OneHot")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", internal::ArrayKernelTypes())
                            .HostMemory("depth"),
                        OneHotOp);

}  // namespace
}  // namespace opkit

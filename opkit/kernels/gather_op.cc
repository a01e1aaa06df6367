// GatherV2 on CPU: slices of `params` along `axis` picked by `indices`,
// with leading batch dimensions shared by params and indices. Every index
// is checked before anything is copied.
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/array_kernel_util.h"

namespace opkit {
namespace {

class GatherV2Op : public OpKernel {
 public:
  explicit GatherV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("batch_dims", &batch_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices_t = ctx->input(1);
    const Tensor& axis_t = ctx->input(2);
    // A scalar only, as TensorFlow: a 1-element vector is refused too.
    OP_REQUIRES(ctx, axis_t.dims() == 0,
                errors::InvalidArgument("axis must be scalar, but got shape ",
                                        axis_t.shape().DebugString()));
    int64_t axis = 0;
    OP_REQUIRES_OK(ctx, internal::ReadIndexScalar(axis_t, "axis", false, &axis));
    const int64_t params_rank = params.dims();
    const int64_t indices_rank = indices_t.dims();
    OP_REQUIRES(ctx, params_rank >= 1,
                errors::InvalidArgument("params must be at least 1 dimensional, got shape ",
                                        params.shape().DebugString()));
    OP_REQUIRES(ctx, axis >= -params_rank && axis < params_rank,
                errors::InvalidArgument("Expected axis in the range [", -params_rank,
                                        ", ", params_rank, "), but got ", axis));
    if (axis < 0) axis += params_rank;
    int64_t batch_dims = batch_dims_;
    OP_REQUIRES(ctx, batch_dims >= -indices_rank && batch_dims <= indices_rank,
                errors::InvalidArgument("Expected batch_dims in the range [",
                                        -indices_rank, ", ", indices_rank,
                                        "], but got ", batch_dims));
    if (batch_dims < 0) batch_dims += indices_rank;
    OP_REQUIRES(ctx, batch_dims <= axis,
                errors::InvalidArgument("batch_dims (", batch_dims,
                                        ") must be less than or equal to axis (", axis,
                                        ")."));
    for (int64_t d = 0; d < batch_dims; ++d) {
      OP_REQUIRES(ctx, params.dim_size(d) == indices_t.dim_size(d),
                  errors::InvalidArgument("params.shape[", d, "]: ", params.dim_size(d),
                                          " should be equal to indices.shape[", d,
                                          "]: ", indices_t.dim_size(d)));
    }
    std::vector<int64_t> out_dims;
    int64_t batch = 1, outer = 1, inner = 1, per_batch = 1;
    for (int64_t d = 0; d < axis; ++d) {
      out_dims.push_back(params.dim_size(d));
      if (d < batch_dims) {
        batch *= params.dim_size(d);
      } else {
        outer *= params.dim_size(d);
      }
    }
    for (int64_t d = batch_dims; d < indices_rank; ++d) {
      out_dims.push_back(indices_t.dim_size(d));
      per_batch *= indices_t.dim_size(d);
    }
    for (int64_t d = axis + 1; d < params_rank; ++d) {
      out_dims.push_back(params.dim_size(d));
      inner *= params.dim_size(d);
    }
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(out_dims, &out_shape));
    std::vector<int64_t> indices;
    OP_REQUIRES_OK(ctx, internal::ReadIndexValues(indices_t, "indices", &indices));
    const int64_t limit = params.dim_size(static_cast<int>(axis));
    for (size_t i = 0; i < indices.size(); ++i) {
      OP_REQUIRES(ctx, indices[i] >= 0 && indices[i] < limit,
                  errors::InvalidArgument("indices[", i, "] = ", indices[i],
                                          " is not in [0, ", limit, ")"));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    int64_t dst = 0;
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t o = 0; o < outer; ++o) {
        const int64_t src_row = (b * outer + o) * limit;
        for (int64_t j = 0; j < per_batch; ++j) {
          const int64_t idx = indices[b * per_batch + j];
          internal::CopyElements(params, (src_row + idx) * inner, out, dst, inner);
          dst += inner;
        }
      }
    }
  }

 private:
  int64_t batch_dims_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("GatherV2")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("Tparams", internal::ArrayKernelTypes())
                            .HostMemory("axis"),
                        GatherV2Op);

}  // namespace
}  // namespace opkit

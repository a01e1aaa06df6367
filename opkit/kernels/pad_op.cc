// Pad on CPU: the input surrounded by zeros, paddings[i] = [before, after]
// elements along dimension i. Zero-fill, then one strided copy of the input
// into the interior. PadV2 is the same with the scalar input constant_values
// instead of zero.
#include <string>
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/array_kernel_util.h"

namespace opkit {
namespace {

class PadOp : public OpKernel {
 public:
  explicit PadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& paddings_t = ctx->input(1);
    const int rank = input.dims();
    const Tensor* constant = ctx->num_inputs() > 2 ? &ctx->input(2) : nullptr;
    OP_REQUIRES(ctx, constant == nullptr || constant->dims() == 0,
                errors::InvalidArgument("constant_values must be a scalar. Got: ",
                                        constant == nullptr
                                            ? std::string()
                                            : constant->shape().DebugString()));
    OP_REQUIRES(ctx, paddings_t.dims() == 2 && paddings_t.dim_size(1) == 2,
                errors::InvalidArgument("paddings must be a matrix with 2 columns: ",
                                        paddings_t.shape().DebugString()));
    OP_REQUIRES(ctx, paddings_t.dim_size(0) == rank,
                errors::InvalidArgument(
                    "The first dimension of paddings must be the rank of inputs",
                    paddings_t.shape().DebugString(), " ", input.shape().DebugString()));
    std::vector<int64_t> p;
    OP_REQUIRES_OK(ctx, internal::ReadIndexValues(paddings_t, "paddings", &p));
    std::vector<int64_t> out_dims(rank);
    int64_t offset = 0;
    std::vector<int64_t> before(rank);
    for (int i = 0; i < rank; ++i) {
      const int64_t b = p[2 * i], a = p[2 * i + 1];
      OP_REQUIRES(ctx, b >= 0 && a >= 0,
                  errors::InvalidArgument("Paddings must be non-negative: ", b, " ", a));
      const int64_t d = input.dim_size(i);
      OP_REQUIRES(ctx, b <= INT64_MAX - d && a <= INT64_MAX - d - b,
                  errors::InvalidArgument("Padding dimension ", i, " of size ", d,
                                          " by ", b, " and ", a, " overflows int64"));
      out_dims[i] = b + d + a;
      before[i] = b;
    }
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(out_dims, &out_shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (constant != nullptr) {
      internal::FillElements(*constant, 0, out, 0, out->NumElements());
    } else {
      internal::SetZero(out);
    }
    if (input.NumElements() == 0) return;
    const std::vector<int64_t> in_strides = internal::RowMajorStrides(input.shape());
    const std::vector<int64_t> out_strides = internal::RowMajorStrides(out_shape);
    for (int i = 0; i < rank; ++i) offset += before[i] * out_strides[i];
    std::vector<int64_t> in_dims(input.shape().dim_sizes().begin(),
                                 input.shape().dim_sizes().end());
    internal::StridedCopy(input.dtype(), input.data(), in_strides.data(),
                          internal::MutableElementAddress(out, offset),
                          out_strides.data(), in_dims.data(), rank,
                          ctx);
  }
};

REGISTER_KERNEL_BUILDER(Name("Pad")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", internal::ArrayKernelTypes())
                            .HostMemory("paddings"),
                        PadOp);
REGISTER_KERNEL_BUILDER(Name("PadV2")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", internal::ArrayKernelTypes())
                            .HostMemory("paddings"),
                        PadOp);

}  // namespace
}  // namespace opkit

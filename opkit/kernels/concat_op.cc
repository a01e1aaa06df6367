// ConcatV2 and Pack on CPU. Both view every input as [outer, inner_i] rows
// (outer: the dimensions before the axis) and interleave the rows of the
// inputs into the output with type-generic strided copies.
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/array_kernel_util.h"

namespace opkit {
namespace {

// Copies input i, viewed as [outer, inner[i]], into columns
// [column[i], column[i] + inner[i]) of the output viewed as [outer, total].
void InterleaveRows(OpKernelContext* ctx, const OpInputList& inputs, int64_t outer,
                    const std::vector<int64_t>& inner, int64_t total, Tensor* out) {
  int64_t column = 0;
  for (int i = 0; i < inputs.size(); ++i) {
    if (inner[i] > 0 && outer > 0) {
      const int64_t dims[2] = {outer, inner[i]};
      const int64_t src_strides[2] = {inner[i], 1};
      const int64_t dst_strides[2] = {total, 1};
      internal::StridedCopy(out->dtype(), inputs[i].data(), src_strides,
                            internal::MutableElementAddress(out, column), dst_strides,
                            dims, 2, ctx);
    }
    column += inner[i];
  }
}

class ConcatV2Op : public OpKernel {
 public:
  explicit ConcatV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    OpInputList values;
    OP_REQUIRES_OK(ctx, ctx->input_list("values", &values));
    const Tensor* axis_t = nullptr;
    OP_REQUIRES_OK(ctx, ctx->input("axis", &axis_t));
    OP_REQUIRES(ctx, axis_t->dims() == 0,
                errors::InvalidArgument("Concat dim tensor should be a scalar, but got shape ",
                                        axis_t->shape().DebugString()));
    int64_t axis = 0;
    OP_REQUIRES_OK(ctx, internal::ReadIndexScalar(*axis_t, "axis", false, &axis));
    const Tensor& first = values[0];
    const int rank = first.dims();
    OP_REQUIRES(ctx, rank > 0,
                errors::InvalidArgument("Can't concatenate scalars (use tf.stack instead)"));
    OP_REQUIRES(ctx, axis >= -rank && axis < rank,
                errors::InvalidArgument(
                    "ConcatOp : Expected concatenating dimensions in the range [", -rank,
                    ", ", rank, "), but got ", axis));
    if (axis < 0) axis += rank;
    int64_t axis_total = 0;
    for (int i = 0; i < values.size(); ++i) {
      const Tensor& v = values[i];
      OP_REQUIRES(ctx, v.dims() == rank,
                  errors::InvalidArgument(
                      "ConcatOp : Ranks of all input tensors should match: shape[0] = ",
                      first.shape().DebugString(), " vs. shape[", i,
                      "] = ", v.shape().DebugString()));
      for (int d = 0; d < rank; ++d) {
        if (d == axis) continue;
        OP_REQUIRES(ctx, v.dim_size(d) == first.dim_size(d),
                    errors::InvalidArgument(
                        "ConcatOp : Dimension ", d,
                        " in both shapes must be equal: shape[0] = ",
                        first.shape().DebugString(), " vs. shape[", i,
                        "] = ", v.shape().DebugString()));
      }
      OP_REQUIRES(ctx, axis_total <= INT64_MAX - v.dim_size(static_cast<int>(axis)),
                  errors::InvalidArgument("ConcatOp : the concatenated dimension ",
                                          "overflows int64"));
      axis_total += v.dim_size(static_cast<int>(axis));
    }
    TensorShape out_shape = first.shape();
    OP_REQUIRES_OK(ctx, out_shape.SetDimWithStatus(static_cast<int>(axis), axis_total));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= first.dim_size(d);
    const int64_t row = out->NumElements() / outer;
    std::vector<int64_t> inner(values.size());
    for (int i = 0; i < values.size(); ++i) inner[i] = values[i].NumElements() / outer;
    InterleaveRows(ctx, values, outer, inner, row, out);
  }
};

REGISTER_KERNEL_BUILDER(Name("ConcatV2")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", internal::ArrayKernelTypes())
                            .HostMemory("axis"),
                        ConcatV2Op);

class PackOp : public OpKernel {
 public:
  explicit PackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    OpInputList values;
    OP_REQUIRES_OK(ctx, ctx->input_list("values", &values));
    const int n = values.size();
    OP_REQUIRES(ctx, n > 0, errors::InvalidArgument("Pack needs at least one input"));
    const TensorShape& shape = values[0].shape();
    const int64_t out_rank = shape.dims() + 1;
    OP_REQUIRES(ctx, axis_ >= -out_rank && axis_ < out_rank,
                errors::InvalidArgument("axis = ", axis_, " not in [", -out_rank, ", ",
                                        out_rank, ")"));
    const int64_t axis = axis_ < 0 ? axis_ + out_rank : axis_;
    for (int i = 1; i < n; ++i) {
      OP_REQUIRES(ctx, values[i].shape() == shape,
                  errors::InvalidArgument(
                      "Shapes of all inputs must match: values[0].shape = ",
                      shape.DebugString(), " != values[", i,
                      "].shape = ", values[i].shape().DebugString()));
    }
    TensorShape out_shape = shape;
    OP_REQUIRES_OK(ctx, out_shape.InsertDimWithStatus(static_cast<int>(axis), n));
    if (n == 1) {
      Tensor out;
      OP_REQUIRES(ctx, out.CopyFrom(values[0], out_shape),
                  errors::Internal("pack changed the element count"));
      ctx->set_output(0, std::move(out));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= shape.dim_size(d);
    const int64_t inner = shape.num_elements() / outer;
    InterleaveRows(ctx, values, outer, std::vector<int64_t>(n, inner), inner * n, out);
  }

 private:
  int64_t axis_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("Pack")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", internal::ArrayKernelTypes()),
                        PackOp);

}  // namespace
}  // namespace opkit

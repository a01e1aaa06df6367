// Split, SplitV and Unpack on CPU. Each views the input as [outer, row]
// (outer: the dimensions before the split axis) and copies a band of
// columns of every row into each output.
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/array_kernel_util.h"

namespace opkit {
namespace {

// Output `index` of `shape`, filled from columns [column, column + width)
// of `input` viewed as [outer, row].
void EmitBand(OpKernelContext* ctx, int index, const Tensor& input, int64_t outer,
              int64_t row, int64_t column, int64_t width, const TensorShape& shape) {
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(index, shape, &out));
  if (out->NumElements() == 0) return;
  const int64_t dims[2] = {outer, width};
  const int64_t src_strides[2] = {row, 1};
  const int64_t dst_strides[2] = {width, 1};
  internal::StridedCopy(input.dtype(), internal::ElementAddress(input, column),
                        src_strides, out->data(), dst_strides, dims, 2,
                        ctx);
}

// Reads the scalar split dimension and maps it into [0, rank).
Status SplitDim(const Tensor& split_dim_t, int rank, int64_t* split_dim) {
  OPKIT_RETURN_IF_ERROR(internal::ReadIndexScalar(split_dim_t, "split_dim",
                                                  /*allow_one_element=*/false,
                                                  split_dim));
  if (*split_dim < -rank || *split_dim >= rank) {
    return errors::InvalidArgument("split_dim must be in the range [", -rank, ", ",
                                   rank, "), but got ", *split_dim);
  }
  if (*split_dim < 0) *split_dim += rank;
  return Status::OK();
}

// Splits `input` along `axis` into pieces of `sizes` (which add up to the
// axis size), one per output.
void SplitInto(OpKernelContext* ctx, const Tensor& input, int64_t axis,
               const std::vector<int64_t>& sizes) {
  int64_t outer = 1;
  for (int d = 0; d < axis; ++d) outer *= input.dim_size(d);
  int64_t inner = 1;
  for (int d = static_cast<int>(axis) + 1; d < input.dims(); ++d) {
    inner *= input.dim_size(d);
  }
  const int64_t row = input.dim_size(static_cast<int>(axis)) * inner;
  int64_t column = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    TensorShape shape = input.shape();
    OP_REQUIRES_OK(ctx, shape.SetDimWithStatus(static_cast<int>(axis), sizes[i]));
    EmitBand(ctx, static_cast<int>(i), input, outer, row, column, sizes[i] * inner,
             shape);
    if (!ctx->status().ok()) return;
    column += sizes[i] * inner;
  }
}

class SplitOp : public OpKernel {
 public:
  explicit SplitOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(1);
    const int num_split = num_outputs();
    int64_t axis = 0;
    OP_REQUIRES_OK(ctx, SplitDim(ctx->input(0), input.dims(), &axis));
    const int64_t size = input.dim_size(static_cast<int>(axis));
    OP_REQUIRES(ctx, num_split > 0 && size % num_split == 0,
                errors::InvalidArgument(
                    "Number of ways to split should evenly divide the split dimension, "
                    "but got split_dim ",
                    axis, " (size = ", size, ") and num_split ", num_split));
    SplitInto(ctx, input, axis, std::vector<int64_t>(num_split, size / num_split));
  }
};

class SplitVOp : public OpKernel {
 public:
  explicit SplitVOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& sizes_t = ctx->input(1);
    const int num_split = num_outputs();
    int64_t axis = 0;
    OP_REQUIRES_OK(ctx, SplitDim(ctx->input(2), input.dims(), &axis));
    OP_REQUIRES(ctx, sizes_t.dims() == 1 && sizes_t.NumElements() == num_split,
                errors::InvalidArgument("size_splits must be a vector of num_split = ",
                                        num_split, " elements, got shape ",
                                        sizes_t.shape().DebugString()));
    std::vector<int64_t> sizes;
    OP_REQUIRES_OK(ctx, internal::ReadIndexValues(sizes_t, "size_splits", &sizes));
    const int64_t dim = input.dim_size(static_cast<int>(axis));
    int neg_one = -1;
    int64_t total = 0;
    for (int i = 0; i < num_split; ++i) {
      if (sizes[i] == -1) {
        OP_REQUIRES(ctx, neg_one == -1,
                    errors::InvalidArgument(
                        "There can only be one -1 in the input size_splits, found it at ",
                        neg_one, " and ", i));
        neg_one = i;
        continue;
      }
      OP_REQUIRES(ctx, sizes[i] >= 0 && sizes[i] <= dim - total,
                  errors::InvalidArgument(
                      "size_splits[", i, "] = ", sizes[i],
                      " is negative or makes the splits add up to more than the size ",
                      dim, " of dimension ", axis));
      total += sizes[i];
    }
    if (neg_one != -1) {
      sizes[neg_one] = dim - total;
    } else {
      OP_REQUIRES(ctx, total == dim,
                  errors::InvalidArgument(
                      "Determined shape must either match input shape along split_dim "
                      "exactly if fully specified, or be less than the size of the input "
                      "along split_dim if not fully specified.  Got: ",
                      total));
    }
    SplitInto(ctx, input, axis, sizes);
  }
};

class UnpackOp : public OpKernel {
 public:
  explicit UnpackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int num = num_outputs();
    const int rank = input.dims();
    OP_REQUIRES(ctx, axis_ >= -rank && axis_ < rank,
                errors::InvalidArgument("axis = ", axis_, " not in [", -rank, ", ",
                                        rank, ")"));
    const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    OP_REQUIRES(ctx, input.dim_size(static_cast<int>(axis)) == num,
                errors::InvalidArgument("Input shape axis ", axis, " must equal ", num,
                                        ", got shape ", input.shape().DebugString()));
    TensorShape shape = input.shape();
    OP_REQUIRES_OK(ctx, shape.RemoveDimWithStatus(static_cast<int>(axis)));
    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= input.dim_size(d);
    const int64_t inner = shape.num_elements() / (outer == 0 ? 1 : outer);
    for (int i = 0; i < num; ++i) {
      EmitBand(ctx, i, input, outer, num * inner, i * inner, inner, shape);
      if (!ctx->status().ok()) return;
    }
  }

 private:
  int64_t axis_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("Split")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", internal::ArrayKernelTypes())
                            .HostMemory("split_dim"),
                        SplitOp);
REGISTER_KERNEL_BUILDER(Name("SplitV")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", internal::ArrayKernelTypes())
                            .HostMemory("size_splits")
                            .HostMemory("split_dim"),
                        SplitVOp);
REGISTER_KERNEL_BUILDER(Name("Unpack")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", internal::ArrayKernelTypes()),
                        UnpackOp);

}  // namespace
}  // namespace opkit

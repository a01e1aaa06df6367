// Slice, StridedSlice and StridedSliceGrad on CPU: a type-generic strided
// copy of the box the slice spec selects, out of the input (or, for the
// gradient, into zeros of the input's shape); see array_kernel_util.h and
// opkit/shape/strided_slice.h.
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/array_kernel_util.h"
#include "opkit/shape/strided_slice.h"

namespace opkit {
namespace {

// Copies the box of `input` starting at `begin` with per-dimension steps
// `steps` and sizes `sizes` into a new output 0 of `out_shape` (which has
// the box's element count), or shares the input when the box is all of it.
void CopyBox(OpKernelContext* ctx, const Tensor& input, const std::vector<int64_t>& begin,
             const std::vector<int64_t>& steps, const std::vector<int64_t>& sizes,
             const TensorShape& out_shape, bool is_identity) {
  if (is_identity) {
    Tensor out;
    OP_REQUIRES(ctx, out.CopyFrom(input, out_shape),
                errors::Internal("slice changed the element count"));
    ctx->set_output(0, std::move(out));
    return;
  }
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
  if (out->NumElements() == 0) return;
  const int rank = input.dims();
  const std::vector<int64_t> in_strides = internal::RowMajorStrides(input.shape());
  TensorShape box_shape;
  OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(sizes, &box_shape));
  const std::vector<int64_t> dst_strides = internal::RowMajorStrides(box_shape);
  std::vector<int64_t> src_strides(rank);
  int64_t offset = 0;
  for (int i = 0; i < rank; ++i) {
    offset += begin[i] * in_strides[i];
    // A dimension read once needs no stride (and a huge step would overflow).
    src_strides[i] = sizes[i] <= 1 ? 0 : in_strides[i] * steps[i];
  }
  internal::StridedCopy(input.dtype(), internal::ElementAddress(input, offset),
                        src_strides.data(), out->data(), dst_strides.data(),
                        sizes.data(), rank, ctx);
}

class SliceOp : public OpKernel {
 public:
  explicit SliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& begin_t = ctx->input(1);
    const Tensor& size_t_ = ctx->input(2);
    const int rank = input.dims();
    OP_REQUIRES(ctx,
                begin_t.dims() == 1 && size_t_.dims() == 1 &&
                    begin_t.NumElements() == rank && size_t_.NumElements() == rank,
                errors::InvalidArgument(
                    "Expected begin and size arguments to be 1-D tensors of size ", rank,
                    ", but got shapes ", begin_t.shape().DebugString(), " and ",
                    size_t_.shape().DebugString(), " instead."));
    std::vector<int64_t> begin, size;
    OP_REQUIRES_OK(ctx, internal::ReadIndexValues(begin_t, "begin", &begin));
    OP_REQUIRES_OK(ctx, internal::ReadIndexValues(size_t_, "size", &size));
    bool is_identity = true;
    for (int i = 0; i < rank; ++i) {
      const int64_t dim = input.dim_size(i);
      OP_REQUIRES(ctx, begin[i] >= 0 && begin[i] <= dim,
                  errors::InvalidArgument("Expected begin[", i, "] in [0, ", dim,
                                          "], but got ", begin[i]));
      if (size[i] == -1) size[i] = dim - begin[i];
      OP_REQUIRES(ctx, size[i] >= 0 && size[i] <= dim - begin[i],
                  errors::InvalidArgument("Expected size[", i, "] in [0, ",
                                          dim - begin[i], "], but got ", size[i]));
      is_identity = is_identity && begin[i] == 0 && size[i] == dim;
    }
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(size, &out_shape));
    CopyBox(ctx, input, begin, std::vector<int64_t>(rank, 1), size, out_shape,
            is_identity);
  }
};

// The masks StridedSlice and StridedSliceGrad share, from their attrs.
Status ReadStridedSliceMasks(OpKernelConstruction* ctx, internal::StridedSliceSpec* spec) {
  OPKIT_RETURN_IF_ERROR(ctx->GetAttr("begin_mask", &spec->begin_mask));
  OPKIT_RETURN_IF_ERROR(ctx->GetAttr("end_mask", &spec->end_mask));
  OPKIT_RETURN_IF_ERROR(ctx->GetAttr("ellipsis_mask", &spec->ellipsis_mask));
  OPKIT_RETURN_IF_ERROR(ctx->GetAttr("new_axis_mask", &spec->new_axis_mask));
  return ctx->GetAttr("shrink_axis_mask", &spec->shrink_axis_mask);
}

// begin, end and strides into `spec`: 1-D tensors of one length.
Status ReadStridedSliceIndices(const Tensor& begin_t, const Tensor& end_t,
                               const Tensor& strides_t, internal::StridedSliceSpec* spec) {
  if (!(begin_t.dims() == 1 && end_t.dims() == 1 && strides_t.dims() == 1 &&
        begin_t.NumElements() == strides_t.NumElements() &&
        end_t.NumElements() == strides_t.NumElements())) {
    return errors::InvalidArgument(
        "Expected begin, end, and strides to be 1D equal size tensors, but got shapes ",
        begin_t.shape().DebugString(), ", ", end_t.shape().DebugString(), ", and ",
        strides_t.shape().DebugString(), " instead.");
  }
  OPKIT_RETURN_IF_ERROR(internal::ReadIndexValues(begin_t, "begin", &spec->begin));
  OPKIT_RETURN_IF_ERROR(internal::ReadIndexValues(end_t, "end", &spec->end));
  return internal::ReadIndexValues(strides_t, "strides", &spec->strides);
}

class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadStridedSliceMasks(ctx, &spec_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& begin_t = ctx->input(1);
    const Tensor& end_t = ctx->input(2);
    const Tensor& strides_t = ctx->input(3);
    internal::StridedSliceSpec spec = spec_;
    OP_REQUIRES_OK(ctx, ReadStridedSliceIndices(begin_t, end_t, strides_t, &spec));
    const std::vector<int64_t> in_dims(input.shape().dim_sizes().begin(),
                                       input.shape().dim_sizes().end());
    internal::StridedSliceResult r;
    OP_REQUIRES_OK(ctx, internal::ComputeStridedSlice(in_dims, spec, &r));
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(r.final_shape, &out_shape));
    CopyBox(ctx, input, r.begin, r.strides, r.processing_shape, out_shape,
            r.is_identity);
  }

 private:
  internal::StridedSliceSpec spec_;
};

// StridedSliceGrad: zeros of `shape` with dy written into the elements the
// same slice of an input of that shape would read. The slice spec goes
// through ComputeStridedSlice as StridedSlice's does, so both accept and
// refuse the same specs.
class StridedSliceGradOp : public OpKernel {
 public:
  explicit StridedSliceGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadStridedSliceMasks(ctx, &spec_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_t = ctx->input(0);
    const Tensor& begin_t = ctx->input(1);
    const Tensor& end_t = ctx->input(2);
    const Tensor& strides_t = ctx->input(3);
    const Tensor& dy = ctx->input(4);
    OP_REQUIRES(ctx, shape_t.dims() == 1,
                errors::InvalidArgument(
                    "StridedSliceGrad: shape must be a vector (the shape of the sliced "
                    "input), but has shape ",
                    shape_t.shape().DebugString()));
    std::vector<int64_t> in_dims;
    OP_REQUIRES_OK(ctx, internal::ReadIndexValues(shape_t, "shape", &in_dims));
    TensorShape in_shape;
    Status s = TensorShape::BuildTensorShape(in_dims, &in_shape);
    OP_REQUIRES(ctx, s.ok(),
                errors::InvalidArgument("StridedSliceGrad: shape is not a valid tensor shape: ",
                                        s.message()));
    internal::StridedSliceSpec spec = spec_;
    OP_REQUIRES_OK(ctx, ReadStridedSliceIndices(begin_t, end_t, strides_t, &spec));
    internal::StridedSliceResult r;
    OP_REQUIRES_OK(ctx, internal::ComputeStridedSlice(in_dims, spec, &r));
    TensorShape final_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(r.final_shape, &final_shape));
    OP_REQUIRES(ctx, dy.shape() == final_shape,
                errors::InvalidArgument("shape of dy was ", dy.shape().DebugString(),
                                        " instead of ", final_shape.DebugString(),
                                        ", the shape of this slice of an input of shape ",
                                        in_shape.DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in_shape, &out));
    internal::SetZero(out);
    if (dy.NumElements() == 0) return;
    const int rank = in_shape.dims();
    const std::vector<int64_t> out_strides = internal::RowMajorStrides(in_shape);
    TensorShape box_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(r.processing_shape, &box_shape));
    const std::vector<int64_t> src_strides = internal::RowMajorStrides(box_shape);
    std::vector<int64_t> dst_strides(rank);
    int64_t offset = 0;
    for (int i = 0; i < rank; ++i) {
      offset += r.begin[i] * out_strides[i];
      // A dimension written once needs no stride (and a huge step would
      // overflow).
      dst_strides[i] = r.processing_shape[i] <= 1 ? 0 : out_strides[i] * r.strides[i];
    }
    internal::StridedCopy(dy.dtype(), dy.data(), src_strides.data(),
                          internal::MutableElementAddress(out, offset), dst_strides.data(),
                          r.processing_shape.data(), rank, ctx);
  }

 private:
  internal::StridedSliceSpec spec_;
};

REGISTER_KERNEL_BUILDER(Name("Slice")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", internal::ArrayKernelTypes())
                            .HostMemory("begin")
                            .HostMemory("size"),
                        SliceOp);
REGISTER_KERNEL_BUILDER(Name("StridedSlice")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", internal::ArrayKernelTypes())
                            .HostMemory("begin")
                            .HostMemory("end")
                            .HostMemory("strides"),
                        StridedSliceOp);
REGISTER_KERNEL_BUILDER(Name("StridedSliceGrad")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", internal::ArrayKernelTypes())
                            .HostMemory("shape")
                            .HostMemory("begin")
                            .HostMemory("end")
                            .HostMemory("strides"),
                        StridedSliceGradOp);

}  // namespace
}  // namespace opkit

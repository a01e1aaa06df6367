// GatherNd on CPU: output[i0, ..., i{n-1}, :] = params[indices[i0, ..., i{n-1}, :], ...].
//
// The innermost dimension of `indices` (r <= rank(params)) indexes the
// first r dimensions of `params`; each index row picks one slice
// params[a0, ..., a{r-1}, ...], copied whole. Every index row is checked
// before anything is copied; a bad one is InvalidArgument
// "indices[1,0] = [3, 0] does not index into param shape [2,2]", as
// TensorFlow reports it. Type-generic: elements are moved by size
// (array_kernel_util.h), so every dtype of ArrayKernelTypes() works.
#include <cstdint>
#include <string>
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/array_kernel_util.h"
#include "opkit/kernels/kernel_shard.h"

namespace opkit {
namespace {

class GatherNdOp : public OpKernel {
 public:
  explicit GatherNdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices_t = ctx->input(1);
    OP_REQUIRES_OK(ctx, ctx->status());
    OP_REQUIRES(ctx, params.dims() >= 1,
                errors::InvalidArgument("params must be at least a vector, got shape ",
                                        params.shape().DebugString()));
    OP_REQUIRES(ctx, indices_t.dims() >= 1,
                errors::InvalidArgument("indices must be at least a vector, got shape ",
                                        indices_t.shape().DebugString()));
    const int64_t nd = indices_t.dim_size(indices_t.dims() - 1);
    OP_REQUIRES(ctx, nd <= params.dims(),
                errors::InvalidArgument(
                    "index innermost dimension length must be <= params rank; saw: ", nd,
                    " vs. ", params.dims()));

    // Output: indices.shape[:-1] + params.shape[nd:].
    TensorShape batch_shape = indices_t.shape();
    batch_shape.RemoveLastDims(1);
    const int64_t num_slices = batch_shape.num_elements();
    std::vector<int64_t> out_dims;
    for (int d = 0; d < batch_shape.dims(); ++d) out_dims.push_back(batch_shape.dim_size(d));
    int64_t slice_size = 1;
    for (int d = static_cast<int>(nd); d < params.dims(); ++d) {
      out_dims.push_back(params.dim_size(d));
      slice_size *= params.dim_size(d);  // A factor of params' element count.
    }
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(out_dims, &out_shape));

    std::vector<int64_t> indices;
    OP_REQUIRES_OK(ctx, internal::ReadIndexValues(indices_t, "indices", &indices));
    if (num_slices > 0) {
      OP_REQUIRES(ctx, params.NumElements() > 0,
                  errors::InvalidArgument(
                      "Requested more than 0 entries, but params is empty.  Params shape: ",
                      params.shape().DebugString()));
    }
    // Element offset of each slice; strides of the indexed dimensions.
    std::vector<int64_t> strides(nd, slice_size);
    for (int64_t d = nd - 2; d >= 0; --d) {
      strides[d] = strides[d + 1] * params.dim_size(static_cast<int>(d + 1));
    }
    // With nd == 0 every slice is all of params (offset 0), and indices,
    // being empty, does not bound num_slices: keep no per-slice table then.
    std::vector<int64_t> offsets(nd > 0 ? num_slices : 0, 0);
    for (int64_t i = 0; i < static_cast<int64_t>(offsets.size()); ++i) {
      const int64_t* row = indices.data() + i * nd;
      int64_t offset = 0;
      bool ok = true;
      for (int64_t d = 0; d < nd; ++d) {
        if (row[d] < 0 || row[d] >= params.dim_size(static_cast<int>(d))) {
          ok = false;
          break;
        }
        offset += row[d] * strides[d];
      }
      if (!ok) {
        std::string values;
        for (int64_t d = 0; d < nd; ++d) {
          if (d > 0) values += ", ";
          values += std::to_string(row[d]);
        }
        ctx->CtxFailure(errors::InvalidArgument(
            "indices", SliceDebugString(batch_shape, i), " = [", values,
            "] does not index into param shape ", params.shape().DebugString()));
        return;
      }
      offsets[i] = offset;
    }

    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    Shard(ctx, num_slices, static_cast<double>(slice_size) + 10,
          [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i) {
              const int64_t offset = nd > 0 ? offsets[i] : 0;
              internal::CopyElements(params, offset, out, i * slice_size, slice_size);
            }
          });
  }
};

REGISTER_KERNEL_BUILDER(Name("GatherNd")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("Tparams", internal::ArrayKernelTypes())
                            .TypeConstraint("Tindices", {DT_INT32, DT_INT64}),
                        GatherNdOp);

}  // namespace
}  // namespace opkit

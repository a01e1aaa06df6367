// SparseToDense on CPU: a dense tensor of `output_shape` filled with
// `default_value`, then dense[sparse_indices[i]] = sparse_values[i] (or the
// one scalar sparse_value everywhere).
//
// sparse_indices is a scalar (one index into a vector), a vector (one
// coordinate per value, into a vector) or a [num_values, rank] matrix. With
// validate_indices (the default) the index rows must be in bounds and
// strictly increasing in row-major order, and a failure is TensorFlow's
// message ("indices[1] = [10] is out of bounds: need 0 <= index < [5]",
// "... is out of order ...", "... is repeated"). Without it, rows may come
// in any order (the last write wins) but are still never written out of
// bounds. Type-generic: values are moved by element size.
#include <cstdint>
#include <string>
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/array_kernel_util.h"

namespace opkit {
namespace {

// "indices[n] = [a,b]" for messages.
std::string IndexString(const int64_t* row, int64_t n, int64_t rank) {
  std::string s = "indices[" + std::to_string(n) + "] = [";
  for (int64_t d = 0; d < rank; ++d) {
    if (d > 0) s += ",";
    s += std::to_string(row[d]);
  }
  return s + "]";
}

class SparseToDenseOp : public OpKernel {
 public:
  explicit SparseToDenseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("validate_indices", &validate_indices_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices_t = ctx->input(0);
    const Tensor& shape_t = ctx->input(1);
    const Tensor& values = ctx->input(2);
    const Tensor& default_value = ctx->input(3);
    OP_REQUIRES_OK(ctx, ctx->status());
    OP_REQUIRES(ctx, indices_t.dims() <= 2,
                errors::InvalidArgument(
                    "sparse_indices should be a scalar, vector, or matrix, got shape ",
                    indices_t.shape().DebugString()));
    const int64_t num_elems = indices_t.dims() > 0 ? indices_t.dim_size(0) : 1;
    const int64_t rank = indices_t.dims() > 1 ? indices_t.dim_size(1) : 1;
    OP_REQUIRES(ctx, shape_t.dims() == 1,
                errors::InvalidArgument("output_shape should be a vector, got shape ",
                                        shape_t.shape().DebugString()));
    OP_REQUIRES(ctx, shape_t.NumElements() == rank,
                errors::InvalidArgument("output_shape has incorrect number of elements: ",
                                        shape_t.NumElements(), " should be: ", rank));
    const int64_t num_values = values.NumElements();
    OP_REQUIRES(ctx,
                values.dims() == 0 || (values.dims() == 1 && num_values == num_elems),
                errors::InvalidArgument("sparse_values has incorrect shape ",
                                        values.shape().DebugString(), ", should be [] or [",
                                        num_elems, "]"));
    OP_REQUIRES(ctx, default_value.dims() == 0,
                errors::InvalidArgument("default_value should be a scalar, got shape ",
                                        default_value.shape().DebugString()));

    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, internal::ReadIndexValues(shape_t, "output_shape", &dims));
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(dims, &out_shape));
    std::vector<int64_t> indices;
    OP_REQUIRES_OK(ctx, internal::ReadIndexValues(indices_t, "sparse_indices", &indices));

    // Flat output offset of every index row, checked against the shape.
    const std::vector<int64_t> strides = internal::RowMajorStrides(out_shape);
    std::vector<int64_t> offsets(num_elems, 0);
    for (int64_t n = 0; n < num_elems; ++n) {
      const int64_t* row = indices.data() + n * rank;
      bool in_bounds = true;
      int64_t offset = 0;
      for (int64_t d = 0; d < rank; ++d) {
        if (row[d] < 0 || row[d] >= dims[d]) {
          in_bounds = false;
          break;
        }
        offset += row[d] * strides[d];
      }
      if (!in_bounds) {
        OP_REQUIRES(ctx, !validate_indices_,
                    errors::InvalidArgument(IndexString(row, n, rank),
                                            " is out of bounds: need 0 <= index < ",
                                            out_shape.DebugString()));
        ctx->CtxFailure(errors::InvalidArgument(
            "Indices are not valid (out of bounds).  Shape: ", out_shape.DebugString()));
        return;
      }
      // Row-major order of rows is the order of their offsets.
      if (validate_indices_ && n > 0 && offset <= offsets[n - 1]) {
        OP_REQUIRES(ctx, offset == offsets[n - 1],
                    errors::InvalidArgument(
                        IndexString(row, n, rank),
                        " is out of order. Many sparse ops require sorted indices.\n"
                        "    Use `tf.sparse.reorder` to create a correctly ordered copy."
                        "\n\n"));
        ctx->CtxFailure(
            errors::InvalidArgument(IndexString(row, n, rank), " is repeated"));
        return;
      }
      offsets[n] = offset;
    }

    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    internal::FillElements(default_value, 0, out, 0, out->NumElements());
    const bool scalar_value = values.dims() == 0;
    for (int64_t n = 0; n < num_elems; ++n) {
      if (scalar_value) {
        internal::FillElements(values, 0, out, offsets[n], 1);
      } else {
        internal::CopyElements(values, n, out, offsets[n], 1);
      }
    }
  }

 private:
  bool validate_indices_ = true;
};

REGISTER_KERNEL_BUILDER(Name("SparseToDense")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", internal::ArrayKernelTypes())
                            .TypeConstraint("Tindices", {DT_INT32, DT_INT64})
                            .HostMemory("sparse_indices")
                            .HostMemory("output_shape"),
                        SparseToDenseOp);

}  // namespace
}  // namespace opkit

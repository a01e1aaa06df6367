// MirrorPad on CPU, for every array type: each dimension padded with a
// mirror image of the input's edge, including the edge element (SYMMETRIC:
// [1,2,3] padded by 2 gives 2,1,1,2,3,3,2) or excluding it (REFLECT: 3,2,
// 1,2,3,2,1). TensorFlow's limits on paddings hold: at most size - 1 in
// REFLECT mode and at most size in SYMMETRIC mode, so every output element
// has exactly one source element.
//
// Method: per dimension, a table from output index to input index; the
// output is walked row by row (sharded), each row's middle part copied as a
// run and its mirrored ends element by element.
#include <cstdint>
#include <string>
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/array_kernel_util.h"

namespace opkit {
namespace {

class MirrorPadOp : public OpKernel {
 public:
  explicit MirrorPadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string mode;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("mode", &mode));
    OP_REQUIRES(ctx, mode == "REFLECT" || mode == "SYMMETRIC",
                errors::InvalidArgument("mode must be REFLECT or SYMMETRIC, got ",
                                        mode));
    symmetric_ = mode == "SYMMETRIC";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& paddings_t = ctx->input(1);
    const int rank = input.dims();
    OP_REQUIRES(ctx, paddings_t.dims() == 2 && paddings_t.dim_size(1) == 2,
                errors::InvalidArgument("paddings must be a matrix with 2 columns: ",
                                        paddings_t.shape().DebugString()));
    OP_REQUIRES(ctx, paddings_t.dim_size(0) == rank,
                errors::InvalidArgument(
                    "The first dimension of paddings must be the rank of inputs",
                    paddings_t.shape().DebugString(), " ",
                    input.shape().DebugString()));
    std::vector<int64_t> p;
    OP_REQUIRES_OK(ctx, internal::ReadIndexValues(paddings_t, "paddings", &p));
    const int64_t offset = symmetric_ ? 0 : 1;
    std::vector<int64_t> out_dims(rank);
    for (int i = 0; i < rank; ++i) {
      const int64_t before = p[2 * i], after = p[2 * i + 1];
      const int64_t size = input.dim_size(i);
      OP_REQUIRES(ctx, before >= 0 && after >= 0,
                  errors::InvalidArgument("paddings must be non-negative: ",
                                          before, " ", after));
      OP_REQUIRES(ctx, before <= size - offset && after <= size - offset,
                  errors::InvalidArgument(
                      "paddings must be ", symmetric_ ? "no greater than" : "less than",
                      " the dimension size in ", symmetric_ ? "SYMMETRIC" : "REFLECT",
                      " mode: ", before, ", ", after, " for dimension ", i,
                      " of size ", size));
      out_dims[i] = before + size + after;  // <= 3 * size: no overflow
    }
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(out_dims, &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (output->NumElements() == 0) return;
    if (rank == 0) {
      internal::CopyElements(input, 0, output, 0, 1);
      return;
    }

    // maps[i][j]: the input index along dimension i of output index j.
    std::vector<std::vector<int64_t>> maps(rank);
    for (int i = 0; i < rank; ++i) {
      const int64_t before = p[2 * i], size = input.dim_size(i);
      maps[i].resize(out_dims[i]);
      for (int64_t j = 0; j < out_dims[i]; ++j) {
        int64_t s = j - before;
        if (s < 0) s = -s - 1 + offset;
        if (s >= size) s = 2 * size - s - 1 - offset;
        maps[i][j] = s;
      }
    }
    const std::vector<int64_t> in_strides = internal::RowMajorStrides(input.shape());
    const int64_t cols = out_dims[rank - 1];
    const int64_t rows = output->NumElements() / cols;
    const int64_t before_last = p[2 * (rank - 1)];
    const int64_t size_last = input.dim_size(rank - 1);
    const char* in = static_cast<const char*>(input.data());
    char* out = static_cast<char*>(output->data());
    internal::VisitElements(input.dtype(), [&](auto elements) {
      using E = decltype(elements);
      Shard(ctx, rows, static_cast<double>(cols * E::kSize),
            [&](int64_t begin, int64_t end) {
              for (int64_t r = begin; r < end; ++r) {
                // The input row that output row r reads.
                int64_t src_row = 0;
                int64_t rem = r;
                for (int i = rank - 2; i >= 0; --i) {
                  src_row += maps[i][rem % out_dims[i]] * in_strides[i];
                  rem /= out_dims[i];
                }
                const char* s = in + src_row * E::kSize;
                char* d = out + r * cols * E::kSize;
                const std::vector<int64_t>& last = maps[rank - 1];
                for (int64_t j = 0; j < before_last; ++j) {
                  E::Copy(d + j * E::kSize, s + last[j] * E::kSize);
                }
                E::CopyRun(d + before_last * E::kSize, s, size_last);
                for (int64_t j = before_last + size_last; j < cols; ++j) {
                  E::Copy(d + j * E::kSize, s + last[j] * E::kSize);
                }
              }
            });
    });
  }

 private:
  bool symmetric_ = false;
};

REGISTER_KERNEL_BUILDER(Name("MirrorPad")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", internal::ArrayKernelTypes())
                            .HostMemory("paddings"),
                        MirrorPadOp);

}  // namespace
}  // namespace opkit

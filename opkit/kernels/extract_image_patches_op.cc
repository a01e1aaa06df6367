// ExtractImagePatches on CPU, for every type of the op: images [N, H, W, C]
// to patches [N, out_rows, out_cols, ksize_rows * ksize_cols * C], where
// the last dimension holds the window at (row, col) -- ksize_rows x
// ksize_cols taps `rates` apart, each tap's C channels in a row -- and taps
// in the SAME padding are zero. Type-generic: each in-image tap is one
// contiguous run of C elements copied by size (array_kernel_util.h).
#include <cstdint>
#include <string>
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/array_kernel_util.h"
#include "opkit/kernels/ops_util.h"

namespace opkit {
namespace {

class ExtractImagePatchesOp : public OpKernel {
 public:
  explicit ExtractImagePatchesOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("ksizes", &ksizes_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("strides", &strides_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("rates", &rates_));
    std::string padding;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding));
    OP_REQUIRES_OK(ctx, shape_inference::GetPaddingFromString(padding, &padding_));
    OP_REQUIRES(ctx, padding_ != Padding::EXPLICIT,
                errors::InvalidArgument(
                    "ExtractImagePatches takes padding SAME or VALID"));
    for (const auto& [name, v] :
         {std::make_pair("ksizes", &ksizes_), std::make_pair("strides", &strides_),
          std::make_pair("rates", &rates_)}) {
      OP_REQUIRES(ctx, v->size() == 4,
                  errors::InvalidArgument(
                      "ExtractImagePatches requires the ", name,
                      " attribute to contain 4 values, but got: ", v->size()));
      OP_REQUIRES(ctx, (*v)[0] == 1 && (*v)[3] == 1,
                  errors::Unimplemented(
                      "ExtractImagePatches is only supported across rows and "
                      "cols: ", name, " must be 1 in the batch and depth "
                      "dimensions"));
      OP_REQUIRES(ctx, (*v)[1] >= 1 && (*v)[2] >= 1,
                  errors::InvalidArgument("ExtractImagePatches ", name,
                                          " must be >= 1, got ", (*v)[1],
                                          " and ", (*v)[2]));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    OP_REQUIRES(ctx, images.dims() == 4,
                errors::InvalidArgument("input must be 4-dimensional [batch, "
                                        "rows, cols, depth]: ",
                                        images.shape().DebugString()));
    const int64_t batch = images.dim_size(0), in_rows = images.dim_size(1),
                  in_cols = images.dim_size(2), depth = images.dim_size(3);
    const int64_t k_rows = ksizes_[1], k_cols = ksizes_[2];
    const int64_t s_rows = strides_[1], s_cols = strides_[2];
    const int64_t r_rows = rates_[1], r_cols = rates_[2];
    int64_t out_rows, out_cols, pad_top = 0, pad_bottom = 0, pad_left = 0,
                                pad_right = 0;
    OP_REQUIRES_OK(ctx, GetWindowedOutputSizeVerbose(in_rows, k_rows, r_rows,
                                                     s_rows, padding_, &out_rows,
                                                     &pad_top, &pad_bottom));
    OP_REQUIRES_OK(ctx, GetWindowedOutputSizeVerbose(in_cols, k_cols, r_cols,
                                                     s_cols, padding_, &out_cols,
                                                     &pad_left, &pad_right));
    int64_t taps, out_depth;
    OP_REQUIRES(ctx,
                internal::MultiplyWithoutOverflow(k_rows, k_cols, &taps) &&
                    internal::MultiplyWithoutOverflow(taps, depth, &out_depth),
                errors::InvalidArgument("patch size ", k_rows, "x", k_cols, "x",
                                        depth, " overflows int64"));
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(
                            {batch, out_rows, out_cols, out_depth}, &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (output->NumElements() == 0) return;
    internal::SetZero(output);
    if (depth == 0) return;
    const char* in = static_cast<const char*>(images.data());
    char* out = static_cast<char*>(output->data());
    internal::VisitElements(images.dtype(), [&](auto elements) {
      using E = decltype(elements);
      Shard(ctx, batch * out_rows, static_cast<double>(out_cols * out_depth * E::kSize),
            [&](int64_t begin, int64_t end) {
              for (int64_t u = begin; u < end; ++u) {
                const int64_t n = u / out_rows, r = u % out_rows;
                char* row = out + u * out_cols * out_depth * E::kSize;
                for (int64_t c = 0; c < out_cols; ++c) {
                  char* patch = row + c * out_depth * E::kSize;
                  for (int64_t i = 0; i < k_rows; ++i) {
                    const int64_t ih = r * s_rows - pad_top + i * r_rows;
                    if (ih < 0 || ih >= in_rows) continue;
                    for (int64_t j = 0; j < k_cols; ++j) {
                      const int64_t iw = c * s_cols - pad_left + j * r_cols;
                      if (iw < 0 || iw >= in_cols) continue;
                      const int64_t src = ((n * in_rows + ih) * in_cols + iw) * depth;
                      E::CopyRun(patch + (i * k_cols + j) * depth * E::kSize,
                                 in + src * E::kSize, depth);
                    }
                  }
                }
              }
            });
    });
  }

 private:
  std::vector<int32> ksizes_, strides_, rates_;
  Padding padding_ = Padding::VALID;
};

REGISTER_KERNEL_BUILDER(
    Name("ExtractImagePatches")
        .Device(DEVICE_CPU)
        .TypeConstraint("T", {DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE,
                              DT_INT8, DT_INT16, DT_INT32, DT_INT64, DT_UINT8,
                              DT_UINT16, DT_UINT32, DT_UINT64, DT_COMPLEX64,
                              DT_COMPLEX128, DT_BOOL}),
    ExtractImagePatchesOp);

}  // namespace
}  // namespace opkit

// Conv3D on CPU: NDHWC input [N, D, H, W, C], filter [FD, FH, FW, C, O];
// SAME or VALID padding, strides and dilations over D, H and W. NCDHW and
// grouped filters are refused (Unimplemented), as TensorFlow's CPU kernel
// does.
//
// Method: a direct convolution sharded over output rows. For each output
// position only the taps inside the input are visited, and the sum runs
// with the output channels innermost (the filter's contiguous dimension):
// out[:] += in[c] * filter[tap, c, :], which vectorises. Half and bfloat16
// are computed in float.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernel/register_types.h"
#include "opkit/kernels/kernel_shard.h"
#include "opkit/kernels/ops_util.h"

namespace opkit {
namespace {

struct Conv3DDims {
  int64_t batch;
  int64_t in[3];      // input planes, rows, cols
  int64_t filter[3];  // filter planes, rows, cols
  int64_t in_depth, out_depth;
  int64_t stride[3], dilation[3], pad[3];
  int64_t out[3];
};

template <typename CT>
void Convolve(OpKernelContext* ctx, const Conv3DDims& d, const CT* in,
              const CT* filter, CT* out) {
  const int64_t C = d.in_depth, O = d.out_depth;
  const int64_t rows = d.batch * d.out[0] * d.out[1];
  const double cost = static_cast<double>(d.out[2]) * C * O *
                      static_cast<double>(d.filter[0] * d.filter[1] * d.filter[2]);
  Shard(ctx, rows, cost, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t oh = r % d.out[1];
      const int64_t op = (r / d.out[1]) % d.out[0];
      const int64_t n = r / (d.out[1] * d.out[0]);
      const int64_t p0 = op * d.stride[0] - d.pad[0];
      const int64_t h0 = oh * d.stride[1] - d.pad[1];
      int64_t fp_first, fp_last, fh_first, fh_last;
      ValidTaps(p0, d.in[0], d.filter[0], d.dilation[0], &fp_first, &fp_last);
      ValidTaps(h0, d.in[1], d.filter[1], d.dilation[1], &fh_first, &fh_last);
      for (int64_t ow = 0; ow < d.out[2]; ++ow) {
        const int64_t w0 = ow * d.stride[2] - d.pad[2];
        int64_t fw_first, fw_last;
        ValidTaps(w0, d.in[2], d.filter[2], d.dilation[2], &fw_first, &fw_last);
        CT* acc = out + (r * d.out[2] + ow) * O;
        std::fill(acc, acc + O, CT(0));
        for (int64_t fp = fp_first; fp < fp_last; ++fp) {
          const int64_t ip = p0 + fp * d.dilation[0];
          for (int64_t fh = fh_first; fh < fh_last; ++fh) {
            const int64_t ih = h0 + fh * d.dilation[1];
            for (int64_t fw = fw_first; fw < fw_last; ++fw) {
              const int64_t iw = w0 + fw * d.dilation[2];
              const CT* x =
                  in + (((n * d.in[0] + ip) * d.in[1] + ih) * d.in[2] + iw) * C;
              const CT* f =
                  filter + ((fp * d.filter[1] + fh) * d.filter[2] + fw) * C * O;
              for (int64_t c = 0; c < C; ++c) {
                const CT v = x[c];
                const CT* fc = f + c * O;
                for (int64_t o = 0; o < O; ++o) acc[o] += v * fc[o];
              }
            }
          }
        }
      }
    }
  });
}

template <typename T>
class Conv3DOp : public OpKernel {
 public:
  explicit Conv3DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("strides", &strides_));
    if (ctx->HasAttr("dilations")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("dilations", &dilations_));
    } else {
      dilations_.assign(5, 1);
    }
    std::string padding, format;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding));
    OP_REQUIRES_OK(ctx, shape_inference::GetPaddingFromString(padding, &padding_));
    OP_REQUIRES(ctx, padding_ != Padding::EXPLICIT,
                errors::InvalidArgument("Conv3D takes padding SAME or VALID"));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
    OP_REQUIRES(ctx, format == "NDHWC",
                errors::Unimplemented(
                    "The Conv3D op on CPU supports data_format NDHWC only, got ",
                    format));
    for (const auto& [name, v] : {std::make_pair("strides", &strides_),
                                  std::make_pair("dilations", &dilations_)}) {
      OP_REQUIRES(ctx, v->size() == 5,
                  errors::InvalidArgument("Sliding window ", name,
                                          " field must specify 5 dimensions, got ",
                                          v->size()));
      OP_REQUIRES(ctx, (*v)[0] == 1 && (*v)[4] == 1,
                  errors::InvalidArgument(
                      "Current implementation does not yet support ", name,
                      " in the batch and depth dimensions."));
      for (int i = 1; i <= 3; ++i) {
        OP_REQUIRES(ctx, (*v)[i] > 0,
                    errors::InvalidArgument("Conv3D ", name,
                                            " must be > 0, got ", (*v)[i]));
      }
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    OP_REQUIRES(ctx, input.dims() == 5,
                errors::InvalidArgument("input must be 5-dimensional: ",
                                        input.shape().DebugString()));
    OP_REQUIRES(ctx, filter.dims() == 5,
                errors::InvalidArgument("filter must be 5-dimensional: ",
                                        filter.shape().DebugString()));
    Conv3DDims d;
    d.batch = input.dim_size(0);
    d.in_depth = input.dim_size(4);
    d.out_depth = filter.dim_size(4);
    OP_REQUIRES(ctx, filter.dim_size(3) > 0 && d.in_depth % filter.dim_size(3) == 0,
                errors::InvalidArgument(
                    "Input depth must be evenly divisible by filter depth: ",
                    d.in_depth, " vs ", filter.dim_size(3)));
    // Before the grouping check, so that an empty filter is the caller's
    // error, as in TensorFlow (TFSA-2021-006), and not "unimplemented".
    OP_REQUIRES(ctx, filter.NumElements() > 0,
                errors::InvalidArgument(
                    "filter must not be empty (every dimension > 0), got ",
                    filter.shape().DebugString()));
    OP_REQUIRES(ctx, filter.dim_size(3) == d.in_depth,
                errors::Unimplemented(
                    "Conv3D on CPU does not support grouped convolutions: input "
                    "depth ", d.in_depth, ", filter depth ", filter.dim_size(3)));
    for (int i = 0; i < 3; ++i) {
      d.in[i] = input.dim_size(i + 1);
      d.filter[i] = filter.dim_size(i);
      d.stride[i] = strides_[i + 1];
      d.dilation[i] = dilations_[i + 1];
      d.pad[i] = 0;
      int64_t pad_after = 0;
      OP_REQUIRES_OK(ctx, GetWindowedOutputSizeVerbose(
                              d.in[i], d.filter[i], d.dilation[i], d.stride[i],
                              padding_, &d.out[i], &d.pad[i], &pad_after));
    }
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(
                            {d.batch, d.out[0], d.out[1], d.out[2], d.out_depth},
                            &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (output->NumElements() == 0) return;
    T* out = output->flat<T>().data();
    if constexpr (std::is_same_v<T, CT>) {
      Convolve<CT>(ctx, d, input.flat<T>().data(), filter.flat<T>().data(), out);
    } else {
      std::vector<CT> in_buf(input.NumElements()), f_buf(filter.NumElements()),
          out_buf(output->NumElements());
      const T* in = input.flat<T>().data();
      const T* f = filter.flat<T>().data();
      for (size_t i = 0; i < in_buf.size(); ++i) in_buf[i] = static_cast<CT>(in[i]);
      for (size_t i = 0; i < f_buf.size(); ++i) f_buf[i] = static_cast<CT>(f[i]);
      Convolve<CT>(ctx, d, in_buf.data(), f_buf.data(), out_buf.data());
      for (size_t i = 0; i < out_buf.size(); ++i) out[i] = static_cast<T>(out_buf[i]);
    }
  }

 private:
  using CT = std::conditional_t<std::is_same_v<T, double>, double, float>;
  std::vector<int32> strides_, dilations_;
  Padding padding_ = Padding::VALID;
};

#define OPKIT_REGISTER_CONV3D(T)                                        \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("Conv3D").Device(DEVICE_CPU).TypeConstraint<T>("T"),         \
      Conv3DOp<T>);
TF_CALL_FLOAT_TYPES(OPKIT_REGISTER_CONV3D)
#undef OPKIT_REGISTER_CONV3D

}  // namespace
}  // namespace opkit

// BiasAdd on CPU: value + bias along the channel dimension, which is the
// last one for data_format NHWC and dimension 1 for NCHW (any rank >= 2, as
// TensorFlow's CPU kernel). BiasAddGrad, its gradient with respect to the
// bias: out_backprop summed over every dimension but the channel one (half
// and bfloat16 summed in float, signed integers wrapping). Both registered
// for every number type.
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

// a + b; signed integers wrap around as two's complement instead of
// overflowing (undefined behaviour in C++).
template <typename T>
inline T AddWrapping(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

// The data_format attr of BiasAdd and BiasAddGrad (NHWC when absent).
Status ReadBiasFormat(OpKernelConstruction* ctx, TensorFormat* format) {
  std::string data_format;
  if (ctx->GetAttr("data_format", &data_format).ok() &&
      !FormatFromString(data_format, format)) {
    return errors::InvalidArgument("Invalid data format: '", data_format,
                                   "'; use 'NHWC' or 'NCHW'");
  }
  return OkStatus();
}

template <typename T>
class BiasAddOp : public OpKernel {
 public:
  explicit BiasAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadBiasFormat(ctx, &format_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    OP_REQUIRES(ctx, TensorShapeUtils::IsMatrixOrHigher(input.shape()),
                errors::InvalidArgument("Input tensor must be at least 2D: ",
                                        input.shape().DebugString()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsVector(bias.shape()),
                errors::InvalidArgument("Biases must be 1D: ",
                                        bias.shape().DebugString()));
    const int channel_dim =
        format_ == TensorFormat::kNCHW ? 1 : input.dims() - 1;
    const int64_t channels = input.dim_size(channel_dim);
    OP_REQUIRES(ctx, bias.dim_size(0) == channels,
                errors::InvalidArgument(
                    "Must provide as many biases as the last dimension of the "
                    "input tensor: ",
                    bias.shape().DebugString(), " vs. ",
                    input.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, input.shape(), &out));
    if (input.NumElements() == 0) return;

    // The input as [outer, channels, inner]: inner is 1 for NHWC.
    int64_t inner = 1;
    for (int d = channel_dim + 1; d < input.dims(); ++d) {
      inner *= input.dim_size(d);
    }
    const int64_t outer = input.NumElements() / (channels * inner);
    const T* x = input.flat<T>().data();
    const T* b = bias.flat<T>().data();
    T* y = out->flat<T>().data();
    if (inner == 1) {
      // NHWC (and NCHW without spatial dimensions): each row adds the bias
      // vector, one contiguous loop the compiler vectorizes.
      auto run_rows = [=](int64_t first, int64_t last) {
        for (int64_t o = first; o < last; ++o) {
          const T* xr = x + o * channels;
          T* yr = y + o * channels;
          for (int64_t c = 0; c < channels; ++c) yr[c] = AddWrapping(xr[c], b[c]);
        }
      };
      if (input.NumElements() <= kInlineElements) {
        run_rows(0, outer);
      } else {
        Shard(ctx, outer, static_cast<double>(channels), run_rows);
      }
      return;
    }
    auto run = [=](int64_t first, int64_t last) {
      // One unit of work is one [channels, inner] block.
      for (int64_t o = first; o < last; ++o) {
        const int64_t base = o * channels * inner;
        for (int64_t c = 0; c < channels; ++c) {
          const T bc = b[c];
          const int64_t start = base + c * inner;
          for (int64_t i = 0; i < inner; ++i) {
            y[start + i] = AddWrapping(x[start + i], bc);
          }
        }
      }
    };
    // About a cycle an element (a load, an add and a store, vectorized).
    Shard(ctx, outer, static_cast<double>(channels * inner), run);
  }

 private:
  TensorFormat format_ = TensorFormat::kNHWC;
};

// Sums are kept in float for half and bfloat16, in T otherwise.
template <typename T>
using BiasGradAccum =
    std::conditional_t<std::is_same_v<T, half> || std::is_same_v<T, bfloat16>,
                       float, T>;

template <typename T>
class BiasAddGradOp : public OpKernel {
 public:
  explicit BiasAddGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadBiasFormat(ctx, &format_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    OP_REQUIRES(ctx, TensorShapeUtils::IsMatrixOrHigher(grad.shape()),
                errors::InvalidArgument(
                    "out_backprop (input 0) must be at least 2-D, got shape ",
                    grad.shape().DebugString()));
    const int channel_dim =
        format_ == TensorFormat::kNCHW ? 1 : grad.dims() - 1;
    const int64_t channels = grad.dim_size(channel_dim);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape({channels}), &out));
    if (channels == 0) return;
    // out_backprop as [outer, channels, inner]: inner is 1 for NHWC.
    int64_t inner = 1;
    for (int d = channel_dim + 1; d < grad.dims(); ++d) {
      inner *= grad.dim_size(d);
    }
    // A product, not NumElements() / (channels * inner): inner may be 0
    // (an empty spatial dimension after the channels in NCHW).
    int64_t outer = 1;
    for (int d = 0; d < channel_dim; ++d) outer *= grad.dim_size(d);
    if (grad.NumElements() == 0) {
      // Nothing to sum, however large the other dimensions (a loop over
      // 2^40 empty rows would not end).
      out->flat<T>().setZero();
      return;
    }
    const T* g = grad.flat<T>().data();
    T* y = out->flat<T>().data();
    using Acc = BiasGradAccum<T>;
    // One unit of work is one channel; each sums its own elements in the
    // same order (o, then i), so the result does not depend on the number
    // of threads.
    if (inner == 1) {
      // NHWC (and NCHW without spatial dimensions): walk the rows
      // contiguously, adding each into a block of per-channel sums, rather
      // than striding down one channel at a time.
      auto run_rows = [=](int64_t first, int64_t last) {
        std::vector<Acc> sums(static_cast<size_t>(last - first), Acc(0));
        Acc* acc = sums.data();
        const int64_t width = last - first;
        for (int64_t o = 0; o < outer; ++o) {
          const T* row = g + o * channels + first;
          for (int64_t c = 0; c < width; ++c) {
            acc[c] = AddWrapping(acc[c], static_cast<Acc>(row[c]));
          }
        }
        for (int64_t c = 0; c < width; ++c) y[first + c] = static_cast<T>(acc[c]);
      };
      if (grad.NumElements() <= kInlineElements) {
        run_rows(0, channels);
      } else {
        Shard(ctx, channels, static_cast<double>(outer), run_rows);
      }
      return;
    }
    auto run = [=](int64_t first, int64_t last) {
      for (int64_t c = first; c < last; ++c) {
        Acc sum = Acc(0);
        for (int64_t o = 0; o < outer; ++o) {
          const T* row = g + (o * channels + c) * inner;
          for (int64_t i = 0; i < inner; ++i) {
            sum = AddWrapping(sum, static_cast<Acc>(row[i]));
          }
        }
        y[c] = static_cast<T>(sum);
      }
    };
    Shard(ctx, channels, static_cast<double>(outer * inner), run);
  }

 private:
  TensorFormat format_ = TensorFormat::kNHWC;
};

#define OPKIT_REGISTER_BIAS_ADD(T)                                      \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("BiasAdd").Device(DEVICE_CPU).TypeConstraint<T>("T"),        \
      BiasAddOp<T>);                                                    \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("BiasAddGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
      BiasAddGradOp<T>);
TF_CALL_NUMBER_TYPES(OPKIT_REGISTER_BIAS_ADD)
#undef OPKIT_REGISTER_BIAS_ADD

}  // namespace
}  // namespace opkit

// BiasAdd on CPU: value + bias along the channel dimension, which is the
// last one for data_format NHWC and dimension 1 for NCHW (any rank >= 2, as
// TensorFlow's CPU kernel). Registered for every number type.
#include <string>
#include <type_traits>

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

template <typename T>
class BiasAddOp : public OpKernel {
 public:
  explicit BiasAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string data_format;
    if (ctx->GetAttr("data_format", &data_format).ok()) {
      OP_REQUIRES(ctx, FormatFromString(data_format, &format_),
                  errors::InvalidArgument("Invalid data format: '",
                                          data_format,
                                          "'; use 'NHWC' or 'NCHW'"));
    }
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

#define OPKIT_REGISTER_BIAS_ADD(T)                                      \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("BiasAdd").Device(DEVICE_CPU).TypeConstraint<T>("T"),        \
      BiasAddOp<T>);
TF_CALL_NUMBER_TYPES(OPKIT_REGISTER_BIAS_ADD)
#undef OPKIT_REGISTER_BIAS_ADD

}  // namespace
}  // namespace opkit

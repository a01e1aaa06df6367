// Softmax and LogSoftmax on CPU, along the last dimension of an input of any
// rank >= 1. Each row is reduced in float (double for double inputs), with
// the row maximum subtracted first so that large logits do not overflow.
// Registered for half, bfloat16, float and double, as TensorFlow's CPU
// kernels are.
#include <cmath>
#include <type_traits>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernel/register_types.h"
#include "opkit/kernels/kernel_shard.h"

namespace opkit {
namespace {

template <typename T>
using AccumType = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T, bool kLog>
class SoftmaxOp : public OpKernel {
 public:
  explicit SoftmaxOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    OP_REQUIRES(ctx, TensorShapeUtils::IsVectorOrHigher(logits.shape()),
                errors::InvalidArgument("logits must have >= 1 dimension, got ",
                                        logits.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, logits.shape(), &out));
    if (logits.NumElements() == 0) return;
    const int64_t depth = logits.dim_size(logits.dims() - 1);
    const int64_t rows = logits.NumElements() / depth;
    const T* in_data = logits.flat<T>().data();
    T* out_data = out->flat<T>().data();

    // in_data and out_data may be the same buffer (forwarded input): each
    // row is read completely before it is written.
    auto run_rows = [in_data, out_data, depth](int64_t first, int64_t last) {
      using Acc = AccumType<T>;
      for (int64_t r = first; r < last; ++r) {
        const T* x = in_data + r * depth;
        T* y = out_data + r * depth;
        Acc max = static_cast<Acc>(x[0]);
        for (int64_t i = 1; i < depth; ++i) {
          const Acc v = static_cast<Acc>(x[i]);
          // NaN wins, so that a NaN logit makes its whole row NaN.
          if (v > max || std::isnan(v)) max = v;
        }
        Acc sum = 0;
        for (int64_t i = 0; i < depth; ++i) {
          sum += std::exp(static_cast<Acc>(x[i]) - max);
        }
        if constexpr (kLog) {
          const Acc log_sum = std::log(sum);
          for (int64_t i = 0; i < depth; ++i) {
            y[i] = static_cast<T>(static_cast<Acc>(x[i]) - max - log_sum);
          }
        } else {
          const Acc inv = Acc(1) / sum;
          for (int64_t i = 0; i < depth; ++i) {
            y[i] = static_cast<T>(std::exp(static_cast<Acc>(x[i]) - max) * inv);
          }
        }
      }
    };
    // About 20 cycles an element (two exps, a max and a sum).
    Shard(ctx, rows, static_cast<double>(depth) * 20, run_rows);
  }
};

#define OPKIT_REGISTER_SOFTMAX(T)                                       \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("Softmax").Device(DEVICE_CPU).TypeConstraint<T>("T"),        \
      SoftmaxOp<T, false>);                                             \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("LogSoftmax").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
      SoftmaxOp<T, true>);
TF_CALL_FLOAT_TYPES(OPKIT_REGISTER_SOFTMAX)
#undef OPKIT_REGISTER_SOFTMAX

}  // namespace
}  // namespace opkit

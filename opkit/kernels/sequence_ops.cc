// Range on CPU: start, start + delta, ... up to (not including) limit.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernel/register_types.h"

namespace opkit {
namespace {

template <typename T>
class RangeOp : public OpKernel {
 public:
  explicit RangeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& start_t = ctx->input(0);
    const Tensor& limit_t = ctx->input(1);
    const Tensor& delta_t = ctx->input(2);
    OP_REQUIRES(ctx, start_t.NumElements() == 1,
                errors::InvalidArgument("start must be a scalar, not shape ",
                                        start_t.shape().DebugString()));
    OP_REQUIRES(ctx, limit_t.NumElements() == 1,
                errors::InvalidArgument("limit must be a scalar, not shape ",
                                        limit_t.shape().DebugString()));
    OP_REQUIRES(ctx, delta_t.NumElements() == 1,
                errors::InvalidArgument("delta must be a scalar, not shape ",
                                        delta_t.shape().DebugString()));
    const T start = start_t.unaligned_flat<T>()(0);
    const T limit = limit_t.unaligned_flat<T>()(0);
    const T delta = delta_t.unaligned_flat<T>()(0);
    int64_t size = 0;
    if constexpr (std::is_integral_v<T>) {
      const int64_t a = static_cast<int64_t>(start);
      const int64_t b = static_cast<int64_t>(limit);
      const int64_t step = static_cast<int64_t>(delta);
      OP_REQUIRES_OK(ctx, CheckOrder(a, b, step));
      const uint64_t span = step > 0 ? static_cast<uint64_t>(b) - static_cast<uint64_t>(a)
                                     : static_cast<uint64_t>(a) - static_cast<uint64_t>(b);
      const uint64_t mag = step > 0 ? static_cast<uint64_t>(step)
                                    : uint64_t{0} - static_cast<uint64_t>(step);
      const uint64_t n = span / mag + (span % mag != 0 ? 1 : 0);
      OP_REQUIRES(ctx, n <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()),
                  errors::InvalidArgument("Requires ((limit - start) / delta) <= ",
                                          std::numeric_limits<int64_t>::max()));
      size = static_cast<int64_t>(n);
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({size}), &out));
      T* data = static_cast<T*>(out->data());
      // Wrapping unsigned arithmetic: every value produced lies between
      // start and limit, so the result is exact without signed overflow.
      for (int64_t i = 0; i < size; ++i) {
        data[i] = static_cast<T>(static_cast<uint64_t>(a) +
                                 static_cast<uint64_t>(i) * static_cast<uint64_t>(step));
      }
    } else {
      const double a = static_cast<double>(start);
      const double b = static_cast<double>(limit);
      const double step = static_cast<double>(delta);
      OP_REQUIRES_OK(ctx, CheckOrder(a, b, step));
      const double n = std::ceil(std::abs((b - a) / step));
      OP_REQUIRES(ctx, n < 9.2e18,
                  errors::InvalidArgument("Requires ((limit - start) / delta) <= ",
                                          std::numeric_limits<int64_t>::max(),
                                          ", got start ", a, ", limit ", b, ", delta ",
                                          step));
      size = static_cast<int64_t>(n);
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({size}), &out));
      T* data = static_cast<T*>(out->data());
      T value = start;
      for (int64_t i = 0; i < size; ++i) {
        data[i] = value;
        value = static_cast<T>(value + delta);
      }
    }
  }

 private:
  template <typename V>
  static Status CheckOrder(V start, V limit, V delta) {
    if (delta == 0) return errors::InvalidArgument("Requires delta != 0: ", delta);
    if (delta > 0 && start > limit) {
      return errors::InvalidArgument("Requires start <= limit when delta > 0: ", start,
                                     "/", limit);
    }
    if (delta < 0 && start < limit) {
      return errors::InvalidArgument("Requires start >= limit when delta < 0: ", start,
                                     "/", limit);
    }
    return Status::OK();
  }
};

#define OPKIT_REGISTER_RANGE(T)                                  \
  REGISTER_KERNEL_BUILDER(Name("Range")                          \
                              .Device(DEVICE_CPU)                \
                              .TypeConstraint<T>("Tidx")         \
                              .HostMemory("start")               \
                              .HostMemory("limit")               \
                              .HostMemory("delta"),              \
                          RangeOp<T>);
TF_CALL_bfloat16(OPKIT_REGISTER_RANGE) TF_CALL_half(OPKIT_REGISTER_RANGE)
TF_CALL_float(OPKIT_REGISTER_RANGE) TF_CALL_double(OPKIT_REGISTER_RANGE)
TF_CALL_int8(OPKIT_REGISTER_RANGE) TF_CALL_int16(OPKIT_REGISTER_RANGE)
TF_CALL_int32(OPKIT_REGISTER_RANGE) TF_CALL_int64(OPKIT_REGISTER_RANGE)
TF_CALL_uint32(OPKIT_REGISTER_RANGE)
#undef OPKIT_REGISTER_RANGE

}  // namespace
}  // namespace opkit

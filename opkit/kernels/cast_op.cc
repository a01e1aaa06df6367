// Cast on CPU between every pair of bool, the integer types, half, bfloat16,
// float, double, complex64 and complex128. One kernel, registered without
// type constraints, picks the conversion when it is built; a pair it cannot
// convert (string, resource, quantized types) is Unimplemented "Cast string
// to float is not supported", reported when the kernel is created.
//
// Conversions are those of TensorFlow, made defined where C++ is not:
//   - to bool: x != 0;  from bool: 0 or 1;
//   - integer to integer: modulo 2^bits (int32 300 -> uint8 44);
//   - floating-point to integer: truncation towards zero, NaN -> 0, values
//     beyond the target's range saturate at its lowest / highest value
//     (a plain static_cast would be undefined behaviour there);
//   - complex to real: the real part; real to complex: (x, 0);
//   - Truncate=true makes float/double -> half/bfloat16 drop the low mantissa
//     bits instead of rounding to nearest.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "opkit/kernel/register_types.h"
#include "opkit/kernels/cwise_ops_common.h"

namespace opkit {
namespace {

template <typename T>
inline constexpr bool kIsReducedFloat =
    std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

// A finite or non-finite floating value as integer type D, defined for every
// input (see the file comment).
template <typename D, typename F>
D FloatToInt(F f) {
  if (std::isnan(f)) return D(0);
  if (f <= static_cast<F>(std::numeric_limits<D>::lowest())) {
    return std::numeric_limits<D>::lowest();
  }
  // static_cast<F>(max) rounds up to a power of two for the wide types, so
  // everything below it fits.
  if (f >= static_cast<F>(std::numeric_limits<D>::max())) {
    return std::numeric_limits<D>::max();
  }
  return static_cast<D>(f);
}

// float with its low mantissa bits cleared, so that converting it to a type
// with `kept` mantissa bits involves no rounding.
// NaN stays NaN (clearing bits could turn it into infinity). The NaN test
// comes after the bit manipulation on purpose: GCC 12.2 at -O1 and above
// drops the masking entirely when the function returns early for NaN before
// it (cast_op_test's Truncate test catches that).
inline float TruncateMantissa(float f, int kept) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  bits &= ~((uint32_t{1} << (23 - kept)) - 1);
  float truncated;
  std::memcpy(&truncated, &bits, sizeof(truncated));
  return std::isnan(f) ? f : truncated;
}

template <typename D, typename S>
D Convert(S s, bool truncate) {
  if constexpr (std::is_same_v<D, S>) {
    return s;
  } else if constexpr (Eigen::NumTraits<S>::IsComplex) {
    if constexpr (Eigen::NumTraits<D>::IsComplex) {
      using R = typename D::value_type;
      return D(static_cast<R>(s.real()), static_cast<R>(s.imag()));
    } else if constexpr (std::is_same_v<D, bool>) {
      return s != S(0);
    } else {
      return Convert<D>(s.real(), truncate);
    }
  } else if constexpr (kIsReducedFloat<S>) {
    return Convert<D>(static_cast<float>(s), truncate);
  } else if constexpr (Eigen::NumTraits<D>::IsComplex) {
    using R = typename D::value_type;
    return D(Convert<R>(s, truncate), R(0));
  } else if constexpr (std::is_same_v<D, bool>) {
    return s != S(0);
  } else if constexpr (kIsReducedFloat<D>) {
    float f = static_cast<float>(s);
    if constexpr (std::is_floating_point_v<S>) {
      if (truncate) f = TruncateMantissa(f, std::is_same_v<D, half> ? 10 : 7);
    }
    return static_cast<D>(f);
  } else if constexpr (std::is_floating_point_v<D>) {
    return static_cast<D>(s);
  } else if constexpr (std::is_floating_point_v<S>) {
    return FloatToInt<D>(s);
  } else {
    // Integer or bool to integer: modulo 2^bits, defined for unsigned
    // targets and (since the value is representable mod 2^n) the same on
    // every two's-complement compiler for signed ones.
    return static_cast<D>(s);
  }
}

using CastFn = void (*)(const void* in, void* out, int64_t begin, int64_t end,
                        bool truncate);

template <typename S, typename D>
void CastRange(const void* in, void* out, int64_t begin, int64_t end, bool truncate) {
  const S* src = static_cast<const S*>(in);
  D* dst = static_cast<D*>(out);
  for (int64_t i = begin; i < end; ++i) dst[i] = Convert<D>(src[i], truncate);
}

#define OPKIT_CAST_TYPES(m)                                                   \
  m(bool) m(uint8) m(uint16) m(uint32) m(uint64) m(int8) m(int16) m(int32)   \
      m(int64) m(half) m(bfloat16) m(float) m(double) m(complex64)           \
          m(complex128)

template <typename S>
CastFn CastFromTo(DataType dst) {
  switch (dst) {
#define OPKIT_CAST_CASE(D)          \
  case DataTypeToEnum<D>::value:    \
    return &CastRange<S, D>;
    OPKIT_CAST_TYPES(OPKIT_CAST_CASE)
#undef OPKIT_CAST_CASE
    default:
      return nullptr;
  }
}

// The conversion from `src` to `dst`, or nullptr when there is none.
CastFn GetCastFn(DataType src, DataType dst) {
  switch (src) {
#define OPKIT_CAST_CASE(S)          \
  case DataTypeToEnum<S>::value:    \
    return CastFromTo<S>(dst);
    OPKIT_CAST_TYPES(OPKIT_CAST_CASE)
#undef OPKIT_CAST_CASE
    default:
      return nullptr;
  }
}

class CastOp : public OpKernel {
 public:
  explicit CastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("SrcT", &src_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("DstT", &dst_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("Truncate", &truncate_));
    if (src_ == dst_) return;  // Forwarded as it is, whatever the type.
    fn_ = GetCastFn(src_, dst_);
    OP_REQUIRES(ctx, fn_ != nullptr,
                errors::Unimplemented("Cast ", DataTypeString(src_), " to ",
                                      DataTypeString(dst_),
                                      " is not supported"));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES_OK(ctx, ctx->status());
    if (src_ == dst_) {
      ctx->set_output(0, x);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const void* in = x.data();
    void* dst = out->data();
    const CastFn fn = fn_;
    const bool truncate = truncate_;
    Shard(ctx, x.NumElements(), 2, [&](int64_t b, int64_t e) {
      fn(in, dst, b, e, truncate);
    });
  }

 private:
  DataType src_ = DT_INVALID;
  DataType dst_ = DT_INVALID;
  bool truncate_ = false;
  CastFn fn_ = nullptr;
};

REGISTER_KERNEL_BUILDER(Name("Cast").Device(DEVICE_CPU), CastOp);

#undef OPKIT_CAST_TYPES

}  // namespace
}  // namespace opkit

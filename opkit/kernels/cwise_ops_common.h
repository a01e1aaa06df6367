// Element-wise kernels on Eigen: BinaryOp (two inputs, numpy broadcasting)
// and UnaryOp, with the helpers their functors share.
//
//   struct AddFunctor {
//     template <typename X, typename Y>
//     auto operator()(const X& x, const Y& y) const { return x + y; }
//   };
//   REGISTER_KERNEL_BUILDER(Name("AddV2").Device(DEVICE_CPU).TypeConstraint<float>("T"),
//                           BinaryOp<float, AddFunctor>);
//
//   struct NegFunctor {
//     template <typename X>
//     auto operator()(const X& x) const { return -x; }
//   };
//   REGISTER_KERNEL_BUILDER(Name("Neg").Device(DEVICE_CPU).TypeConstraint<float>("T"),
//                           UnaryOp<float, NegFunctor>);
//
// A binary functor combines two rank-1 Eigen expressions of equal length
// (either may be a constant, for a broadcast scalar) into one whose scalar
// type is the kernel's output type; `typename X::Scalar` is the input type.
// A functor may also declare
//   static Status Check(const Tensor& x, const Tensor& y);
// which BinaryOp calls before computing (integer division uses it to refuse
// a zero divisor). Functors must not do anything undefined for any input
// value: integer functors wrap (WrappingAdd etc.) instead of overflowing.
//
// Work is split across the device's intra-op pool with Shard; every piece is
// a plain rank-1 evaluation, so each (op, type) instantiates only three
// expression forms whatever the broadcast rank.
#ifndef OPKIT_KERNELS_CWISE_OPS_COMMON_H_
#define OPKIT_KERNELS_CWISE_OPS_COMMON_H_

#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>
#include <vector>

#include "opkit/device/device.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernels/bcast.h"
#include "opkit/kernels/kernel_shard.h"

namespace opkit {

namespace internal {

// True for the built-in integer element types (not bool).
template <typename T>
inline constexpr bool kIsInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Integer arithmetic modulo 2^bits, as two's-complement hardware does it.
// Signed overflow is undefined behaviour in C++, so values go through
// uint64 (whose arithmetic wraps) and back.
template <typename T>
struct WrappingAdd {
  T operator()(T a, T b) const {
    return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  }
};
template <typename T>
struct WrappingSub {
  T operator()(T a, T b) const {
    return static_cast<T>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
  }
};
template <typename T>
struct WrappingMul {
  T operator()(T a, T b) const {
    return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  }
};
template <typename T>
struct WrappingNeg {
  T operator()(T a) const { return static_cast<T>(uint64_t{0} - static_cast<uint64_t>(a)); }
};

// Whether Functor declares `static Status Check(const Tensor&, const Tensor&)`.
template <typename F, typename = void>
struct HasBinaryCheck : std::false_type {};
template <typename F>
struct HasBinaryCheck<F, std::void_t<decltype(F::Check(std::declval<const Tensor&>(),
                                                       std::declval<const Tensor&>()))>>
    : std::true_type {};

template <typename T>
using ConstRow =
    Eigen::TensorMap<Eigen::Tensor<const T, 1, Eigen::RowMajor, Eigen::DenseIndex>,
                     Eigen::Unaligned>;
template <typename T>
using Row = Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, Eigen::DenseIndex>,
                             Eigen::Unaligned>;

// z[0, n) = f(x, y), where a "scalar" side repeats its one element. At most
// one side may be scalar unless n == 1.
template <typename T, typename OutT, typename Functor>
void BinaryRow(const T* x, bool x_scalar, const T* y, bool y_scalar, OutT* z,
               int64_t n) {
  Functor f;
  Row<OutT> zm(z, n);
  if (x_scalar == y_scalar) {
    zm = f(ConstRow<T>(x, n), ConstRow<T>(y, n));
  } else if (y_scalar) {
    ConstRow<T> xm(x, n);
    zm = f(xm, xm.constant(*y));
  } else {
    ConstRow<T> ym(y, n);
    zm = f(ym.constant(*x), ym);
  }
}

// The layout of a broadcast after dropping size-1 output dimensions and
// merging neighbours that broadcast the same way: out[g] elements per group,
// and each input's stride per group (0 where it repeats).
struct BroadcastLayout {
  std::vector<int64_t> out;
  std::vector<int64_t> x_stride;
  std::vector<int64_t> y_stride;
};

inline BroadcastLayout MakeBroadcastLayout(const BCast& b) {
  BroadcastLayout l;
  std::vector<bool> x_rep, y_rep;
  std::vector<int64_t> x_dims, y_dims;
  for (int i = 0; i < b.rank(); ++i) {
    const int64_t o = b.output_shape().dim_size(i);
    if (o == 1) continue;
    const bool xr = b.x_reshape()[i] == 1;
    const bool yr = b.y_reshape()[i] == 1;
    if (!l.out.empty() && x_rep.back() == xr && y_rep.back() == yr) {
      l.out.back() *= o;
    } else {
      l.out.push_back(o);
      x_rep.push_back(xr);
      y_rep.push_back(yr);
    }
  }
  const size_t g = l.out.size();
  l.x_stride.assign(g, 0);
  l.y_stride.assign(g, 0);
  int64_t xs = 1, ys = 1;
  for (size_t i = g; i-- > 0;) {
    if (!x_rep[i]) {
      l.x_stride[i] = xs;
      xs *= l.out[i];
    }
    if (!y_rep[i]) {
      l.y_stride[i] = ys;
      ys *= l.out[i];
    }
  }
  return l;
}

}  // namespace internal

// out = Functor(x, y) with numpy broadcasting. Input types T, output OutT.
// Errors: InvalidArgument "Incompatible shapes: [2] vs. [3]" when the shapes
// do not broadcast, and whatever Functor::Check reports.
template <typename T, typename Functor, typename OutT = T>
class BinaryOp : public OpKernel {
 public:
  explicit BinaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    OP_REQUIRES_OK(ctx, ctx->status());
    if constexpr (internal::HasBinaryCheck<Functor>::value) {
      // Only values that are computed are checked (as TensorFlow's kernels
      // flag a zero divisor when they meet one): an empty operand gives an
      // empty result, whatever the other holds (a reduction's gradient
      // takes the axes modulo a rank of 0 for a scalar).
      if (x.NumElements() > 0 && y.NumElements() > 0) {
        OP_REQUIRES_OK(ctx, Functor::Check(x, y));
      }
    }
    const T* xp = static_cast<const T*>(x.data());
    const T* yp = static_cast<const T*>(y.data());
    Tensor* out = nullptr;
    if (x.shape() == y.shape()) {
      OP_REQUIRES_OK(ctx, Allocate(ctx, {0, 1}, x.shape(), &out));
      OutT* zp = static_cast<OutT*>(out->data());
      Shard(ctx, out->NumElements(), kCost,
            [&](int64_t b, int64_t e) {
              internal::BinaryRow<T, OutT, Functor>(
                  xp + b, false, yp + b, false, zp + b, e - b);
            });
      return;
    }
    if (y.NumElements() == 1 && x.NumElements() >= 1 && y.dims() <= x.dims()) {
      OP_REQUIRES_OK(ctx, Allocate(ctx, {0}, x.shape(), &out));
      OutT* zp = static_cast<OutT*>(out->data());
      Shard(ctx, out->NumElements(), kCost,
            [&](int64_t b, int64_t e) {
              internal::BinaryRow<T, OutT, Functor>(
                  xp + b, false, yp, true, zp + b, e - b);
            });
      return;
    }
    if (x.NumElements() == 1 && y.NumElements() >= 1 && x.dims() <= y.dims()) {
      OP_REQUIRES_OK(ctx, Allocate(ctx, {1}, y.shape(), &out));
      OutT* zp = static_cast<OutT*>(out->data());
      Shard(ctx, out->NumElements(), kCost,
            [&](int64_t b, int64_t e) {
              internal::BinaryRow<T, OutT, Functor>(
                  xp, true, yp + b, false, zp + b, e - b);
            });
      return;
    }
    BCast b(x.shape(), y.shape());
    OP_REQUIRES(ctx, b.valid(),
                errors::InvalidArgument("Incompatible shapes: ",
                                        x.shape().DebugString(), " vs. ",
                                        y.shape().DebugString()));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, b.output_shape(), &out));
    if (out->NumElements() == 0) return;
    ComputeBroadcast(ctx, xp, yp, b, static_cast<OutT*>(out->data()));
  }

 protected:
  // Rough cost of one element, for sharding.
  static constexpr int64_t kCost = 4;

 private:
  static Status Allocate(OpKernelContext* ctx, std::initializer_list<int> candidates,
                         const TensorShape& shape, Tensor** out) {
    if constexpr (std::is_same_v<T, OutT>) {
      return ctx->forward_input_or_allocate_output(candidates, 0, shape, out);
    } else {
      return ctx->allocate_output(0, shape, out);
    }
  }

  static void ComputeBroadcast(OpKernelContext* ctx, const T* xp, const T* yp,
                               const BCast& b, OutT* zp) {
    const internal::BroadcastLayout l = internal::MakeBroadcastLayout(b);
    if (l.out.empty()) {
      // Every dimension is 1: one element on each side.
      internal::BinaryRow<T, OutT, Functor>(xp, false, yp, false, zp, 1);
      return;
    }
    const size_t outer = l.out.size() - 1;
    const int64_t inner = l.out.back();
    const bool x_scalar = l.x_stride.back() == 0;
    const bool y_scalar = l.y_stride.back() == 0;
    int64_t rows = 1;
    for (size_t g = 0; g < outer; ++g) rows *= l.out[g];
    Shard(
        ctx, rows, inner * kCost + 10, [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r) {
            int64_t rest = r, xo = 0, yo = 0;
            for (size_t g = outer; g-- > 0;) {
              const int64_t i = rest % l.out[g];
              rest /= l.out[g];
              xo += i * l.x_stride[g];
              yo += i * l.y_stride[g];
            }
            internal::BinaryRow<T, OutT, Functor>(xp + xo, x_scalar, yp + yo,
                                                  y_scalar, zp + r * inner, inner);
          }
        });
  }
};

// out = Functor(x), element-wise; the output may reuse x's buffer.
template <typename T, typename Functor, typename OutT = T>
class UnaryOp : public OpKernel {
 public:
  explicit UnaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES_OK(ctx, ctx->status());
    Tensor* out = nullptr;
    if constexpr (std::is_same_v<T, OutT>) {
      OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &out));
    } else {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    }
    const T* xp = static_cast<const T*>(x.data());
    OutT* zp = static_cast<OutT*>(out->data());
    Shard(ctx, out->NumElements(), Functor::kCost,
          [&](int64_t b, int64_t e) {
            Functor f;
            internal::Row<OutT>(zp + b, e - b) =
                f(internal::ConstRow<T>(xp + b, e - b));
          });
  }
};

}  // namespace opkit

#endif  // OPKIT_KERNELS_CWISE_OPS_COMMON_H_

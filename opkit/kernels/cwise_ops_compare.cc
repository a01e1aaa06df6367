// Comparisons, logic and selection on CPU: Equal, NotEqual, Less, LessEqual,
// Greater, GreaterEqual, LogicalAnd, LogicalOr, Select, SelectV2.
//
// Equal / NotEqual with incompatible_shape_error=false answer a scalar
// false / true for shapes that do not broadcast, as TensorFlow does.
// Select and SelectV2 only move elements, so one kernel per element size
// serves every type of that size (and strings have their own).
#include <cstdint>
#include <functional>
#include <vector>

#include "opkit/kernel/register_types.h"
#include "opkit/kernels/cwise_ops_common.h"

namespace opkit {
namespace {

template <typename Cmp>
struct Compare {
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const {
    return x.binaryExpr(y, Cmp());
  }
};

// Equal / NotEqual: BinaryOp plus the incompatible_shape_error attr.
template <typename T, typename Cmp, bool kValueWhenIncompatible>
class EqualityOp : public BinaryOp<T, Compare<Cmp>, bool> {
 public:
  explicit EqualityOp(OpKernelConstruction* ctx) : BinaryOp<T, Compare<Cmp>, bool>(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("incompatible_shape_error",
                                     &incompatible_shape_error_));
  }

  void Compute(OpKernelContext* ctx) override {
    if (!incompatible_shape_error_) {
      const Tensor& x = ctx->input(0);
      const Tensor& y = ctx->input(1);
      OP_REQUIRES_OK(ctx, ctx->status());
      if (!BCast(x.shape(), y.shape()).valid()) {
        Tensor* out = nullptr;
        OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
        *static_cast<bool*>(out->data()) = kValueWhenIncompatible;
        return;
      }
    }
    BinaryOp<T, Compare<Cmp>, bool>::Compute(ctx);
  }

 private:
  bool incompatible_shape_error_ = true;
};

// Element storage for Select: a type with the size of the element, copied by
// value. Works for every POD element type of that size.
struct Bytes16 {
  uint64_t lo, hi;
};
template <int kSize>
struct StorageOfSize;
template <> struct StorageOfSize<1> { using type = uint8_t; };
template <> struct StorageOfSize<2> { using type = uint16_t; };
template <> struct StorageOfSize<4> { using type = uint32_t; };
template <> struct StorageOfSize<8> { using type = uint64_t; };
template <> struct StorageOfSize<16> { using type = Bytes16; };

template <typename T>
struct SelectStorageOf {
  using type = typename StorageOfSize<static_cast<int>(sizeof(T))>::type;
};
template <>
struct SelectStorageOf<tstring> {
  using type = tstring;
};
template <typename T>
using SelectStorage = typename SelectStorageOf<T>::type;

// Select(condition, t, e): `condition` a scalar (picks all of t or e), a
// vector for t/e of rank > 1 (picks whole rows), or t's shape.
template <typename S>
class SelectOp : public OpKernel {
 public:
  explicit SelectOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& t = ctx->input(1);
    const Tensor& e = ctx->input(2);
    OP_REQUIRES_OK(ctx, ctx->status());
    if (TensorShapeUtils::IsScalar(cond.shape())) {
      OP_REQUIRES(ctx, t.shape() == e.shape(),
                  errors::InvalidArgument(
                      "'then' and 'else' must have the same shape, but saw: ",
                      t.shape().DebugString(), " vs. ", e.shape().DebugString()));
      ctx->set_output(0, *static_cast<const bool*>(cond.data()) ? t : e);
      return;
    }
    const bool* c = static_cast<const bool*>(cond.data());
    const S* tp = static_cast<const S*>(t.data());
    const S* ep = static_cast<const S*>(e.data());
    if (TensorShapeUtils::IsVector(cond.shape()) && !TensorShapeUtils::IsVector(t.shape())) {
      OP_REQUIRES(ctx, TensorShapeUtils::IsVectorOrHigher(t.shape()),
                  errors::InvalidArgument("'then' must be at least a vector, but saw shape: ",
                                          t.shape().DebugString()));
      OP_REQUIRES(ctx, t.dim_size(0) == cond.NumElements(),
                  errors::InvalidArgument(
                      "Number of batches of 'then' must match size of 'cond', but saw: ",
                      t.dim_size(0), " vs. ", cond.NumElements()));
      OP_REQUIRES(ctx, t.shape() == e.shape(),
                  errors::InvalidArgument(
                      "'then' and 'else' must have the same shape, but saw: ",
                      t.shape().DebugString(), " vs. ", e.shape().DebugString()));
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, t.shape(), &out));
      S* zp = static_cast<S*>(out->data());
      const int64_t rows = t.dim_size(0);
      const int64_t row_size = rows == 0 ? 0 : t.NumElements() / rows;
      Shard(ctx, rows, row_size + 1, [&](int64_t b, int64_t end) {
        for (int64_t r = b; r < end; ++r) {
          const S* src = (c[r] ? tp : ep) + r * row_size;
          std::copy(src, src + row_size, zp + r * row_size);
        }
      });
      return;
    }
    OP_REQUIRES(ctx, cond.shape() == t.shape() && t.shape() == e.shape(),
                errors::InvalidArgument(
                    "'cond', 'then' and 'else' must have the same size.  but received: ",
                    cond.shape().DebugString(), " vs. ", t.shape().DebugString(),
                    " vs. ", e.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, t.shape(), &out));
    S* zp = static_cast<S*>(out->data());
    Shard(ctx, t.NumElements(), 2, [&](int64_t b, int64_t end) {
      for (int64_t i = b; i < end; ++i) zp[i] = c[i] ? tp[i] : ep[i];
    });
  }
};

// Each input's stride per output dimension (0 where it repeats), for a
// shape right-aligned against `out`.
std::vector<int64_t> BroadcastStrides(const TensorShape& in, const TensorShape& out) {
  const int rank = out.dims();
  std::vector<int64_t> strides(rank, 0);
  int64_t s = 1;
  for (int i = in.dims() - 1, o = rank - 1; i >= 0; --i, --o) {
    if (in.dim_size(i) != 1) strides[o] = s;
    s *= in.dim_size(i);
  }
  return strides;
}

// SelectV2(condition, t, e): numpy broadcasting of all three.
template <typename S>
class SelectV2Op : public OpKernel {
 public:
  explicit SelectV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& t = ctx->input(1);
    const Tensor& e = ctx->input(2);
    OP_REQUIRES_OK(ctx, ctx->status());
    BCast te(t.shape(), e.shape());
    OP_REQUIRES(ctx, te.valid(),
                errors::InvalidArgument("then ", t.shape().DebugString(), " and else ",
                                        e.shape().DebugString(), " must be broadcastable"));
    BCast all(cond.shape(), te.output_shape());
    OP_REQUIRES(ctx, all.valid(),
                errors::InvalidArgument("condition ", cond.shape().DebugString(),
                                        " and then/else ",
                                        te.output_shape().DebugString(),
                                        " must be broadcastable"));
    const TensorShape& shape = all.output_shape();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    const bool* c = static_cast<const bool*>(cond.data());
    const S* tp = static_cast<const S*>(t.data());
    const S* ep = static_cast<const S*>(e.data());
    S* zp = static_cast<S*>(out->data());
    if (shape.dims() == 0) {
      zp[0] = c[0] ? tp[0] : ep[0];
      return;
    }
    const std::vector<int64_t> cs = BroadcastStrides(cond.shape(), shape);
    const std::vector<int64_t> ts = BroadcastStrides(t.shape(), shape);
    const std::vector<int64_t> es = BroadcastStrides(e.shape(), shape);
    const int last = shape.dims() - 1;
    const int64_t inner = shape.dim_size(last);
    const int64_t rows = out->NumElements() / inner;
    Shard(ctx, rows, inner * 2 + 10, [&](int64_t b, int64_t end) {
      for (int64_t r = b; r < end; ++r) {
        int64_t rest = r, co = 0, to = 0, eo = 0;
        for (int d = last - 1; d >= 0; --d) {
          const int64_t i = rest % shape.dim_size(d);
          rest /= shape.dim_size(d);
          co += i * cs[d];
          to += i * ts[d];
          eo += i * es[d];
        }
        S* z = zp + r * inner;
        for (int64_t i = 0; i < inner; ++i) {
          z[i] = c[co + i * cs[last]] ? tp[to + i * ts[last]] : ep[eo + i * es[last]];
        }
      }
    });
  }
};

#define OPKIT_REGISTER_ORDERED(T)                                                     \
  REGISTER_KERNEL_BUILDER(Name("Less").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
                          BinaryOp<T, Compare<std::less<T>>, bool>);                  \
  REGISTER_KERNEL_BUILDER(Name("LessEqual").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          BinaryOp<T, Compare<std::less_equal<T>>, bool>);            \
  REGISTER_KERNEL_BUILDER(Name("Greater").Device(DEVICE_CPU).TypeConstraint<T>("T"),  \
                          BinaryOp<T, Compare<std::greater<T>>, bool>);               \
  REGISTER_KERNEL_BUILDER(                                                            \
      Name("GreaterEqual").Device(DEVICE_CPU).TypeConstraint<T>("T"),                 \
      BinaryOp<T, Compare<std::greater_equal<T>>, bool>);

#define OPKIT_REGISTER_EQUALITY(T)                                                    \
  REGISTER_KERNEL_BUILDER(Name("Equal").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
                          EqualityOp<T, std::equal_to<T>, false>);                    \
  REGISTER_KERNEL_BUILDER(Name("NotEqual").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          EqualityOp<T, std::not_equal_to<T>, true>);

#define OPKIT_REGISTER_SELECT(T)                                                      \
  REGISTER_KERNEL_BUILDER(Name("Select").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
                          SelectOp<SelectStorage<T>>);                                \
  REGISTER_KERNEL_BUILDER(Name("SelectV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          SelectV2Op<SelectStorage<T>>);

TF_CALL_float(OPKIT_REGISTER_ORDERED)
TF_CALL_double(OPKIT_REGISTER_ORDERED)
TF_CALL_half(OPKIT_REGISTER_ORDERED)
TF_CALL_bfloat16(OPKIT_REGISTER_ORDERED)
TF_CALL_int32(OPKIT_REGISTER_ORDERED)
TF_CALL_int64(OPKIT_REGISTER_ORDERED)

TF_CALL_float(OPKIT_REGISTER_EQUALITY)
TF_CALL_double(OPKIT_REGISTER_EQUALITY)
TF_CALL_half(OPKIT_REGISTER_EQUALITY)
TF_CALL_bfloat16(OPKIT_REGISTER_EQUALITY)
TF_CALL_int32(OPKIT_REGISTER_EQUALITY)
TF_CALL_int64(OPKIT_REGISTER_EQUALITY)
TF_CALL_bool(OPKIT_REGISTER_EQUALITY)
TF_CALL_tstring(OPKIT_REGISTER_EQUALITY)

TF_CALL_POD_TYPES(OPKIT_REGISTER_SELECT)
TF_CALL_tstring(OPKIT_REGISTER_SELECT)

struct LogicalAnd {
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const {
    return x.binaryExpr(y, [](bool a, bool b) { return a && b; });
  }
};
struct LogicalOr {
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const {
    return x.binaryExpr(y, [](bool a, bool b) { return a || b; });
  }
};

REGISTER_KERNEL_BUILDER(Name("LogicalAnd").Device(DEVICE_CPU), BinaryOp<bool, LogicalAnd>);
REGISTER_KERNEL_BUILDER(Name("LogicalOr").Device(DEVICE_CPU), BinaryOp<bool, LogicalOr>);

#undef OPKIT_REGISTER_SELECT
#undef OPKIT_REGISTER_EQUALITY
#undef OPKIT_REGISTER_ORDERED

}  // namespace
}  // namespace opkit

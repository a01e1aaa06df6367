// Reductions on CPU: Sum, Mean, Prod, Max, Min along the axes of a
// reduction_indices input, and ArgMax / ArgMin along one dimension.
//
// The reduced dimensions are collapsed into groups of neighbours; each group
// of reduced dimensions is then folded away in one pass over an [A, R, B]
// view (A outer elements, R reduced, B inner kept), innermost group first.
// Plain loops, so that a new element type costs little to compile.
//
// Semantics: half and bfloat16 accumulate in float; integer Sum and Prod wrap
// around on overflow; Max/Min propagate NaN; reducing an empty axis gives the
// identity (0 for Sum, 1 for Prod, -inf / lowest for Max, +inf / highest for
// Min, NaN for a floating Mean and 0 for an integer one). ArgMax/ArgMin return
// the first index of the extreme value (the first NaN if there is one).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "opkit/kernel/register_types.h"
#include "opkit/kernels/cwise_ops_common.h"

namespace opkit {
namespace {

// The type partial results are kept in.
template <typename T>
using AccumulatorOf =
    std::conditional_t<std::is_same_v<T, half> || std::is_same_v<T, bfloat16>, float, T>;

template <typename T>
bool IsNan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    return Eigen::numext::isnan(v);
  } else {
    return false;
  }
}

template <typename Acc>
struct SumReducer {
  static Acc Identity() { return Acc(0); }
  static Acc Combine(Acc a, Acc b) {
    if constexpr (internal::kIsInteger<Acc>) return internal::WrappingAdd<Acc>()(a, b);
    else return a + b;
  }
};

template <typename Acc>
struct ProdReducer {
  static Acc Identity() { return Acc(1); }
  static Acc Combine(Acc a, Acc b) {
    if constexpr (internal::kIsInteger<Acc>) return internal::WrappingMul<Acc>()(a, b);
    else return a * b;
  }
};

template <typename Acc>
struct MaxReducer {
  static Acc Identity() {
    if constexpr (std::numeric_limits<Acc>::has_infinity) {
      return -std::numeric_limits<Acc>::infinity();
    } else {
      return std::numeric_limits<Acc>::lowest();
    }
  }
  static Acc Combine(Acc a, Acc b) { return (a > b || IsNan(a)) ? a : b; }
};

template <typename Acc>
struct MinReducer {
  static Acc Identity() {
    if constexpr (std::numeric_limits<Acc>::has_infinity) {
      return std::numeric_limits<Acc>::infinity();
    } else {
      return std::numeric_limits<Acc>::max();
    }
  }
  static Acc Combine(Acc a, Acc b) { return (a < b || IsNan(a)) ? a : b; }
};

// out[a, b] = fold over r of in[a, r, b], for an [A, R, B] view of `in`.
template <typename In, typename Acc, typename Reducer>
void ReducePass(OpKernelContext* ctx, const In* in, int64_t A, int64_t R, int64_t B,
                Acc* out) {
  if (B == 1 && A == 1) {
    // A full reduction: partial results per block, then combined in order.
    constexpr int64_t kBlock = 1 << 14;
    const int64_t blocks = (R + kBlock - 1) / kBlock;
    std::vector<Acc> partial(std::max<int64_t>(blocks, 1), Reducer::Identity());
    Shard(ctx, blocks, kBlock, [&](int64_t begin, int64_t end) {
      for (int64_t k = begin; k < end; ++k) {
        Acc acc = Reducer::Identity();
        const int64_t stop = std::min(R, (k + 1) * kBlock);
        for (int64_t r = k * kBlock; r < stop; ++r) {
          acc = Reducer::Combine(acc, static_cast<Acc>(in[r]));
        }
        partial[k] = acc;
      }
    });
    Acc acc = Reducer::Identity();
    for (const Acc& p : partial) acc = Reducer::Combine(acc, p);
    out[0] = acc;
    return;
  }
  if (B == 1) {
    Shard(ctx, A, R + 1, [&](int64_t begin, int64_t end) {
      for (int64_t a = begin; a < end; ++a) {
        Acc acc = Reducer::Identity();
        const In* row = in + a * R;
        for (int64_t r = 0; r < R; ++r) acc = Reducer::Combine(acc, static_cast<Acc>(row[r]));
        out[a] = acc;
      }
    });
    return;
  }
  // Columns of B kept elements, split into chunks so that A == 1 still
  // spreads over the pool.
  constexpr int64_t kChunk = 1024;
  const int64_t chunks = (B + kChunk - 1) / kChunk;
  Shard(ctx, A * chunks, (R + 1) * std::min(B, kChunk),
        [&](int64_t begin, int64_t end) {
    for (int64_t u = begin; u < end; ++u) {
      const int64_t a = u / chunks;
      const int64_t b0 = (u % chunks) * kChunk;
      const int64_t b1 = std::min(B, b0 + kChunk);
      Acc* o = out + a * B;
      for (int64_t b = b0; b < b1; ++b) o[b] = Reducer::Identity();
      for (int64_t r = 0; r < R; ++r) {
        const In* row = in + (a * R + r) * B;
        for (int64_t b = b0; b < b1; ++b) {
          o[b] = Reducer::Combine(o[b], static_cast<Acc>(row[b]));
        }
      }
    }
  });
}

// The validated reduction: the output shape and the input as groups of
// neighbouring dimensions, alternately kept and reduced.
struct ReductionPlan {
  TensorShape out_shape;
  std::vector<int64_t> groups;
  std::vector<bool> reduced;
  int64_t reduced_count = 1;  // How many input elements fold into one output.
};

template <typename Tidx>
Status ReadAxes(const Tensor& axes, int rank, std::vector<bool>* bitmap) {
  const Tidx* p = static_cast<const Tidx*>(axes.data());
  for (int64_t i = 0; i < axes.NumElements(); ++i) {
    const int64_t axis = static_cast<int64_t>(p[i]);
    if (axis < -rank || axis >= rank) {
      return errors::InvalidArgument("Invalid reduction dimension (", axis,
                                     " for input with ", rank, " dimension(s)");
    }
    const int64_t index = axis < 0 ? axis + rank : axis;
    if ((*bitmap)[index]) {
      return errors::InvalidArgument(
          "Invalid reduction arguments: Axes contains duplicate dimension: ", index,
          "; list each axis of reduction_indices once");
    }
    (*bitmap)[index] = true;
  }
  return OkStatus();
}

Status MakeReductionPlan(const Tensor& data, const Tensor& axes, bool keep_dims,
                         ReductionPlan* plan) {
  if (axes.dims() > 1) {
    return errors::InvalidArgument(
        "reduction_indices must be a scalar or a vector, but has shape ",
        axes.shape().DebugString());
  }
  const int rank = data.dims();
  std::vector<bool> bitmap(rank, false);
  if (axes.dtype() == DT_INT32) {
    OPKIT_RETURN_IF_ERROR(ReadAxes<int32>(axes, rank, &bitmap));
  } else if (axes.dtype() == DT_INT64) {
    OPKIT_RETURN_IF_ERROR(ReadAxes<int64>(axes, rank, &bitmap));
  } else {
    return errors::InvalidArgument("reduction_indices must be int32 or int64, got ",
                                   DataTypeString(axes.dtype()));
  }
  for (int d = 0; d < rank; ++d) {
    const int64_t size = data.dim_size(d);
    if (!bitmap[d]) {
      plan->out_shape.AddDim(size);
    } else {
      if (keep_dims) plan->out_shape.AddDim(1);
      plan->reduced_count *= size;
    }
    if (size == 1) continue;  // Either way, a size-1 dimension changes nothing.
    if (!plan->groups.empty() && plan->reduced.back() == bitmap[d]) {
      plan->groups.back() *= size;
    } else {
      plan->groups.push_back(size);
      plan->reduced.push_back(bitmap[d]);
    }
  }
  return OkStatus();
}

enum class Reduction { kSum, kMean, kProd, kMax, kMin };

template <typename T, Reduction kKind>
class ReductionOp : public OpKernel {
  using Acc = AccumulatorOf<T>;
  using Reducer = std::conditional_t<
      kKind == Reduction::kProd, ProdReducer<Acc>,
      std::conditional_t<kKind == Reduction::kMax, MaxReducer<Acc>,
                         std::conditional_t<kKind == Reduction::kMin, MinReducer<Acc>,
                                            SumReducer<Acc>>>>;

 public:
  explicit ReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& axes = ctx->input(1);
    OP_REQUIRES_OK(ctx, ctx->status());
    ReductionPlan plan;
    OP_REQUIRES_OK(ctx, MakeReductionPlan(data, axes, keep_dims_, &plan));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan.out_shape, &out));
    const int64_t n_out = out->NumElements();
    if (n_out == 0) return;
    T* z = static_cast<T*>(out->data());
    const T* x = static_cast<const T*>(data.data());

    if (data.NumElements() == 0) {
      // Every output element folds an empty set.
      const T value = Finish(Reducer::Identity(), 0);
      std::fill(z, z + n_out, value);
      return;
    }
    // Fold the reduced groups away, innermost first.
    std::vector<int64_t> groups = plan.groups;
    std::vector<bool> reduced = plan.reduced;
    std::vector<Acc> cur, next;
    bool from_input = true;
    while (true) {
      int j = static_cast<int>(groups.size()) - 1;
      while (j >= 0 && !reduced[j]) --j;
      if (j < 0) break;
      int64_t A = 1, B = 1;
      for (int i = 0; i < j; ++i) A *= groups[i];
      for (size_t i = j + 1; i < groups.size(); ++i) B *= groups[i];
      next.assign(A * B, Acc());
      if (from_input) {
        ReducePass<T, Acc, Reducer>(ctx, x, A, groups[j], B, next.data());
      } else {
        ReducePass<Acc, Acc, Reducer>(ctx, cur.data(), A, groups[j], B, next.data());
      }
      from_input = false;
      cur.swap(next);
      groups.erase(groups.begin() + j);
      reduced.erase(reduced.begin() + j);
    }
    if (from_input) {
      // Nothing of size > 1 was reduced: the values pass through.
      std::copy(x, x + n_out, z);
      return;
    }
    for (int64_t i = 0; i < n_out; ++i) z[i] = Finish(cur[i], plan.reduced_count);
  }

 private:
  // The output value of an accumulated `acc` over `count` elements.
  static T Finish(Acc acc, int64_t count) {
    if constexpr (kKind == Reduction::kMean) {
      if constexpr (internal::kIsInteger<Acc>) {
        if (count == 0) return T(0);
        // count >= 1 and fits Acc (it counts existing elements of a tensor
        // whose element count fits int64; for narrower Acc the quotient by
        // a count beyond Acc's range is 0).
        if (static_cast<uint64_t>(count) > static_cast<uint64_t>(std::numeric_limits<Acc>::max())) {
          return T(0);
        }
        return static_cast<T>(acc / static_cast<Acc>(count));
      } else if constexpr (Eigen::NumTraits<Acc>::IsComplex) {
        using R = typename Acc::value_type;
        return static_cast<T>(acc / static_cast<R>(count));
      } else {
        return static_cast<T>(acc / static_cast<Acc>(count));
      }
    } else {
      return static_cast<T>(acc);
    }
  }

  bool keep_dims_ = false;
};

#define OPKIT_REGISTER_REDUCTION(name, T, kind)                            \
  REGISTER_KERNEL_BUILDER(Name(name)                                       \
                              .Device(DEVICE_CPU)                          \
                              .TypeConstraint<T>("T")                      \
                              .HostMemory("reduction_indices"),            \
                          ReductionOp<T, kind>)

#define OPKIT_REGISTER_SUMS(T)                              \
  OPKIT_REGISTER_REDUCTION("Sum", T, Reduction::kSum);      \
  OPKIT_REGISTER_REDUCTION("Mean", T, Reduction::kMean);    \
  OPKIT_REGISTER_REDUCTION("Prod", T, Reduction::kProd);

#define OPKIT_REGISTER_EXTREMES(T)                          \
  OPKIT_REGISTER_REDUCTION("Max", T, Reduction::kMax);      \
  OPKIT_REGISTER_REDUCTION("Min", T, Reduction::kMin);

TF_CALL_FLOAT_TYPES(OPKIT_REGISTER_SUMS)
TF_CALL_int32(OPKIT_REGISTER_SUMS)
TF_CALL_int64(OPKIT_REGISTER_SUMS)
TF_CALL_COMPLEX_TYPES(OPKIT_REGISTER_SUMS)
TF_CALL_FLOAT_TYPES(OPKIT_REGISTER_EXTREMES)
TF_CALL_INTEGRAL_TYPES(OPKIT_REGISTER_EXTREMES)

#undef OPKIT_REGISTER_EXTREMES
#undef OPKIT_REGISTER_SUMS
#undef OPKIT_REGISTER_REDUCTION

// ArgMax / ArgMin: the index of the largest / smallest element along one
// dimension; `dimension` is a scalar int32/int64 in [-rank, rank).
template <typename T, typename Index, bool kMax>
class ArgOp : public OpKernel {
 public:
  explicit ArgOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& dimension = ctx->input(1);
    OP_REQUIRES_OK(ctx, ctx->status());
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(dimension.shape()),
                errors::InvalidArgument("dim must be a scalar, but received tensor of shape: ",
                                        dimension.shape().DebugString()));
    int64_t dim = 0;
    if (dimension.dtype() == DT_INT32) {
      dim = *static_cast<const int32*>(dimension.data());
    } else if (dimension.dtype() == DT_INT64) {
      dim = *static_cast<const int64*>(dimension.data());
    } else {
      ctx->CtxFailure(__FILE__, __LINE__,
                      errors::InvalidArgument("dimension must be int32 or int64, got ",
                                              DataTypeString(dimension.dtype())));
      return;
    }
    const int rank = input.dims();
    const int64_t axis = dim < 0 ? dim + rank : dim;
    OP_REQUIRES(ctx, axis >= 0 && axis < rank,
                errors::InvalidArgument("Expected dimension in the range [", -rank, ", ",
                                        rank, "), but got ", dim));
    const int64_t R = input.dim_size(static_cast<int>(axis));
    OP_REQUIRES(ctx, R > 0,
                errors::InvalidArgument("Reduction axis ", dim, " is empty in shape ",
                                        input.shape().DebugString()));
    OP_REQUIRES(ctx, static_cast<uint64_t>(R) - 1 <=
                         static_cast<uint64_t>(std::numeric_limits<Index>::max()),
                errors::InvalidArgument(
                    "Reduction axis ", dim, " has ", R,
                    " elements, more than output_type ",
                    DataTypeString(DataTypeToEnum<Index>::value),
                    " can index; use output_type=int64"));
    TensorShape out_shape = input.shape();
    out_shape.RemoveDim(static_cast<int>(axis));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    int64_t A = 1, B = 1;
    for (int d = 0; d < axis; ++d) A *= input.dim_size(d);
    for (int d = static_cast<int>(axis) + 1; d < rank; ++d) B *= input.dim_size(d);
    const T* x = static_cast<const T*>(input.data());
    Index* z = static_cast<Index*>(out->data());
    Shard(ctx, A * B, R + 1, [&](int64_t begin, int64_t end) {
      for (int64_t u = begin; u < end; ++u) {
        const int64_t a = u / B, b = u % B;
        const T* p = x + a * R * B + b;
        int64_t best = 0;
        T best_value = p[0];
        if (!IsNan(best_value)) {
          for (int64_t r = 1; r < R; ++r) {
            const T v = p[r * B];
            if (IsNan(v)) {
              best = r;
              break;
            }
            if (kMax ? (v > best_value) : (v < best_value)) {
              best = r;
              best_value = v;
            }
          }
        }
        z[u] = static_cast<Index>(best);
      }
    });
  }
};

#define OPKIT_REGISTER_ARG(T)                                                       \
  REGISTER_KERNEL_BUILDER(Name("ArgMax")                                            \
                              .Device(DEVICE_CPU)                                   \
                              .TypeConstraint<T>("T")                               \
                              .TypeConstraint<int32>("output_type")                 \
                              .HostMemory("dimension"),                             \
                          ArgOp<T, int32, true>);                                   \
  REGISTER_KERNEL_BUILDER(Name("ArgMax")                                            \
                              .Device(DEVICE_CPU)                                   \
                              .TypeConstraint<T>("T")                               \
                              .TypeConstraint<int64>("output_type")                 \
                              .HostMemory("dimension"),                             \
                          ArgOp<T, int64, true>);                                   \
  REGISTER_KERNEL_BUILDER(Name("ArgMin")                                            \
                              .Device(DEVICE_CPU)                                   \
                              .TypeConstraint<T>("T")                               \
                              .TypeConstraint<int32>("output_type")                 \
                              .HostMemory("dimension"),                             \
                          ArgOp<T, int32, false>);                                  \
  REGISTER_KERNEL_BUILDER(Name("ArgMin")                                            \
                              .Device(DEVICE_CPU)                                   \
                              .TypeConstraint<T>("T")                               \
                              .TypeConstraint<int64>("output_type")                 \
                              .HostMemory("dimension"),                             \
                          ArgOp<T, int64, false>);

TF_CALL_FLOAT_TYPES(OPKIT_REGISTER_ARG)
TF_CALL_INTEGRAL_TYPES(OPKIT_REGISTER_ARG)
TF_CALL_bool(OPKIT_REGISTER_ARG)

#undef OPKIT_REGISTER_ARG

}  // namespace
}  // namespace opkit

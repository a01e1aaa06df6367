// TopKV2 on CPU: the k largest entries of each row of the last dimension,
// and their int32 positions in the row.
//
//   TopKV2([[1, 3, 2, 3]], k=2) -> values [[3, 3]], indices [[1, 3]]
//
// Equal values come lower index first, as TensorFlow orders them; NaN ranks
// above every number (so the order is total and the sort well defined).
// Results are always sorted by value, which satisfies sorted=false too (its
// order is unspecified). Each row is an O(n log k) partial sort of
// positions; rows are spread across the intra-op pool.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernel/register_types.h"
#include "opkit/kernels/kernel_shard.h"

namespace opkit {
namespace {

// Whether a ranks before b: larger first, NaN largest, then lower position.
// `Key` is T for the built-in arithmetic types and float for half/bfloat16.
template <typename Key>
struct Before {
  const Key* keys;
  bool operator()(int32 a, int32 b) const {
    const Key x = keys[a];
    const Key y = keys[b];
    if constexpr (std::is_floating_point_v<Key>) {
      const bool xn = std::isnan(x);
      const bool yn = std::isnan(y);
      if (xn || yn) return xn && (!yn || a < b);
    }
    if (x != y) return x > y;
    return a < b;
  }
};

template <typename T>
class TopKOp : public OpKernel {
 public:
  explicit TopKOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    // Results always come sorted, which sorted=false allows too.
    bool sorted = true;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("sorted", &sorted));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& k_t = ctx->input(1);
    OP_REQUIRES_OK(ctx, ctx->status());
    OP_REQUIRES(ctx, k_t.dims() == 0,
                errors::InvalidArgument("k must be scalar, got shape ",
                                        k_t.shape().DebugString()));
    const int64_t k = k_t.scalar<int32>()();
    OP_REQUIRES(ctx, k >= 0, errors::InvalidArgument("Need k >= 0, got ", k));
    OP_REQUIRES(ctx, input.dims() >= 1,
                errors::InvalidArgument("input must be >= 1-D, got shape ",
                                        input.shape().DebugString()));
    const int64_t cols = input.dim_size(input.dims() - 1);
    OP_REQUIRES(ctx, cols >= k,
                errors::InvalidArgument("input must have at least k columns. Had ", cols,
                                        ", needed ", k));
    // Positions are int32 outputs.
    OP_REQUIRES(ctx, cols <= std::numeric_limits<int32>::max(),
                errors::InvalidArgument("input's last dimension (", cols,
                                        ") is too large for int32 indices"));
    TensorShape out_shape = input.shape();
    out_shape.set_dim(input.dims() - 1, k);
    Tensor* values = nullptr;
    Tensor* indices = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &values));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, out_shape, &indices));
    if (k == 0 || values->NumElements() == 0) return;

    const int64_t rows = input.NumElements() / cols;
    const T* in = static_cast<const T*>(input.data());
    T* out_values = static_cast<T*>(values->data());
    int32* out_indices = static_cast<int32*>(indices->data());
    // half and bfloat16 compare as float.
    using Key = std::conditional_t<std::is_arithmetic_v<T>, T, float>;
    const double cost = static_cast<double>(cols) * (std::log2(static_cast<double>(k)) + 2);
    Shard(ctx, rows, cost, [&](int64_t begin, int64_t end) {
      std::vector<int32> order(cols);
      std::vector<Key> keys(cols);
      for (int64_t r = begin; r < end; ++r) {
        const T* row = in + r * cols;
        for (int64_t c = 0; c < cols; ++c) keys[c] = static_cast<Key>(row[c]);
        std::iota(order.begin(), order.end(), 0);
        const Before<Key> before{keys.data()};
        if (k == 1) {
          order[0] = *std::min_element(order.begin(), order.end(), before);
        } else {
          std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
        }
        for (int64_t j = 0; j < k; ++j) {
          out_indices[r * k + j] = order[j];
          out_values[r * k + j] = row[order[j]];
        }
      }
    });
  }
};

#define OPKIT_REGISTER_TOPK(T)                                                    \
  REGISTER_KERNEL_BUILDER(                                                        \
      Name("TopKV2").Device(DEVICE_CPU).TypeConstraint<T>("T").HostMemory("k"),   \
      TopKOp<T>);
TF_CALL_REAL_NUMBER_TYPES(OPKIT_REGISTER_TOPK)
#undef OPKIT_REGISTER_TOPK

}  // namespace
}  // namespace opkit

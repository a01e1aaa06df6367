// UnsortedSegmentSum, UnsortedSegmentProd, UnsortedSegmentMax and
// UnsortedSegmentMin on CPU.
//
//   data = [[1, 2], [3, 4], [5, 6]], segment_ids = [1, -1, 1], num_segments = 3
//   UnsortedSegmentSum -> [[0, 0], [6, 8], [0, 0]]
//
// segment_ids' shape is a prefix of data's; each element of segment_ids
// names the output row its slice of data folds into. As in TensorFlow,
// negative ids drop their slice, and rows no id names hold the fold's
// identity (0 for Sum, 1 for Prod, the lowest value for Max, the highest for
// Min). An id >= num_segments is InvalidArgument naming it (checked before
// anything is written). Integer Sum and Prod wrap on overflow; Max and Min
// of floating-point types propagate NaN.
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernel/register_types.h"
#include "opkit/kernels/array_kernel_util.h"
#include "opkit/kernels/cwise_ops_common.h"
#include "opkit/kernels/kernel_shard.h"

namespace opkit {
namespace {

template <typename T>
struct SumFold {
  static T Identity() { return T(0); }
  static void Fold(T* acc, const T& v) {
    if constexpr (internal::kIsInteger<T>) {
      *acc = internal::WrappingAdd<T>()(*acc, v);
    } else {
      *acc = *acc + v;
    }
  }
};

template <typename T>
struct ProdFold {
  static T Identity() { return T(1); }
  static void Fold(T* acc, const T& v) {
    if constexpr (internal::kIsInteger<T>) {
      *acc = internal::WrappingMul<T>()(*acc, v);
    } else {
      *acc = *acc * v;
    }
  }
};

// For Max and Min a NaN (x != x) wins once seen; integers are never NaN.
template <typename T>
struct MaxFold {
  static T Identity() { return std::numeric_limits<T>::lowest(); }
  static void Fold(T* acc, const T& v) {
    if (*acc != *acc) return;
    if (v != v || v > *acc) *acc = v;
  }
};

template <typename T>
struct MinFold {
  static T Identity() { return std::numeric_limits<T>::max(); }
  static void Fold(T* acc, const T& v) {
    if (*acc != *acc) return;
    if (v != v || v < *acc) *acc = v;
  }
};

// "[i,j]": the index of flat element `flat` of a tensor of `shape`.
std::string IndexString(const TensorShape& shape, int64_t flat) {
  std::vector<int64_t> index(shape.dims());
  for (int d = shape.dims() - 1; d >= 0; --d) {
    const int64_t size = shape.dim_size(d);
    index[d] = flat % size;
    flat /= size;
  }
  std::string s = "[";
  for (size_t d = 0; d < index.size(); ++d) {
    if (d > 0) s += ",";
    s += std::to_string(index[d]);
  }
  return s + "]";
}

template <typename T, template <typename> class FoldT>
class UnsortedSegmentOp : public OpKernel {
  using Fold = FoldT<T>;

 public:
  explicit UnsortedSegmentOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& ids_t = ctx->input(1);
    const Tensor& num_t = ctx->input(2);
    OP_REQUIRES_OK(ctx, ctx->status());
    OP_REQUIRES(ctx, num_t.dims() == 0,
                errors::InvalidArgument("num_segments should be a scalar, not shape ",
                                        num_t.shape().DebugString()));
    int64_t num_segments = 0;
    OP_REQUIRES_OK(ctx, internal::ReadIndexScalar(num_t, "num_segments",
                                                  /*allow_one_element=*/false,
                                                  &num_segments));
    OP_REQUIRES(ctx, num_segments >= 0,
                errors::InvalidArgument("Input num_segments == ", num_segments,
                                        " must not be negative."));
    bool prefix = ids_t.dims() <= data.dims();
    for (int d = 0; prefix && d < ids_t.dims(); ++d) {
      prefix = ids_t.dim_size(d) == data.dim_size(d);
    }
    OP_REQUIRES(ctx, prefix,
                errors::InvalidArgument("data.shape = ", data.shape().DebugString(),
                                        " does not start with segment_ids.shape = ",
                                        ids_t.shape().DebugString(),
                                        "; segment_ids needs one id per slice of data"));
    std::vector<int64_t> out_dims{num_segments};
    int64_t inner = 1;
    for (int d = ids_t.dims(); d < data.dims(); ++d) {
      out_dims.push_back(data.dim_size(d));
      inner *= data.dim_size(d);
    }
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(out_dims, &out_shape));
    std::vector<int64_t> ids;
    OP_REQUIRES_OK(ctx, internal::ReadIndexValues(ids_t, "segment_ids", &ids));
    for (size_t i = 0; i < ids.size(); ++i) {
      OP_REQUIRES(ctx, ids[i] < num_segments,
                  errors::InvalidArgument(
                      "segment_ids", IndexString(ids_t.shape(), static_cast<int64_t>(i)),
                      " = ", ids[i], " is out of range [0, ", num_segments,
                      "); ids must be below num_segments (negative ids are skipped)"));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    T* z = static_cast<T*>(out->data());
    const int64_t n_out = out->NumElements();
    const T identity = Fold::Identity();
    for (int64_t i = 0; i < n_out; ++i) z[i] = identity;
    if (inner == 0 || ids.empty()) return;
    const T* x = static_cast<const T*>(data.data());
    const int64_t rows = static_cast<int64_t>(ids.size());
    // Threads take disjoint column ranges of every row, so no two write one
    // output element and the fold order per element is the row order.
    Shard(ctx, inner, rows * 2, [&](int64_t begin, int64_t end) {
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t j = ids[r];
        if (j < 0) continue;
        const T* src = x + r * inner;
        T* dst = z + j * inner;
        for (int64_t c = begin; c < end; ++c) Fold::Fold(&dst[c], src[c]);
      }
    });
  }
};

#define OPKIT_REGISTER_SEGMENT(name, T, fold)                  \
  REGISTER_KERNEL_BUILDER(Name(name)                           \
                              .Device(DEVICE_CPU)              \
                              .TypeConstraint<T>("T")          \
                              .HostMemory("num_segments"),     \
                          UnsortedSegmentOp<T, fold>)

#define OPKIT_REGISTER_SUM_PROD(T)                              \
  OPKIT_REGISTER_SEGMENT("UnsortedSegmentSum", T, SumFold);     \
  OPKIT_REGISTER_SEGMENT("UnsortedSegmentProd", T, ProdFold);
#define OPKIT_REGISTER_MAX_MIN(T)                               \
  OPKIT_REGISTER_SEGMENT("UnsortedSegmentMax", T, MaxFold);     \
  OPKIT_REGISTER_SEGMENT("UnsortedSegmentMin", T, MinFold);

TF_CALL_NUMBER_TYPES(OPKIT_REGISTER_SUM_PROD)
TF_CALL_REAL_NUMBER_TYPES(OPKIT_REGISTER_MAX_MIN)

#undef OPKIT_REGISTER_MAX_MIN
#undef OPKIT_REGISTER_SUM_PROD
#undef OPKIT_REGISTER_SEGMENT

}  // namespace
}  // namespace opkit

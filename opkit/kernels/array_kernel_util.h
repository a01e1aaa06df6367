// Helpers shared by the array kernels (Transpose, Slice, Tile, Pad, Concat,
// Gather, ...): element copies that do not depend on the element type, the
// list of types those kernels are registered for, and readers for the
// int32/int64 index tensors they take.
//
// The array kernels move elements without looking at them, so they are
// written once per element *size* (1, 2, 4, 8, 16 bytes, plus std::string
// for DT_STRING) instead of once per dtype; that keeps their compile time
// small while covering every type TensorFlow registers.
//
//   // out[i, j] = in[j, i] for a [rows, cols] input:
//   const int64_t dims[] = {cols, rows};
//   const int64_t src_strides[] = {1, cols};
//   const int64_t dst_strides[] = {rows, 1};
//   internal::StridedCopy(in.dtype(), in.data(), src_strides, out->data(),
//                         dst_strides, dims, 2);
//
// Nothing here validates user input: callers check shapes and indices first
// and only pass boxes that lie inside both buffers.
#ifndef OPKIT_KERNELS_ARRAY_KERNEL_UTIL_H_
#define OPKIT_KERNELS_ARRAY_KERNEL_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/core/status.h"
#include "opkit/device/device.h"
#include "opkit/kernel/op_kernel_context.h"
#include "opkit/kernels/kernel_shard.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/tensor/types.h"

namespace opkit {
namespace internal {

// Every dtype the type-generic array kernels accept for their data input:
// TensorFlow's TF_CALL_ALL_TYPES plus the quantized types.
inline const std::vector<DataType>& ArrayKernelTypes() {
  static const std::vector<DataType>* const kTypes = new std::vector<DataType>{
      DT_FLOAT,  DT_DOUBLE,    DT_HALF,       DT_BFLOAT16, DT_INT8,
      DT_INT16,  DT_INT32,     DT_INT64,      DT_UINT8,    DT_UINT16,
      DT_UINT32, DT_UINT64,    DT_COMPLEX64,  DT_COMPLEX128, DT_BOOL,
      DT_STRING, DT_QINT8,     DT_QUINT8,     DT_QINT16,   DT_QUINT16,
      DT_QINT32};
  return *kTypes;
}

// How one storage kind copies elements. Elements are addressed as bytes so
// that moving, say, float data never reads it through another type.
template <int kBytes>
struct PodElements {
  static constexpr int64_t kSize = kBytes;
  static void Copy(char* dst, const char* src) { std::memcpy(dst, src, kBytes); }
  static void CopyRun(char* dst, const char* src, int64_t n) {
    std::memcpy(dst, src, static_cast<size_t>(n) * kBytes);
  }
};

struct StringElements {
  static constexpr int64_t kSize = sizeof(std::string);
  static void Copy(char* dst, const char* src) {
    *reinterpret_cast<std::string*>(dst) =
        *reinterpret_cast<const std::string*>(src);
  }
  static void CopyRun(char* dst, const char* src, int64_t n) {
    const auto* s = reinterpret_cast<const std::string*>(src);
    std::copy(s, s + n, reinterpret_cast<std::string*>(dst));
  }
};

// Calls f(Elements{}) with the storage kind of `dtype`. Returns false (not
// calling f) for a dtype without element storage (resource, variant, ...).
template <typename F>
bool VisitElements(DataType dtype, F&& f) {
  if (dtype == DT_STRING) {
    f(StringElements{});
    return true;
  }
  if (!DataTypeCanUseMemcpy(dtype)) return false;
  switch (DataTypeSize(dtype)) {
    case 1: f(PodElements<1>{}); return true;
    case 2: f(PodElements<2>{}); return true;
    case 4: f(PodElements<4>{}); return true;
    case 8: f(PodElements<8>{}); return true;
    case 16: f(PodElements<16>{}); return true;
    default: return false;
  }
}

// One dimension of a copy box: its size and the distance (in elements)
// between consecutive indices in the source and destination.
struct CopyDim {
  int64_t size;
  int64_t src_stride;
  int64_t dst_stride;
};

// Drops size-1 dimensions and merges neighbours that are contiguous in both
// buffers, so that the innermost loop runs as long as possible.
inline std::vector<CopyDim> CoalesceCopyDims(const int64_t* dims,
                                             const int64_t* src_strides,
                                             const int64_t* dst_strides,
                                             int rank) {
  std::vector<CopyDim> out;
  out.reserve(rank);
  for (int i = 0; i < rank; ++i) {
    if (dims[i] == 1) continue;
    CopyDim d{dims[i], src_strides[i], dst_strides[i]};
    if (!out.empty()) {
      CopyDim& prev = out.back();
      if (prev.src_stride == d.src_stride * d.size &&
          prev.dst_stride == d.dst_stride * d.size) {
        prev.size *= d.size;
        prev.src_stride = d.src_stride;
        prev.dst_stride = d.dst_stride;
        continue;
      }
    }
    out.push_back(d);
  }
  return out;
}

template <typename Elements>
void StridedCopyImpl(const char* src, char* dst, const std::vector<CopyDim>& dims) {
  constexpr int64_t kSize = Elements::kSize;
  if (dims.empty()) {
    Elements::Copy(dst, src);
    return;
  }
  const int outer_rank = static_cast<int>(dims.size()) - 1;
  const CopyDim inner = dims.back();
  std::vector<int64_t> index(outer_rank, 0);
  int64_t src_off = 0;
  int64_t dst_off = 0;
  while (true) {
    if (inner.src_stride == 1 && inner.dst_stride == 1) {
      Elements::CopyRun(dst + dst_off * kSize, src + src_off * kSize, inner.size);
    } else {
      int64_t s = src_off;
      int64_t d = dst_off;
      for (int64_t j = 0; j < inner.size; ++j) {
        Elements::Copy(dst + d * kSize, src + s * kSize);
        s += inner.src_stride;
        d += inner.dst_stride;
      }
    }
    int k = outer_rank - 1;
    for (; k >= 0; --k) {
      src_off += dims[k].src_stride;
      dst_off += dims[k].dst_stride;
      if (++index[k] < dims[k].size) break;
      src_off -= dims[k].src_stride * dims[k].size;
      dst_off -= dims[k].dst_stride * dims[k].size;
      index[k] = 0;
    }
    if (k < 0) return;
  }
}

// Copies the box `dims[0..rank)`: the element at index (i0, ..., i{r-1})
// goes from src + sum(i_k * src_strides[k]) to dst + sum(i_k *
// dst_strides[k]) (strides in elements; source strides may be zero or
// negative, destination strides must not alias two box elements). `src` and
// `dst` point at the box's first element. Requires every addressed element
// to lie inside its buffer and `dtype` to have element storage (see
// VisitElements); an empty box copies nothing. A large box is split along
// its outermost dimension across the intra-op pool of `ctx`'s device (Shard
// in kernel_shard.h); without `ctx`, it is copied inline.
inline void StridedCopy(DataType dtype, const void* src, const int64_t* src_strides,
                        void* dst, const int64_t* dst_strides, const int64_t* dims,
                        int rank, OpKernelContext* ctx = nullptr) {
  for (int i = 0; i < rank; ++i) {
    if (dims[i] == 0) return;
  }
  const std::vector<CopyDim> box = CoalesceCopyDims(dims, src_strides, dst_strides, rank);
  const char* s = static_cast<const char*>(src);
  char* d = static_cast<char*>(dst);
  VisitElements(dtype, [&](auto elements) {
    using E = decltype(elements);
    if (box.empty()) {
      StridedCopyImpl<E>(s, d, box);
      return;
    }
    int64_t per_outer = 1;
    for (size_t k = 1; k < box.size(); ++k) per_outer *= box[k].size;
    // Cost in bytes moved per outer index; Shard runs small copies inline.
    Shard(ctx, box[0].size, per_outer * E::kSize,
          [&](int64_t begin, int64_t end) {
            std::vector<CopyDim> part = box;
            part[0].size = end - begin;
            StridedCopyImpl<E>(s + begin * box[0].src_stride * E::kSize,
                               d + begin * box[0].dst_stride * E::kSize, part);
          });
  });
}

// Row-major strides (in elements) of `shape`.
inline std::vector<int64_t> RowMajorStrides(const TensorShape& shape) {
  std::vector<int64_t> strides(shape.dims(), 1);
  for (int i = shape.dims() - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * shape.dim_size(i + 1);
  }
  return strides;
}

// Address of element `index` of a tensor's flat storage (no bounds check).
inline const char* ElementAddress(const Tensor& t, int64_t index) {
  const int64_t size = t.dtype() == DT_STRING ? static_cast<int64_t>(sizeof(std::string))
                                              : DataTypeSize(t.dtype());
  return static_cast<const char*>(t.data()) + index * size;
}
inline char* MutableElementAddress(Tensor* t, int64_t index) {
  const int64_t size = t->dtype() == DT_STRING ? static_cast<int64_t>(sizeof(std::string))
                                               : DataTypeSize(t->dtype());
  return static_cast<char*>(t->data()) + index * size;
}

// Copies `n` contiguous elements from src[src_index...] to dst[dst_index...].
// Both tensors have the same dtype; the caller checks the ranges.
inline void CopyElements(const Tensor& src, int64_t src_index, Tensor* dst,
                         int64_t dst_index, int64_t n) {
  if (n <= 0) return;
  const char* s = ElementAddress(src, src_index);
  char* d = MutableElementAddress(dst, dst_index);
  VisitElements(src.dtype(), [&](auto elements) {
    decltype(elements)::CopyRun(d, s, n);
  });
}

// Sets the `n` elements of `dst` from dst_index on to the single element
// `value[value_index]` (same dtype).
inline void FillElements(const Tensor& value, int64_t value_index, Tensor* dst,
                         int64_t dst_index, int64_t n) {
  if (n <= 0) return;
  const char* v = ElementAddress(value, value_index);
  char* d = MutableElementAddress(dst, dst_index);
  VisitElements(value.dtype(), [&](auto elements) {
    using E = decltype(elements);
    for (int64_t i = 0; i < n; ++i) E::Copy(d + i * E::kSize, v);
  });
}

// Sets every element of `t` to zero (false, 0, 0.0, "" for strings).
inline void SetZero(Tensor* t) {
  if (t->NumElements() == 0) return;
  if (t->dtype() == DT_STRING) {
    auto flat = t->unaligned_flat<tstring>();
    for (int64_t i = 0; i < flat.size(); ++i) flat(i).clear();
    return;
  }
  std::memset(t->data(), 0, t->TotalBytes());
}

// Whether `dtype` is int32 or int64, the dtypes of index inputs.
inline bool IsIndexType(DataType dtype) {
  return dtype == DT_INT32 || dtype == DT_INT64;
}

// The elements of an int32 or int64 tensor as int64 values, in flat order.
// InvalidArgument naming `what` for any other dtype.
inline Status ReadIndexValues(const Tensor& t, const char* what,
                              std::vector<int64_t>* out) {
  out->clear();
  if (t.dtype() == DT_INT32) {
    auto flat = t.unaligned_flat<int32>();
    out->assign(flat.data(), flat.data() + flat.size());
  } else if (t.dtype() == DT_INT64) {
    auto flat = t.unaligned_flat<int64>();
    out->assign(flat.data(), flat.data() + flat.size());
  } else {
    return errors::InvalidArgument(what, " must be int32 or int64, got ",
                                   DataTypeString(t.dtype()));
  }
  return Status::OK();
}

// The value of a tensor holding exactly one int32/int64 element (a scalar or
// a 1-element tensor only if `allow_one_element`).
inline Status ReadIndexScalar(const Tensor& t, const char* what,
                              bool allow_one_element, int64_t* value) {
  const bool ok_shape = t.dims() == 0 || (allow_one_element && t.NumElements() == 1);
  if (!ok_shape) {
    return errors::InvalidArgument(what, " must be a scalar, but got shape ",
                                   t.shape().DebugString());
  }
  std::vector<int64_t> v;
  OPKIT_RETURN_IF_ERROR(ReadIndexValues(t, what, &v));
  *value = v[0];
  return Status::OK();
}

// Maps `axis` in [-rank, rank) to [0, rank); InvalidArgument naming `what`
// (e.g. "axis") otherwise.
inline Status CanonicalAxis(int64_t axis, int64_t rank, const char* what,
                            int64_t* out) {
  if (axis < -rank || axis >= rank) {
    return errors::InvalidArgument("Expected ", what, " in the range [", -rank,
                                   ", ", rank, "), but got ", axis);
  }
  *out = axis < 0 ? axis + rank : axis;
  return Status::OK();
}

// a * b into *out; false on overflow or a negative operand.
inline bool MultiplyWithoutOverflow(int64_t a, int64_t b, int64_t* out) {
  if (a < 0 || b < 0) return false;
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a) return false;
  *out = a * b;
  return true;
}

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_KERNELS_ARRAY_KERNEL_UTIL_H_

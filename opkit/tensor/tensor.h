// Tensor: a dtype, a TensorShape and a reference-counted buffer of elements
// aligned to 64 bytes. Copies are cheap and share the buffer; element access
// is through Eigen TensorMaps, exactly as in TensorFlow.
//
//   Tensor t;
//   OPKIT_RETURN_IF_ERROR(Tensor::Allocate(DT_FLOAT, TensorShape({2, 3}), &t));
//   auto m = t.matrix<float>();      // Eigen::TensorMap, rank 2, row-major
//   m(1, 2) = 5.0f;
//   auto flat = t.flat<float>();     // the same memory as a vector
//   flat.setZero();
//   t.DebugString();                 // "Tensor<type: float shape: [2,3] values: [0 0 0]...>"
//
// Building from untrusted data goes through Status-returning calls
// (Allocate, BuildFromProto); the map accessors (flat, matrix, tensor, ...)
// treat a wrong element type or rank as a bug in the calling kernel and stop
// the process with a message naming both types, as TensorFlow does. Code
// that cannot be sure beforehand checks with CheckTypeAndRank<T>(rank).
//
// Thread-compatible. Copies of a Tensor may be used from different threads;
// writes to shared elements need outside synchronisation.
#ifndef OPKIT_TENSOR_TENSOR_H_
#define OPKIT_TENSOR_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/tensor/allocator.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/tensor/types.h"
#include "opkit/tensor/variant.h"
#include "opkit/tensor.pb.h"
#include "opkit/core/eigen.h"

namespace opkit {

// The Eigen map types of tensor elements, as TensorFlow's TTypes: row-major,
// Eigen::DenseIndex (int64) indices, aligned unless named Unaligned*.
//   TTypes<float>::Flat, TTypes<float>::ConstMatrix, TTypes<int32, 3>::Tensor
template <typename T, int NDIMS = 1, typename IndexType = Eigen::DenseIndex>
struct TTypes {
  using Tensor = Eigen::TensorMap<Eigen::Tensor<T, NDIMS, Eigen::RowMajor, IndexType>,
                                  Eigen::Aligned>;
  using ConstTensor =
      Eigen::TensorMap<Eigen::Tensor<const T, NDIMS, Eigen::RowMajor, IndexType>,
                       Eigen::Aligned>;
  using UnalignedTensor =
      Eigen::TensorMap<Eigen::Tensor<T, NDIMS, Eigen::RowMajor, IndexType>>;
  using UnalignedConstTensor =
      Eigen::TensorMap<Eigen::Tensor<const T, NDIMS, Eigen::RowMajor, IndexType>>;
  using Tensor32Bit =
      Eigen::TensorMap<Eigen::Tensor<T, NDIMS, Eigen::RowMajor, int>, Eigen::Aligned>;

  using Scalar = Eigen::TensorMap<
      Eigen::TensorFixedSize<T, Eigen::Sizes<>, Eigen::RowMajor, IndexType>,
      Eigen::Aligned>;
  using ConstScalar = Eigen::TensorMap<
      Eigen::TensorFixedSize<const T, Eigen::Sizes<>, Eigen::RowMajor, IndexType>,
      Eigen::Aligned>;
  using UnalignedScalar = Eigen::TensorMap<
      Eigen::TensorFixedSize<T, Eigen::Sizes<>, Eigen::RowMajor, IndexType>>;
  using UnalignedConstScalar = Eigen::TensorMap<
      Eigen::TensorFixedSize<const T, Eigen::Sizes<>, Eigen::RowMajor, IndexType>>;

  using Flat = Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, IndexType>,
                                Eigen::Aligned>;
  using ConstFlat =
      Eigen::TensorMap<Eigen::Tensor<const T, 1, Eigen::RowMajor, IndexType>,
                       Eigen::Aligned>;
  using UnalignedFlat =
      Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, IndexType>>;
  using UnalignedConstFlat =
      Eigen::TensorMap<Eigen::Tensor<const T, 1, Eigen::RowMajor, IndexType>>;
  using Vec = Flat;
  using ConstVec = ConstFlat;
  using UnalignedVec = UnalignedFlat;
  using UnalignedConstVec = UnalignedConstFlat;

  using Matrix = Eigen::TensorMap<Eigen::Tensor<T, 2, Eigen::RowMajor, IndexType>,
                                  Eigen::Aligned>;
  using ConstMatrix =
      Eigen::TensorMap<Eigen::Tensor<const T, 2, Eigen::RowMajor, IndexType>,
                       Eigen::Aligned>;
  using UnalignedMatrix =
      Eigen::TensorMap<Eigen::Tensor<T, 2, Eigen::RowMajor, IndexType>>;
  using UnalignedConstMatrix =
      Eigen::TensorMap<Eigen::Tensor<const T, 2, Eigen::RowMajor, IndexType>>;
};

namespace internal {
// The shared storage behind one or more Tensors (see tensor.cc). Owns the
// allocation and, for DT_STRING, the std::string objects in it.
class TensorBuffer;
}  // namespace internal

class OPKIT_EXPORT Tensor {
 public:
  // A DT_FLOAT scalar without storage: IsInitialized() is false.
  Tensor();
  // A `type` scalar without storage (IsInitialized() is false).
  explicit Tensor(DataType type);
  // Allocates from cpu_allocator() / `a`. These cannot report errors: if the
  // dtype has no storage (DT_INVALID, refs, resource, variant) or the memory
  // cannot be had, an error is logged and the tensor has this dtype and
  // shape but no storage (IsInitialized() is false). Prefer Allocate.
  Tensor(DataType type, const TensorShape& shape);
  Tensor(Allocator* a, DataType type, const TensorShape& shape);

  // Scalars holding `value` (one element, shape []); on allocation failure
  // they are left without storage, like the constructors above.
  explicit Tensor(float value);
  explicit Tensor(double value);
  explicit Tensor(int32 value);
  explicit Tensor(uint32 value);
  explicit Tensor(uint16 value);
  explicit Tensor(uint8 value);
  explicit Tensor(int16 value);
  explicit Tensor(int8 value);
  explicit Tensor(tstring value);
  explicit Tensor(const char* value);
  explicit Tensor(complex64 value);
  explicit Tensor(complex128 value);
  explicit Tensor(int64 value);
  explicit Tensor(uint64 value);
  explicit Tensor(bool value);
  explicit Tensor(half value);
  explicit Tensor(bfloat16 value);

  // Allocates a tensor of `type` and `shape` from `a` (cpu_allocator() when
  // null). DT_STRING elements are empty strings; other elements are
  // uninitialised. InvalidArgument for a dtype without storage (DT_INVALID,
  // a ref type, resource, variant); ResourceExhausted when the byte size
  // overflows or the allocator returns nullptr. `*out` is unchanged on error.
  static Status Allocate(DataType type, const TensorShape& shape, Tensor* out,
                         Allocator* a = nullptr);

  // Cheap: the copy shares the buffer.
  Tensor(const Tensor& other) = default;
  Tensor& operator=(const Tensor& other) = default;
  // Leaves `other` a DT_FLOAT scalar without storage.
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(Tensor&& other) noexcept;
  ~Tensor();

  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int dims() const { return shape_.dims(); }
  // Requires 0 <= d < dims().
  int64_t dim_size(int d) const { return shape_.dim_size(d); }
  int64_t NumElements() const { return shape_.num_elements(); }

  // Bytes of the element array: NumElements() * DataTypeSize(dtype()); for
  // DT_STRING, NumElements() * sizeof(tstring) (the string objects, not
  // their heap contents).
  size_t TotalBytes() const;
  // Bytes the buffer holds (for a slice, the whole shared buffer).
  size_t AllocatedBytes() const;

  // Whether the elements exist: storage is allocated, or there are none.
  bool IsInitialized() const;
  // Whether data() is aligned to EIGEN_MAX_ALIGN_BYTES (always true for an
  // allocated tensor; a Slice may not be).
  bool IsAligned() const;
  bool IsSameSize(const Tensor& other) const { return shape_ == other.shape_; }
  // Whether both tensors have storage and it is the same buffer.
  bool SharesBufferWith(const Tensor& other) const;
  // Whether this is the only Tensor using its buffer (false without one).
  bool RefCountIsOne() const;

  // Makes this tensor share `other`'s buffer with shape `shape`; returns
  // false (changing nothing) if the element counts differ. No copy is made.
  [[nodiscard]] bool CopyFrom(const Tensor& other, const TensorShape& shape);
  // Shares `other`'s buffer reinterpreted as `dtype` with `shape`. Both types
  // must be memcpy-able and the byte sizes equal; InvalidArgument otherwise.
  Status BitcastFrom(const Tensor& other, DataType dtype,
                     const TensorShape& shape);

  // Rows [dim0_start, dim0_limit) of dimension 0, sharing the buffer. The
  // result may not be aligned (use unaligned_flat and friends on it).
  // Requires dims() >= 1 and 0 <= start <= limit <= dim_size(0) (checked);
  // SliceWithStatus reports a bad range as InvalidArgument instead.
  Tensor Slice(int64_t dim0_start, int64_t dim0_limit) const;
  Status SliceWithStatus(int64_t dim0_start, int64_t dim0_limit,
                         Tensor* out) const;
  // Row `index` of dimension 0 with that dimension removed, sharing the
  // buffer. Requires dims() >= 1 and 0 <= index < dim_size(0) (checked).
  Tensor SubSlice(int64_t index) const;

  // The raw bytes of the elements (TotalBytes() long). Requires a
  // memcpy-able dtype (checked): string elements are objects, not bytes.
  std::string_view tensor_data() const;
  // The first element, or nullptr without storage.
  void* data() const { return data_; }

  // Non-aborting checks for the accessors below: OK when dtype() is
  // `expected` (InvalidArgument "float expected, got int32" otherwise), the
  // rank is `rank` (any rank when rank < 0), and the elements exist
  // (FailedPrecondition otherwise).
  Status CheckTypeAndRank(DataType expected, int rank = -1) const;
  template <typename T>
  Status CheckTypeAndRank(int rank = -1) const {
    return CheckTypeAndRank(DataTypeToEnum<T>::value, rank);
  }

  // Eigen views of the elements. T must be the C++ type of dtype(); the
  // rank must match (vec: 1, matrix: 2, tensor<T, N>: N); scalar() needs
  // exactly one element; the aligned views need IsAligned(). Any mismatch
  // stops the process naming both types / ranks (a bug in the kernel).
  template <typename T>
  typename TTypes<T>::Vec vec() {
    return tensor<T, 1>();
  }
  template <typename T>
  typename TTypes<T>::Matrix matrix() {
    return tensor<T, 2>();
  }
  template <typename T, size_t NDIMS>
  typename TTypes<T, NDIMS>::Tensor tensor();
  // All elements as one dimension, whatever the rank.
  template <typename T>
  typename TTypes<T>::Flat flat();
  template <typename T>
  typename TTypes<T>::UnalignedFlat unaligned_flat();
  // The last NDIMS - 1 dimensions kept, all leading ones folded into the
  // first (missing ones are 1): [2,3,4] as NDIMS=2 is [6,4].
  template <typename T, size_t NDIMS = 2>
  typename TTypes<T, NDIMS>::Tensor flat_inner_dims();
  // The first NDIMS - 1 dimensions kept, all trailing ones folded into the
  // last: [2,3,4] as NDIMS=2 is [2,12].
  template <typename T, size_t NDIMS = 2>
  typename TTypes<T, NDIMS>::Tensor flat_outer_dims();
  // Dimensions [begin, begin + NDIMS) kept, those before folded into the
  // first and those after into the last: [2,3,4,5] with begin 1, NDIMS 2
  // is [6,20]. Requires begin >= 0 (checked).
  template <typename T, size_t NDIMS = 3>
  typename TTypes<T, NDIMS>::Tensor flat_inner_outer_dims(int64_t begin);
  // The elements viewed with `new_sizes` (their product must be
  // NumElements()).
  template <typename T, size_t NDIMS>
  typename TTypes<T, NDIMS>::Tensor shaped(const std::vector<int64_t>& new_sizes);
  template <typename T, size_t NDIMS>
  typename TTypes<T, NDIMS>::UnalignedTensor unaligned_shaped(
      const std::vector<int64_t>& new_sizes);
  template <typename T>
  typename TTypes<T>::Scalar scalar();

  template <typename T>
  typename TTypes<T>::ConstVec vec() const {
    return tensor<T, 1>();
  }
  template <typename T>
  typename TTypes<T>::ConstMatrix matrix() const {
    return tensor<T, 2>();
  }
  template <typename T, size_t NDIMS>
  typename TTypes<T, NDIMS>::ConstTensor tensor() const;
  template <typename T>
  typename TTypes<T>::ConstFlat flat() const;
  template <typename T>
  typename TTypes<T>::UnalignedConstFlat unaligned_flat() const;
  template <typename T, size_t NDIMS = 2>
  typename TTypes<T, NDIMS>::ConstTensor flat_inner_dims() const;
  template <typename T, size_t NDIMS = 2>
  typename TTypes<T, NDIMS>::ConstTensor flat_outer_dims() const;
  template <typename T, size_t NDIMS = 3>
  typename TTypes<T, NDIMS>::ConstTensor flat_inner_outer_dims(int64_t begin) const;
  template <typename T, size_t NDIMS>
  typename TTypes<T, NDIMS>::ConstTensor shaped(
      const std::vector<int64_t>& new_sizes) const;
  template <typename T, size_t NDIMS>
  typename TTypes<T, NDIMS>::UnalignedConstTensor unaligned_shaped(
      const std::vector<int64_t>& new_sizes) const;
  template <typename T>
  typename TTypes<T>::ConstScalar scalar() const;

  // Replaces this tensor with the one `proto` describes (TensorFlow's
  // semantics, see BuildFromProto). Returns false, changing nothing, when
  // the proto is malformed.
  [[nodiscard]] bool FromProto(const TensorProto& proto);
  [[nodiscard]] bool FromProto(Allocator* a, const TensorProto& proto);
  // Builds a tensor from `proto`: the elements come from tensor_content
  // (raw little-endian bytes; for DT_STRING TensorFlow's varint-lengths
  // encoding) when it is not empty, else from the typed field of the dtype
  // (float_val, double_val, int_val for int8/16/32, uint8/16 and qint types,
  // int64_val, uint32_val, uint64_val, bool_val, string_val, half_val holding
  // the bits of half and bfloat16, scomplex_val/dcomplex_val as (re, im)
  // pairs, float8_val one byte each). Fewer values than elements are padded
  // with the last value; no values at all give zero / empty elements.
  // InvalidArgument, saying what is wrong, for an unknown or unsupported
  // dtype, an invalid shape, tensor_content of the wrong size, more values
  // than elements, or an odd count of complex parts. `*out` is unchanged
  // on error.
  static Status BuildFromProto(const TensorProto& proto, Tensor* out,
                               Allocator* a = nullptr);
  // Writes dtype, shape and every element into the typed field.
  void AsProtoField(TensorProto* proto) const;
  // Writes dtype, shape and the elements as tensor_content bytes.
  void AsProtoTensorContent(TensorProto* proto) const;

  // TensorFlow's format: "Tensor<type: float shape: [2,2] values: [1 2][3...>"
  // with the first `num_values` elements.
  std::string DebugString(int num_values = 3) const;
  // "Tensor<type: float shape: [2,2]>": no element access.
  std::string DeviceSafeDebugString() const;
  // The first `max_entries` elements (all when negative) in TensorFlow's
  // format: "[1 2][3 4]", "..." after a truncated list; print_v2 gives the
  // tf.print layout ("[[1 2]\n [3 4]]", strings quoted).
  std::string SummarizeValue(int64_t max_entries, bool print_v2 = false) const;

 private:
  void CheckType(DataType expected) const;
  void CheckTypeAndIsAligned(DataType expected) const;
  void CheckRank(int rank) const;
  // Checks that `new_sizes` has `ndims` entries whose product is
  // NumElements().
  void CheckReshape(const std::vector<int64_t>& new_sizes, size_t ndims) const;
  void CheckIsAlignedAndSingleElement() const;
  template <typename T>
  T* base() const {
    return reinterpret_cast<T*>(data_);
  }
  template <size_t NDIMS>
  Eigen::DSizes<Eigen::DenseIndex, NDIMS> ToDSizes(const DimSizes& sizes) const;
  static std::vector<int64_t> FlatInnerDims(const std::vector<int64_t>& orig,
                                            int num_out_dims);
  static std::vector<int64_t> FlatOuterDims(const std::vector<int64_t>& orig,
                                            int num_out_dims);
  static std::vector<int64_t> FlatInnerOuterDims(const std::vector<int64_t>& orig,
                                                 int64_t begin, int num_out_dims);
  template <typename T>
  void InitScalar(const T& value);

  DataType dtype_ = DT_FLOAT;
  TensorShape shape_;
  std::shared_ptr<internal::TensorBuffer> buf_;
  // The first element of this tensor in buf_ (a slice points inside it).
  char* data_ = nullptr;
};

// Reads a shape from a rank-1 int32 or int64 tensor (the "shape" input of
// Reshape, Fill, ...). InvalidArgument for another dtype or rank, a negative
// size, or an element count that overflows; the partial form accepts -1 for
// an unknown size (and a scalar -1 for an unknown rank, as TensorFlow does).
OPKIT_EXPORT Status MakeShapeFromTensor(const Tensor& shape, TensorShape* out);
OPKIT_EXPORT Status MakeShapeFromTensor(const Tensor& shape,
                                        PartialTensorShape* out);

// An independent copy of `src` (same dtype and shape, its own buffer).
// ResourceExhausted if the memory cannot be had; `*out` unchanged on error.
OPKIT_EXPORT Status DeepCopy(const Tensor& src, Tensor* out,
                             Allocator* a = nullptr);
// TensorFlow's form: an uninitialized tensor when the copy cannot be made.
OPKIT_EXPORT Tensor DeepCopy(const Tensor& src);

// ---------------------------------------------------------------------------
// Implementation of the map accessors.

template <size_t NDIMS>
Eigen::DSizes<Eigen::DenseIndex, NDIMS> Tensor::ToDSizes(
    const DimSizes& sizes) const {
  Eigen::DSizes<Eigen::DenseIndex, NDIMS> d;
  for (size_t i = 0; i < NDIMS; ++i) d[i] = sizes[i];
  return d;
}

template <typename T, size_t NDIMS>
typename TTypes<T, NDIMS>::Tensor Tensor::tensor() {
  CheckTypeAndIsAligned(DataTypeToEnum<T>::value);
  CheckRank(static_cast<int>(NDIMS));
  return typename TTypes<T, NDIMS>::Tensor(base<T>(),
                                           ToDSizes<NDIMS>(shape_.dim_sizes()));
}
template <typename T, size_t NDIMS>
typename TTypes<T, NDIMS>::ConstTensor Tensor::tensor() const {
  CheckTypeAndIsAligned(DataTypeToEnum<T>::value);
  CheckRank(static_cast<int>(NDIMS));
  return typename TTypes<T, NDIMS>::ConstTensor(
      base<const T>(), ToDSizes<NDIMS>(shape_.dim_sizes()));
}

template <typename T>
typename TTypes<T>::Flat Tensor::flat() {
  CheckTypeAndIsAligned(DataTypeToEnum<T>::value);
  return typename TTypes<T>::Flat(base<T>(), NumElements());
}
template <typename T>
typename TTypes<T>::ConstFlat Tensor::flat() const {
  CheckTypeAndIsAligned(DataTypeToEnum<T>::value);
  return typename TTypes<T>::ConstFlat(base<const T>(), NumElements());
}

template <typename T>
typename TTypes<T>::UnalignedFlat Tensor::unaligned_flat() {
  CheckType(DataTypeToEnum<T>::value);
  return typename TTypes<T>::UnalignedFlat(base<T>(), NumElements());
}
template <typename T>
typename TTypes<T>::UnalignedConstFlat Tensor::unaligned_flat() const {
  CheckType(DataTypeToEnum<T>::value);
  return typename TTypes<T>::UnalignedConstFlat(base<const T>(), NumElements());
}

template <typename T, size_t NDIMS>
typename TTypes<T, NDIMS>::Tensor Tensor::flat_inner_dims() {
  return shaped<T, NDIMS>(FlatInnerDims(shape_.dim_sizes(), NDIMS));
}
template <typename T, size_t NDIMS>
typename TTypes<T, NDIMS>::ConstTensor Tensor::flat_inner_dims() const {
  return shaped<T, NDIMS>(FlatInnerDims(shape_.dim_sizes(), NDIMS));
}
template <typename T, size_t NDIMS>
typename TTypes<T, NDIMS>::Tensor Tensor::flat_outer_dims() {
  return shaped<T, NDIMS>(FlatOuterDims(shape_.dim_sizes(), NDIMS));
}
template <typename T, size_t NDIMS>
typename TTypes<T, NDIMS>::ConstTensor Tensor::flat_outer_dims() const {
  return shaped<T, NDIMS>(FlatOuterDims(shape_.dim_sizes(), NDIMS));
}

template <typename T, size_t NDIMS>
typename TTypes<T, NDIMS>::Tensor Tensor::flat_inner_outer_dims(int64_t begin) {
  return shaped<T, NDIMS>(FlatInnerOuterDims(shape_.dim_sizes(), begin, NDIMS));
}
template <typename T, size_t NDIMS>
typename TTypes<T, NDIMS>::ConstTensor Tensor::flat_inner_outer_dims(
    int64_t begin) const {
  return shaped<T, NDIMS>(FlatInnerOuterDims(shape_.dim_sizes(), begin, NDIMS));
}

template <typename T, size_t NDIMS>
typename TTypes<T, NDIMS>::Tensor Tensor::shaped(
    const std::vector<int64_t>& new_sizes) {
  CheckTypeAndIsAligned(DataTypeToEnum<T>::value);
  CheckReshape(new_sizes, NDIMS);
  return typename TTypes<T, NDIMS>::Tensor(base<T>(), ToDSizes<NDIMS>(new_sizes));
}
template <typename T, size_t NDIMS>
typename TTypes<T, NDIMS>::ConstTensor Tensor::shaped(
    const std::vector<int64_t>& new_sizes) const {
  CheckTypeAndIsAligned(DataTypeToEnum<T>::value);
  CheckReshape(new_sizes, NDIMS);
  return typename TTypes<T, NDIMS>::ConstTensor(base<const T>(),
                                                ToDSizes<NDIMS>(new_sizes));
}
template <typename T, size_t NDIMS>
typename TTypes<T, NDIMS>::UnalignedTensor Tensor::unaligned_shaped(
    const std::vector<int64_t>& new_sizes) {
  CheckType(DataTypeToEnum<T>::value);
  CheckReshape(new_sizes, NDIMS);
  return typename TTypes<T, NDIMS>::UnalignedTensor(base<T>(),
                                                    ToDSizes<NDIMS>(new_sizes));
}
template <typename T, size_t NDIMS>
typename TTypes<T, NDIMS>::UnalignedConstTensor Tensor::unaligned_shaped(
    const std::vector<int64_t>& new_sizes) const {
  CheckType(DataTypeToEnum<T>::value);
  CheckReshape(new_sizes, NDIMS);
  return typename TTypes<T, NDIMS>::UnalignedConstTensor(
      base<const T>(), ToDSizes<NDIMS>(new_sizes));
}

template <typename T>
typename TTypes<T>::Scalar Tensor::scalar() {
  CheckType(DataTypeToEnum<T>::value);
  CheckIsAlignedAndSingleElement();
  return typename TTypes<T>::Scalar(base<T>());
}
template <typename T>
typename TTypes<T>::ConstScalar Tensor::scalar() const {
  CheckType(DataTypeToEnum<T>::value);
  CheckIsAlignedAndSingleElement();
  return typename TTypes<T>::ConstScalar(base<const T>());
}

}  // namespace opkit

#endif  // OPKIT_TENSOR_TENSOR_H_

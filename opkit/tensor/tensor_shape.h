// TensorShape (a fully known shape), PartialTensorShape (a shape whose rank
// or some dimensions may be unknown) and TensorShapeUtils.
//
// Shapes built from outside data (a proto, a user's list of sizes, a value
// read from a tensor) go through the Status-returning entry points, which
// reject negative sizes and element counts that overflow int64:
//
//   TensorShape shape;
//   OPKIT_RETURN_IF_ERROR(TensorShape::BuildTensorShape({2, 3}, &shape));
//   OPKIT_RETURN_IF_ERROR(TensorShape::FromProto(proto, &shape));
//   OPKIT_RETURN_IF_ERROR(shape.AddDimWithStatus(n));
//   shape.DebugString();                          // "[2,3,5]"
//
// The constructors and the plain mutators (AddDim, InsertDim, set_dim,
// RemoveDim) are for values the program itself guarantees (literals, sizes
// computed from an existing shape): an invalid argument there is a bug in the
// calling code and stops the process with OPKIT_CHECK, as in TensorFlow.
//
//   TensorShape m({2, 3});                        // trusted literal
//   PartialTensorShape p;                         // unknown rank: "<unknown>"
//   PartialTensorShape q({-1, 3});                // "[?,3]"
//
// Thread-compatible: const methods may be called concurrently.
#ifndef OPKIT_TENSOR_TENSOR_SHAPE_H_
#define OPKIT_TENSOR_TENSOR_SHAPE_H_

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "opkit/core/export.h"
#include "opkit/core/logging.h"
#include "opkit/core/status.h"
#include "opkit/tensor_shape.pb.h"
#include "opkit/core/eigen.h"

namespace opkit {

class PartialTensorShape;

// One dimension, as TensorFlow's shape iterators yield it.
struct TensorShapeDim {
  explicit TensorShapeDim(int64_t s) : size(s) {}
  int64_t size;
};

// A read-only view of a TensorShape's sizes, valid while the shape is
// alive and unchanged. Converts to std::vector<int64_t> where one is needed.
class DimSizes {
 public:
  using value_type = int64_t;
  using const_iterator = const int64_t*;
  using iterator = const int64_t*;
  DimSizes(const int64_t* data, int size) : data_(data), size_(size) {}
  DimSizes(const std::vector<int64_t>& v)  // NOLINT: implicit by design
      : data_(v.data()), size_(static_cast<int>(v.size())) {}
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  const int64_t* data() const { return data_; }
  size_t size() const { return static_cast<size_t>(size_); }
  bool empty() const { return size_ == 0; }
  int64_t operator[](size_t i) const { return data_[i]; }
  operator std::vector<int64_t>() const {  // NOLINT: implicit by design
    return std::vector<int64_t>(begin(), end());
  }
  bool operator==(const DimSizes& o) const {
    return size_ == o.size_ && std::equal(begin(), end(), o.begin());
  }
  bool operator!=(const DimSizes& o) const { return !(*this == o); }

 private:
  const int64_t* data_;
  int size_;
};

// A fully defined shape: a rank and a non-negative size per dimension, with
// num_elements() (the product) always representable in int64.
class OPKIT_EXPORT TensorShape {
 public:
  // At most this many dimensions, as in TensorFlow.
  static constexpr int kMaxDimensions = 254;
  static constexpr int MaxDimensions() { return kMaxDimensions; }

  // A scalar: rank 0, one element.
  TensorShape() = default;
  // Trusted literal: every size must be >= 0 and the product must fit in
  // int64, or the process stops (a bug in the caller). Use BuildTensorShape
  // for sizes that come from outside.
  TensorShape(std::initializer_list<int64_t> dim_sizes);
  // Same contract as the initializer-list constructor.
  explicit TensorShape(const std::vector<int64_t>& dim_sizes);

  // Builds a shape from untrusted sizes. InvalidArgument for a negative
  // size, more than kMaxDimensions dimensions, or an element count that
  // overflows int64; `*out` is left unchanged on error.
  static Status BuildTensorShape(const std::vector<int64_t>& dim_sizes,
                                 TensorShape* out);
  static Status BuildTensorShape(const int64_t* dim_sizes, int64_t n,
                                 TensorShape* out);

  // Whether `proto` describes a valid TensorShape (known rank, every size
  // >= 0, element count fits in int64, at most kMaxDimensions dims).
  static bool IsValid(const TensorShapeProto& proto);
  // Same check, with a message saying what is wrong.
  static Status IsValidShape(const TensorShapeProto& proto);
  // Builds a shape from a proto; the errors of IsValidShape.
  static Status FromProto(const TensorShapeProto& proto, TensorShape* out);

  int dims() const { return ndims_; }
  // Requires 0 <= d < dims() (checked: a bug in the caller otherwise).
  int64_t dim_size(int d) const;
  DimSizes dim_sizes() const { return DimSizes(dim_data(), ndims_); }
  int64_t num_elements() const { return num_elements_; }

  // Appends a dimension. AddDim requires size >= 0 and no overflow (checked);
  // AddDimWithStatus reports those as InvalidArgument and leaves the shape
  // unchanged.
  void AddDim(int64_t size);
  Status AddDimWithStatus(int64_t size);
  // Appends every dimension of `other` (checked / Status as for AddDim).
  void AppendShape(const TensorShape& other);
  Status AppendShapeWithStatus(const TensorShape& other);
  // Inserts a dimension before index d (0 <= d <= dims()).
  void InsertDim(int d, int64_t size);
  Status InsertDimWithStatus(int d, int64_t size);
  // Replaces the size of dimension d (0 <= d < dims()).
  void set_dim(int d, int64_t size);
  Status SetDimWithStatus(int d, int64_t size);
  // Removes dimension d (0 <= d < dims()).
  void RemoveDim(int d);
  Status RemoveDimWithStatus(int d);
  // Removes dimensions [begin, end); both clamped to [0, dims()] after
  // negative values count from the end (TensorFlow's RemoveDimRange).
  void RemoveDimRange(int begin, int end);
  // Removes the last n dimensions (n <= dims()).
  void RemoveLastDims(int n);
  // Back to a scalar.
  void Clear();

  // Same rank and sizes.
  bool IsSameSize(const TensorShape& other) const;
  bool operator==(const TensorShape& other) const { return IsSameSize(other); }
  bool operator!=(const TensorShape& other) const { return !IsSameSize(other); }

  // "[2,3]"; "[]" for a scalar.
  std::string DebugString() const;
  // The same format for a proto, without validating it ("[2,-1]";
  // "<unknown>" when unknown_rank is set).
  static std::string DebugString(const TensorShapeProto& proto);

  void AsProto(TensorShapeProto* proto) const;
  TensorShapeProto AsProto() const;

  // The sizes as Eigen dimensions, for Eigen expressions (reshape,
  // broadcast). Requires dims() == NDIMS (checked). The padded form
  // requires dims() <= NDIMS and appends sizes of 1.
  template <int NDIMS, typename IndexType = Eigen::DenseIndex>
  Eigen::DSizes<IndexType, NDIMS> AsEigenDSizes() const {
    OPKIT_CHECK(dims() == NDIMS) << "Asking for tensor of " << NDIMS
                                 << " dimensions from a tensor of " << dims()
                                 << " dimensions";
    return AsEigenDSizesWithPadding<NDIMS, IndexType>();
  }
  template <int NDIMS, typename IndexType = Eigen::DenseIndex>
  Eigen::DSizes<IndexType, NDIMS> AsEigenDSizesWithPadding() const {
    OPKIT_CHECK(dims() <= NDIMS) << "Asking for tensor of at least " << NDIMS
                                 << " dimensions from a tensor of " << dims()
                                 << " dimensions";
    Eigen::DSizes<IndexType, NDIMS> out;
    for (int d = 0; d < NDIMS; ++d) {
      out[d] = d < dims() ? static_cast<IndexType>(dim_data()[d]) : IndexType{1};
    }
    return out;
  }

  // Iteration yields TensorShapeDim{size}, as in TensorFlow.
  class ConstIterator {
   public:
    ConstIterator(const TensorShape* shape, int d) : shape_(shape), d_(d) {}
    TensorShapeDim operator*() const { return TensorShapeDim(shape_->dim_size(d_)); }
    ConstIterator& operator++() {
      ++d_;
      return *this;
    }
    bool operator==(const ConstIterator& o) const { return d_ == o.d_; }
    bool operator!=(const ConstIterator& o) const { return d_ != o.d_; }

   private:
    const TensorShape* shape_;
    int d_;
  };
  ConstIterator begin() const { return ConstIterator(this, 0); }
  ConstIterator end() const { return ConstIterator(this, dims()); }

 private:
  // Note [Inline shape storage]: shapes of up to kInlineDims dimensions (by
  // far the most common) keep their sizes inline, so that copying a shape
  // (every tensor allocation does) does not allocate.
  static constexpr int kInlineDims = 4;
  const int64_t* dim_data() const {
    return ndims_ <= kInlineDims ? inline_dims_ : heap_dims_.data();
  }
  // Replaces the sizes (already validated) and the element count.
  void SetDims(const int64_t* sizes, int n, int64_t num_elements);

  int64_t inline_dims_[kInlineDims] = {0, 0, 0, 0};
  std::vector<int64_t> heap_dims_;  // Used only when ndims_ > kInlineDims.
  int ndims_ = 0;
  int64_t num_elements_ = 1;
};

OPKIT_EXPORT std::ostream& operator<<(std::ostream& os, const TensorShape& s);

// A shape that may be partly unknown: unknown rank (dims() == -1), or known
// rank with some sizes unknown (-1).
class OPKIT_EXPORT PartialTensorShape {
 public:
  // Unknown rank.
  PartialTensorShape() = default;
  // Trusted literal: sizes must be >= -1 (checked). Use
  // BuildPartialTensorShape for sizes that come from outside.
  PartialTensorShape(std::initializer_list<int64_t> dim_sizes);
  explicit PartialTensorShape(const std::vector<int64_t>& dim_sizes);
  // Known rank and sizes.
  PartialTensorShape(const TensorShape& shape);  // NOLINT: implicit, as TF

  // Builds from untrusted sizes: InvalidArgument for a size below -1, too
  // many dimensions, or known sizes whose product overflows int64.
  static Status BuildPartialTensorShape(const std::vector<int64_t>& dim_sizes,
                                        PartialTensorShape* out);
  static Status BuildPartialTensorShape(const int64_t* dim_sizes, int64_t n,
                                        PartialTensorShape* out);
  // TensorFlow's names for the same (n sizes, -1 = unknown).
  static Status MakePartialShape(const int32_t* dims, int n,
                                 PartialTensorShape* out);
  static Status MakePartialShape(const int64_t* dims, int n,
                                 PartialTensorShape* out);

  static bool IsValid(const TensorShapeProto& proto);
  // InvalidArgument when unknown_rank is set together with dims, for sizes
  // below -1, too many dims, or a product of known sizes overflowing int64.
  static Status IsValidShape(const TensorShapeProto& proto);
  static Status FromProto(const TensorShapeProto& proto,
                          PartialTensorShape* out);

  bool unknown_rank() const { return unknown_rank_; }
  // -1 when the rank is unknown.
  int dims() const { return unknown_rank_ ? -1 : static_cast<int>(dims_.size()); }
  // -1 for an unknown size. Requires a known rank and 0 <= d < dims().
  int64_t dim_size(int d) const;
  // Empty when the rank is unknown.
  const std::vector<int64_t>& dim_sizes() const { return dims_; }
  // -1 unless the shape is fully defined.
  int64_t num_elements() const { return num_elements_; }

  // Known rank and no unknown size.
  bool IsFullyDefined() const;
  // Sets *out and returns true when fully defined; returns false (leaving
  // *out alone) otherwise, as TensorFlow's AsTensorShape does.
  bool AsTensorShape(TensorShape* out) const;

  // Whether some fully defined shape matches both: unknown rank matches
  // everything; equal ranks with each pair of sizes equal or one unknown.
  bool IsCompatibleWith(const PartialTensorShape& other) const;
  // The most specific shape compatible with both; InvalidArgument
  // ("Incompatible shapes during merge: [2] vs. [3]") when there is none.
  Status MergeWith(const PartialTensorShape& other,
                   PartialTensorShape* result) const;
  // Same rank and same sizes (unknown equals unknown); unknown rank equals
  // only unknown rank.
  bool IsIdenticalTo(const PartialTensorShape& other) const;
  bool operator==(const PartialTensorShape& o) const { return IsIdenticalTo(o); }
  bool operator!=(const PartialTensorShape& o) const { return !IsIdenticalTo(o); }

  // This shape followed by one more dimension / by `other`'s dimensions;
  // unknown rank if either rank is unknown. The size must be >= -1
  // (checked); ConcatenateWithStatus reports overflow instead.
  PartialTensorShape Concatenate(int64_t size) const;
  PartialTensorShape Concatenate(const PartialTensorShape& other) const;
  Status ConcatenateWithStatus(const PartialTensorShape& other,
                               PartialTensorShape* out) const;
  // Appends a dimension (>= -1) to a shape of known rank.
  Status AddDimWithStatus(int64_t size);

  // "<unknown>", "[?,3]", "[]".
  std::string DebugString() const;
  void AsProto(TensorShapeProto* proto) const;
  TensorShapeProto AsProto() const;

 private:
  std::vector<int64_t> dims_;
  bool unknown_rank_ = true;
  int64_t num_elements_ = -1;
};

OPKIT_EXPORT std::ostream& operator<<(std::ostream& os,
                                      const PartialTensorShape& s);

// Predicates and builders over shapes, as TensorFlow names them.
class OPKIT_EXPORT TensorShapeUtils {
 public:
  static bool IsScalar(const TensorShape& s) { return s.dims() == 0; }
  static bool IsVector(const TensorShape& s) { return s.dims() == 1; }
  static bool IsVectorOrHigher(const TensorShape& s) { return s.dims() >= 1; }
  static bool IsMatrix(const TensorShape& s) { return s.dims() == 2; }
  static bool IsSquareMatrix(const TensorShape& s) {
    return s.dims() == 2 && s.dim_size(0) == s.dim_size(1);
  }
  static bool IsMatrixOrHigher(const TensorShape& s) { return s.dims() >= 2; }
  // Whether `shape` starts / ends with the dimensions of `prefix`/`suffix`.
  static bool StartsWith(const TensorShape& shape, const TensorShape& prefix);
  static bool EndsWith(const TensorShape& shape, const TensorShape& suffix);

  // Builds a shape from n untrusted sizes (as read from a shape tensor).
  // InvalidArgument for a negative size or an overflowing element count.
  static Status MakeShape(const int32_t* dims, int64_t n, TensorShape* out);
  static Status MakeShape(const int64_t* dims, int64_t n, TensorShape* out);
  static Status MakeShape(const std::vector<int32_t>& dims, TensorShape* out);
  static Status MakeShape(const std::vector<int64_t>& dims, TensorShape* out);
  // The partial forms accept -1 for an unknown size.
  static Status MakeShape(const int32_t* dims, int64_t n,
                          PartialTensorShape* out);
  static Status MakeShape(const int64_t* dims, int64_t n,
                          PartialTensorShape* out);
  // TensorFlow's forms over a span (gtl::ArraySlice), e.g. the sizes of a
  // shape tensor: MakeShape(absl::Span<const int64_t>(v.data(), v.size()),
  // &shape).
  static Status MakeShape(absl::Span<const int32_t> dims, TensorShape* out) {
    return MakeShape(dims.data(), static_cast<int64_t>(dims.size()), out);
  }
  static Status MakeShape(absl::Span<const int64_t> dims, TensorShape* out) {
    return MakeShape(dims.data(), static_cast<int64_t>(dims.size()), out);
  }
  static Status MakeShape(absl::Span<const int32_t> dims,
                          PartialTensorShape* out) {
    return MakeShape(dims.data(), static_cast<int64_t>(dims.size()), out);
  }
  static Status MakeShape(absl::Span<const int64_t> dims,
                          PartialTensorShape* out) {
    return MakeShape(dims.data(), static_cast<int64_t>(dims.size()), out);
  }

  // "[[2,3], [4]]" for a list of shapes.
  static std::string ShapeListString(const std::vector<TensorShape>& shapes);
};

// The multi-index of element `flat` (row-major) of a value of `shape`, for
// messages, as TensorFlow prints it: "[1,2]" for flat 5 of [2,3]; "[4]" at
// rank 1; "" at rank 0. `flat` must be in [0, shape.num_elements()).
OPKIT_EXPORT std::string SliceDebugString(const TensorShape& shape,
                                          int64_t flat);

}  // namespace opkit

#endif  // OPKIT_TENSOR_TENSOR_SHAPE_H_

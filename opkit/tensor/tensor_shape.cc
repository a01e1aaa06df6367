// TensorShape, PartialTensorShape and TensorShapeUtils.
#include "opkit/tensor/tensor_shape.h"

#include <algorithm>
#include <limits>
#include <ostream>

#include "opkit/core/errors.h"
#include "opkit/core/logging.h"
#include "opkit/core/str_util.h"

namespace opkit {
namespace {

// a * b for a, b >= 0, or -1 when the product does not fit in int64.
int64_t MultiplyWithoutOverflow(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_mul_overflow(a, b, &out)) return -1;
  return out;
}

std::string DimsString(const std::vector<int64_t>& dims, bool partial) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) s += ",";
    if (partial && dims[i] < 0) {
      s += "?";
    } else {
      s += std::to_string(dims[i]);
    }
  }
  s += "]";
  return s;
}

template <typename Int>
std::string ListString(const Int* dims, int64_t n) {
  std::string s = "[";
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0) s += ",";
    s += std::to_string(dims[i]);
  }
  s += "]";
  return s;
}

// Validates untrusted sizes for a full (min_size 0) or partial (min_size -1)
// shape; on success returns the element count (-1 when a size is unknown).
template <typename Int>
Status ValidateDims(const Int* dims, int64_t n, int64_t min_size,
                    int64_t* num_elements) {
  if (n < 0) {
    return errors::InvalidArgument("Number of dimensions must be >= 0, got ", n);
  }
  if (n > TensorShape::kMaxDimensions) {
    return errors::InvalidArgument(
        "Shape has ", n, " dimensions; at most ", TensorShape::kMaxDimensions,
        " are allowed");
  }
  int64_t product = 1;
  bool unknown = false;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = static_cast<int64_t>(dims[i]);
    if (d < min_size) {
      if (min_size == 0) {
        return errors::InvalidArgument(
            "Expected shape dimensions to be non-negative, got ", d,
            " at index ", i, " of shape ", ListString(dims, n));
      }
      return errors::InvalidArgument(
          "Dimension ", d, " must be >= -1 (-1 means unknown), at index ", i,
          " of shape ", ListString(dims, n));
    }
    if (d == -1) {
      unknown = true;
      continue;
    }
    product = MultiplyWithoutOverflow(product, d);
    if (product < 0) {
      return errors::InvalidArgument(
          "Shape ", ListString(dims, n),
          " would have more than 2**63 - 1 elements; use smaller dimensions");
    }
  }
  *num_elements = unknown ? -1 : product;
  return Status();
}

}  // namespace

// ---------------------------------------------------------------------------
// TensorShape

TensorShape::TensorShape(std::initializer_list<int64_t> dim_sizes)
    : TensorShape(std::vector<int64_t>(dim_sizes)) {}

TensorShape::TensorShape(const std::vector<int64_t>& dim_sizes) {
  Status s = BuildTensorShape(dim_sizes, this);
  OPKIT_CHECK(s.ok()) << "Invalid TensorShape literal: " << s.message();
}

Status TensorShape::BuildTensorShape(const std::vector<int64_t>& dim_sizes,
                                     TensorShape* out) {
  return BuildTensorShape(dim_sizes.data(),
                          static_cast<int64_t>(dim_sizes.size()), out);
}

Status TensorShape::BuildTensorShape(const int64_t* dim_sizes, int64_t n,
                                     TensorShape* out) {
  int64_t num_elements;
  OPKIT_RETURN_IF_ERROR(ValidateDims(dim_sizes, n, 0, &num_elements));
  out->SetDims(dim_sizes, static_cast<int>(n), num_elements);
  return Status();
}

void TensorShape::SetDims(const int64_t* sizes, int n, int64_t num_elements) {
  if (n <= kInlineDims) {
    std::copy(sizes, sizes + n, inline_dims_);
    heap_dims_.clear();
  } else {
    heap_dims_.assign(sizes, sizes + n);
  }
  ndims_ = n;
  num_elements_ = num_elements;
}

bool TensorShape::IsValid(const TensorShapeProto& proto) {
  return IsValidShape(proto).ok();
}

Status TensorShape::IsValidShape(const TensorShapeProto& proto) {
  if (proto.unknown_rank()) {
    return errors::InvalidArgument(
        "Shape ", DebugString(proto),
        " has unknown rank; a TensorShape needs a known rank and sizes");
  }
  if (proto.dim_size() > kMaxDimensions) {
    return errors::InvalidArgument("Shape ", DebugString(proto), " has ",
                                   proto.dim_size(),
                                   " dimensions; at most ", kMaxDimensions,
                                   " are allowed");
  }
  int64_t product = 1;
  for (int i = 0; i < proto.dim_size(); ++i) {
    const int64_t d = proto.dim(i).size();
    if (d < 0) {
      return errors::InvalidArgument(
          "Shape ", DebugString(proto),
          " has negative dimensions (dimension ", i, " is ", d,
          "); a TensorShape needs every size >= 0");
    }
    product = MultiplyWithoutOverflow(product, d);
    if (product < 0) {
      return errors::InvalidArgument("Shape ", DebugString(proto),
                                     " is too large (more than 2**63 - 1 entries)");
    }
  }
  return Status();
}

Status TensorShape::FromProto(const TensorShapeProto& proto, TensorShape* out) {
  OPKIT_RETURN_IF_ERROR(IsValidShape(proto));
  std::vector<int64_t> sizes;
  sizes.reserve(proto.dim_size());
  int64_t product = 1;
  for (const auto& d : proto.dim()) {
    sizes.push_back(d.size());
    product *= d.size();  // Cannot overflow: IsValidShape checked it.
  }
  out->SetDims(sizes.data(), static_cast<int>(sizes.size()), product);
  return Status();
}

int64_t TensorShape::dim_size(int d) const {
  OPKIT_CHECK(d >= 0 && d < dims())
      << "dimension " << d << " out of range for shape " << DebugString();
  return dim_data()[d];
}

Status TensorShape::AddDimWithStatus(int64_t size) {
  if (size < 0) {
    return errors::InvalidArgument("Expected a non-negative size, got ", size);
  }
  if (dims() >= kMaxDimensions) {
    return errors::InvalidArgument("Too many dimensions in tensor: ", dims(),
                                   " already, at most ", kMaxDimensions);
  }
  const int64_t product = MultiplyWithoutOverflow(num_elements_, size);
  if (product < 0) {
    return errors::InvalidArgument("Encountered overflow when multiplying ",
                                   num_elements_, " with ", size,
                                   " (adding a dimension to shape ",
                                   DebugString(), ")");
  }
  if (ndims_ < kInlineDims) {
    inline_dims_[ndims_] = size;
  } else {
    if (ndims_ == kInlineDims) heap_dims_.assign(inline_dims_, inline_dims_ + kInlineDims);
    heap_dims_.push_back(size);
  }
  ++ndims_;
  num_elements_ = product;
  return Status();
}

void TensorShape::AddDim(int64_t size) {
  Status s = AddDimWithStatus(size);
  OPKIT_CHECK(s.ok()) << s.message();
}

Status TensorShape::AppendShapeWithStatus(const TensorShape& other) {
  TensorShape result = *this;
  for (int64_t d : other.dim_sizes()) OPKIT_RETURN_IF_ERROR(result.AddDimWithStatus(d));
  *this = std::move(result);
  return Status();
}

void TensorShape::AppendShape(const TensorShape& other) {
  Status s = AppendShapeWithStatus(other);
  OPKIT_CHECK(s.ok()) << s.message();
}

Status TensorShape::InsertDimWithStatus(int d, int64_t size) {
  if (d < 0 || d > dims()) {
    return errors::InvalidArgument("Cannot insert a dimension at index ", d,
                                   " of shape ", DebugString(),
                                   "; the index must be in [0, ", dims(), "]");
  }
  std::vector<int64_t> sizes = dim_sizes();
  sizes.insert(sizes.begin() + d, size);
  return BuildTensorShape(sizes, this);
}

void TensorShape::InsertDim(int d, int64_t size) {
  Status s = InsertDimWithStatus(d, size);
  OPKIT_CHECK(s.ok()) << s.message();
}

Status TensorShape::SetDimWithStatus(int d, int64_t size) {
  if (d < 0 || d >= dims()) {
    return errors::InvalidArgument("Cannot set dimension ", d, " of shape ",
                                   DebugString(), "; the index must be in [0, ",
                                   dims(), ")");
  }
  std::vector<int64_t> sizes = dim_sizes();
  sizes[d] = size;
  return BuildTensorShape(sizes, this);
}

void TensorShape::set_dim(int d, int64_t size) {
  Status s = SetDimWithStatus(d, size);
  OPKIT_CHECK(s.ok()) << s.message();
}

Status TensorShape::RemoveDimWithStatus(int d) {
  if (d < 0 || d >= dims()) {
    return errors::InvalidArgument("Cannot remove dimension ", d, " of shape ",
                                   DebugString(), "; the index must be in [0, ",
                                   dims(), ")");
  }
  std::vector<int64_t> sizes = dim_sizes();
  sizes.erase(sizes.begin() + d);
  return BuildTensorShape(sizes, this);
}

void TensorShape::RemoveDim(int d) {
  Status s = RemoveDimWithStatus(d);
  OPKIT_CHECK(s.ok()) << s.message();
}

void TensorShape::RemoveDimRange(int begin, int end) {
  const int n = dims();
  if (begin < 0) begin += n + 1;
  if (end < 0) end += n + 1;
  begin = std::max(0, std::min(begin, n));
  end = std::max(0, std::min(end, n));
  if (begin >= end) return;
  std::vector<int64_t> sizes = dim_sizes();
  sizes.erase(sizes.begin() + begin, sizes.begin() + end);
  // Removing dimensions cannot make a valid shape invalid.
  OPKIT_CHECK(BuildTensorShape(sizes, this).ok());
}

void TensorShape::RemoveLastDims(int n) {
  OPKIT_CHECK(n >= 0 && n <= dims())
      << "cannot remove " << n << " dimensions from shape " << DebugString();
  RemoveDimRange(dims() - n, dims());
}

void TensorShape::Clear() {
  heap_dims_.clear();
  ndims_ = 0;
  num_elements_ = 1;
}

bool TensorShape::IsSameSize(const TensorShape& other) const {
  return dim_sizes() == other.dim_sizes();
}

std::string TensorShape::DebugString() const {
  return DimsString(dim_sizes(), false);
}

std::string TensorShape::DebugString(const TensorShapeProto& proto) {
  if (proto.unknown_rank()) return "<unknown>";
  std::string s = "[";
  for (int i = 0; i < proto.dim_size(); ++i) {
    if (i > 0) s += ",";
    s += std::to_string(proto.dim(i).size());
  }
  s += "]";
  return s;
}

void TensorShape::AsProto(TensorShapeProto* proto) const {
  proto->Clear();
  for (int64_t d : dim_sizes()) proto->add_dim()->set_size(d);
}

TensorShapeProto TensorShape::AsProto() const {
  TensorShapeProto proto;
  AsProto(&proto);
  return proto;
}

std::ostream& operator<<(std::ostream& os, const TensorShape& s) {
  return os << s.DebugString();
}

// ---------------------------------------------------------------------------
// PartialTensorShape

PartialTensorShape::PartialTensorShape(std::initializer_list<int64_t> dim_sizes)
    : PartialTensorShape(std::vector<int64_t>(dim_sizes)) {}

PartialTensorShape::PartialTensorShape(const std::vector<int64_t>& dim_sizes) {
  Status s = BuildPartialTensorShape(dim_sizes, this);
  OPKIT_CHECK(s.ok()) << "Invalid PartialTensorShape literal: " << s.message();
}

PartialTensorShape::PartialTensorShape(const TensorShape& shape)
    : dims_(shape.dim_sizes()),
      unknown_rank_(false),
      num_elements_(shape.num_elements()) {}

Status PartialTensorShape::BuildPartialTensorShape(
    const std::vector<int64_t>& dim_sizes, PartialTensorShape* out) {
  return BuildPartialTensorShape(dim_sizes.data(),
                                 static_cast<int64_t>(dim_sizes.size()), out);
}

Status PartialTensorShape::BuildPartialTensorShape(const int64_t* dim_sizes,
                                                   int64_t n,
                                                   PartialTensorShape* out) {
  int64_t num_elements;
  OPKIT_RETURN_IF_ERROR(ValidateDims(dim_sizes, n, -1, &num_elements));
  out->dims_.assign(dim_sizes, dim_sizes + n);
  out->unknown_rank_ = false;
  out->num_elements_ = num_elements;
  return Status();
}

bool PartialTensorShape::IsValid(const TensorShapeProto& proto) {
  return IsValidShape(proto).ok();
}

Status PartialTensorShape::IsValidShape(const TensorShapeProto& proto) {
  if (proto.unknown_rank()) {
    if (proto.dim_size() > 0) {
      return errors::InvalidArgument(
          "An unknown shape must not have any dimensions set (got ",
          proto.dim_size(), " dimensions with unknown_rank: true)");
    }
    return Status();
  }
  if (proto.dim_size() > TensorShape::kMaxDimensions) {
    return errors::InvalidArgument(
        "Shape ", TensorShape::DebugString(proto), " has ", proto.dim_size(),
        " dimensions; at most ", TensorShape::kMaxDimensions, " are allowed");
  }
  int64_t product = 1;
  for (int i = 0; i < proto.dim_size(); ++i) {
    const int64_t d = proto.dim(i).size();
    if (d < -1) {
      return errors::InvalidArgument(
          "Shape ", TensorShape::DebugString(proto),
          " has dimensions with values below -1 (where -1 means unknown)");
    }
    if (d == -1) continue;
    product = MultiplyWithoutOverflow(product, d);
    if (product < 0) {
      return errors::InvalidArgument("Shape ", TensorShape::DebugString(proto),
                                     " is too large (more than 2**63 - 1 entries)");
    }
  }
  return Status();
}

Status PartialTensorShape::FromProto(const TensorShapeProto& proto,
                                     PartialTensorShape* out) {
  OPKIT_RETURN_IF_ERROR(IsValidShape(proto));
  PartialTensorShape shape;
  if (!proto.unknown_rank()) {
    std::vector<int64_t> sizes;
    sizes.reserve(proto.dim_size());
    for (const auto& d : proto.dim()) sizes.push_back(d.size());
    OPKIT_RETURN_IF_ERROR(BuildPartialTensorShape(sizes, &shape));
  }
  *out = std::move(shape);
  return Status();
}

int64_t PartialTensorShape::dim_size(int d) const {
  OPKIT_CHECK(!unknown_rank_ && d >= 0 && d < dims())
      << "dimension " << d << " out of range for shape " << DebugString();
  return dims_[d];
}

bool PartialTensorShape::IsFullyDefined() const {
  return !unknown_rank_ && num_elements_ >= 0;
}

bool PartialTensorShape::AsTensorShape(TensorShape* out) const {
  if (!IsFullyDefined()) return false;
  // Every size is >= 0 and the product fits: cannot fail.
  OPKIT_CHECK(TensorShape::BuildTensorShape(dims_, out).ok());
  return true;
}

bool PartialTensorShape::IsCompatibleWith(const PartialTensorShape& other) const {
  if (unknown_rank_ || other.unknown_rank_) return true;
  if (dims_.size() != other.dims_.size()) return false;
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (dims_[i] != -1 && other.dims_[i] != -1 && dims_[i] != other.dims_[i]) {
      return false;
    }
  }
  return true;
}

Status PartialTensorShape::MergeWith(const PartialTensorShape& other,
                                     PartialTensorShape* result) const {
  if (unknown_rank_) {
    *result = other;
    return Status();
  }
  if (other.unknown_rank_) {
    *result = *this;
    return Status();
  }
  if (dims_.size() != other.dims_.size()) {
    return errors::InvalidArgument(
        "PartialTensorShape: Incompatible ranks during merge: ", dims_.size(),
        " vs. ", other.dims_.size(), " (", DebugString(), " vs. ",
        other.DebugString(), ")");
  }
  std::vector<int64_t> merged(dims_.size());
  for (size_t i = 0; i < dims_.size(); ++i) {
    const int64_t a = dims_[i];
    const int64_t b = other.dims_[i];
    if (a != -1 && b != -1 && a != b) {
      return errors::InvalidArgument("Incompatible shapes during merge: ",
                                     DebugString(), " vs. ", other.DebugString());
    }
    merged[i] = a == -1 ? b : a;
  }
  // Each side may know different dimensions, so the merged product can
  // overflow even though neither input's does; the builder reports that.
  return BuildPartialTensorShape(merged, result);
}

bool PartialTensorShape::IsIdenticalTo(const PartialTensorShape& other) const {
  if (unknown_rank_ || other.unknown_rank_) {
    return unknown_rank_ == other.unknown_rank_;
  }
  return dims_ == other.dims_;
}

Status PartialTensorShape::AddDimWithStatus(int64_t size) {
  if (unknown_rank_) {
    return errors::InvalidArgument(
        "Cannot add a dimension to a shape of unknown rank");
  }
  std::vector<int64_t> sizes = dim_sizes();
  sizes.push_back(size);
  return BuildPartialTensorShape(sizes, this);
}

Status PartialTensorShape::ConcatenateWithStatus(const PartialTensorShape& other,
                                                 PartialTensorShape* out) const {
  if (unknown_rank_ || other.unknown_rank_) {
    *out = PartialTensorShape();
    return Status();
  }
  std::vector<int64_t> sizes = dim_sizes();
  sizes.insert(sizes.end(), other.dims_.begin(), other.dims_.end());
  return BuildPartialTensorShape(sizes, out);
}

PartialTensorShape PartialTensorShape::Concatenate(int64_t size) const {
  PartialTensorShape out;
  Status s = ConcatenateWithStatus(PartialTensorShape({size}), &out);
  OPKIT_CHECK(s.ok()) << s.message();
  return out;
}

PartialTensorShape PartialTensorShape::Concatenate(
    const PartialTensorShape& other) const {
  PartialTensorShape out;
  Status s = ConcatenateWithStatus(other, &out);
  OPKIT_CHECK(s.ok()) << s.message();
  return out;
}

std::string PartialTensorShape::DebugString() const {
  if (unknown_rank_) return "<unknown>";
  return DimsString(dims_, true);
}

void PartialTensorShape::AsProto(TensorShapeProto* proto) const {
  proto->Clear();
  if (unknown_rank_) {
    proto->set_unknown_rank(true);
    return;
  }
  for (int64_t d : dims_) proto->add_dim()->set_size(d);
}

TensorShapeProto PartialTensorShape::AsProto() const {
  TensorShapeProto proto;
  AsProto(&proto);
  return proto;
}

std::ostream& operator<<(std::ostream& os, const PartialTensorShape& s) {
  return os << s.DebugString();
}

// ---------------------------------------------------------------------------
// TensorShapeUtils

bool TensorShapeUtils::StartsWith(const TensorShape& shape,
                                  const TensorShape& prefix) {
  if (shape.dims() < prefix.dims()) return false;
  for (int i = 0; i < prefix.dims(); ++i) {
    if (shape.dim_size(i) != prefix.dim_size(i)) return false;
  }
  return true;
}

bool TensorShapeUtils::EndsWith(const TensorShape& shape,
                                const TensorShape& suffix) {
  const int offset = shape.dims() - suffix.dims();
  if (offset < 0) return false;
  for (int i = 0; i < suffix.dims(); ++i) {
    if (shape.dim_size(offset + i) != suffix.dim_size(i)) return false;
  }
  return true;
}

namespace {

template <typename Int>
Status MakeFullShape(const Int* dims, int64_t n, TensorShape* out) {
  if (n > 0 && dims == nullptr) {
    return errors::InvalidArgument("MakeShape: null dimension array with n = ", n);
  }
  int64_t num_elements;
  OPKIT_RETURN_IF_ERROR(ValidateDims(dims, n, 0, &num_elements));
  std::vector<int64_t> sizes(dims, dims + n);
  return TensorShape::BuildTensorShape(sizes, out);
}

template <typename Int>
Status MakePartialShapeImpl(const Int* dims, int64_t n, PartialTensorShape* out) {
  if (n > 0 && dims == nullptr) {
    return errors::InvalidArgument("MakeShape: null dimension array with n = ", n);
  }
  int64_t num_elements;
  OPKIT_RETURN_IF_ERROR(ValidateDims(dims, n, -1, &num_elements));
  std::vector<int64_t> sizes(dims, dims + n);
  return PartialTensorShape::BuildPartialTensorShape(sizes, out);
}

}  // namespace

Status PartialTensorShape::MakePartialShape(const int32_t* dims, int n,
                                            PartialTensorShape* out) {
  return MakePartialShapeImpl(dims, n, out);
}
Status PartialTensorShape::MakePartialShape(const int64_t* dims, int n,
                                            PartialTensorShape* out) {
  return MakePartialShapeImpl(dims, n, out);
}

Status TensorShapeUtils::MakeShape(const int32_t* dims, int64_t n,
                                   TensorShape* out) {
  return MakeFullShape(dims, n, out);
}
Status TensorShapeUtils::MakeShape(const int64_t* dims, int64_t n,
                                   TensorShape* out) {
  return MakeFullShape(dims, n, out);
}
Status TensorShapeUtils::MakeShape(const std::vector<int32_t>& dims,
                                   TensorShape* out) {
  return MakeFullShape(dims.data(), static_cast<int64_t>(dims.size()), out);
}
Status TensorShapeUtils::MakeShape(const std::vector<int64_t>& dims,
                                   TensorShape* out) {
  return MakeFullShape(dims.data(), static_cast<int64_t>(dims.size()), out);
}
Status TensorShapeUtils::MakeShape(const int32_t* dims, int64_t n,
                                   PartialTensorShape* out) {
  return MakePartialShapeImpl(dims, n, out);
}
Status TensorShapeUtils::MakeShape(const int64_t* dims, int64_t n,
                                   PartialTensorShape* out) {
  return MakePartialShapeImpl(dims, n, out);
}

std::string TensorShapeUtils::ShapeListString(
    const std::vector<TensorShape>& shapes) {
  std::string s = "[";
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (i > 0) s += ", ";
    s += shapes[i].DebugString();
  }
  s += "]";
  return s;
}

std::string SliceDebugString(const TensorShape& shape, int64_t flat) {
  const int dims = shape.dims();
  if (dims == 0) return "";
  // Peel the index off from the last dimension, which varies fastest.
  std::vector<int64_t> index(dims);
  int64_t left = flat;
  for (int d = dims - 1; d > 0; --d) {
    const int64_t size = shape.dim_size(d);
    index[d] = size == 0 ? 0 : left % size;
    left = size == 0 ? 0 : left / size;
  }
  index[0] = left;
  return "[" + StrJoin(index, ",") + "]";
}

}  // namespace opkit

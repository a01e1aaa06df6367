// Tensor: its storage (a ref-counted, aligned buffer), construction,
// properties, slicing and bitcasts, the checks behind the typed accessors,
// shapes read from tensors, and deep copies. TensorProto conversion is in
// tensor_proto.cc, printing in tensor_print.cc.
#include "opkit/tensor/tensor.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>
#include <utility>

#include "opkit/core/errors.h"
#include "opkit/core/logging.h"
#include "opkit/core/str_util.h"
#include "opkit/tensor/allocation_limit.h"
#include "opkit/tensor/internal/tensor_storage.h"

namespace opkit {
namespace internal {

// One allocation. For DT_STRING (DT_RESOURCE, DT_VARIANT) it owns
// `num_elements` constructed strings (handles, variants), destroyed before the memory goes back to the
// allocator.
class TensorBuffer {
 public:
  TensorBuffer(Allocator* allocator, char* data, size_t bytes, DataType dtype,
               int64_t num_elements)
      : allocator_(allocator),
        data_(data),
        bytes_(bytes),
        dtype_(dtype),
        num_elements_(num_elements) {}
  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;
  ~TensorBuffer() {
    if (dtype_ == DT_STRING) {
      tstring* strings = reinterpret_cast<tstring*>(data_);
      for (int64_t i = 0; i < num_elements_; ++i) strings[i].~tstring();
    } else if (dtype_ == DT_RESOURCE) {
      ResourceHandle* handles = reinterpret_cast<ResourceHandle*>(data_);
      for (int64_t i = 0; i < num_elements_; ++i) handles[i].~ResourceHandle();
    } else if (dtype_ == DT_VARIANT) {
      Variant* values = reinterpret_cast<Variant*>(data_);
      for (int64_t i = 0; i < num_elements_; ++i) values[i].~Variant();
    }
    allocator_->DeallocateRaw(data_);
  }

  char* data() const { return data_; }
  size_t size() const { return bytes_; }

 private:
  Allocator* const allocator_;
  char* const data_;
  const size_t bytes_;
  const DataType dtype_;
  const int64_t num_elements_;
};

Status UnsupportedDtype(DataType dtype) {
  if (dtype == DT_INVALID) {
    return errors::InvalidArgument(
        "Cannot allocate a tensor of dtype INVALID; set a real dtype");
  }
  if (IsRefType(dtype)) {
    return errors::InvalidArgument(
        "Cannot allocate a tensor of ref dtype ", DataTypeString(dtype),
        "; tensors hold base types (use ", DataTypeString(RemoveRefType(dtype)),
        ")");
  }
  return errors::InvalidArgument("Cannot allocate a tensor of dtype ",
                                 DataTypeString(dtype));
}

}  // namespace internal

namespace {

using internal::ElementSize;
using internal::HasStorage;
using internal::TensorBuffer;
using internal::UnsupportedDtype;

// Allocates storage for `n` elements (nullptr for n == 0).
Status AllocateBuffer(Allocator* a, DataType dtype, const TensorShape& shape,
                      std::shared_ptr<TensorBuffer>* out) {
  const int64_t n = shape.num_elements();
  out->reset();
  if (n == 0) return Status();
  const size_t elem = ElementSize(dtype);
  size_t bytes;
  if (__builtin_mul_overflow(static_cast<size_t>(n), elem, &bytes)) {
    return errors::ResourceExhausted(
        "OOM when allocating tensor with shape ", shape.DebugString(),
        " and type ", DataTypeString(dtype), ": the byte size overflows");
  }
  if (bytes > static_cast<size_t>(MaxAllocationBytes())) {
    // Note [Allocation limit]
    return CheckAllocationLimit(
        bytes > static_cast<size_t>(INT64_MAX) ? INT64_MAX
                                               : static_cast<int64_t>(bytes),
        StrCat("tensor with shape ", shape.DebugString(), " and type ",
               DataTypeString(dtype)));
  }
  void* ptr = a->AllocateRaw(kAllocatorAlignment, bytes);
  if (ptr == nullptr) {
    return errors::ResourceExhausted(
        "OOM when allocating tensor with shape ", shape.DebugString(),
        " and type ", DataTypeString(dtype), " (", bytes,
        " bytes) by allocator ", a->Name(),
        "; reduce the tensor size or free memory");
  }
  if (reinterpret_cast<uintptr_t>(ptr) % EIGEN_MAX_ALIGN_BYTES != 0) {
    a->DeallocateRaw(ptr);
    return errors::Internal("Allocator ", a->Name(),
                            " returned memory not aligned to ",
                            EIGEN_MAX_ALIGN_BYTES, " bytes");
  }
  char* data = static_cast<char*>(ptr);
  if (dtype == DT_STRING) {
    tstring* strings = reinterpret_cast<tstring*>(data);
    for (int64_t i = 0; i < n; ++i) new (&strings[i]) tstring();
  } else if (dtype == DT_RESOURCE) {
    ResourceHandle* handles = reinterpret_cast<ResourceHandle*>(data);
    for (int64_t i = 0; i < n; ++i) new (&handles[i]) ResourceHandle();
  } else if (dtype == DT_VARIANT) {
    Variant* values = reinterpret_cast<Variant*>(data);
    for (int64_t i = 0; i < n; ++i) new (&values[i]) Variant();
  }
  *out = std::make_shared<TensorBuffer>(a, data, bytes, dtype, n);
  return Status();
}

}  // namespace

// ---------------------------------------------------------------------------
// Construction.

Tensor::Tensor() = default;

Tensor::Tensor(DataType type) : dtype_(type) {}

Tensor::Tensor(DataType type, const TensorShape& shape)
    : Tensor(cpu_allocator(), type, shape) {}

Tensor::Tensor(Allocator* a, DataType type, const TensorShape& shape)
    : dtype_(type), shape_(shape) {
  Tensor t;
  Status s = Allocate(type, shape, &t, a);
  if (!s.ok()) {
    LOG(ERROR) << "Tensor left without storage: " << s.message();
    return;
  }
  *this = std::move(t);
}

template <typename T>
void Tensor::InitScalar(const T& value) {
  Status s = Allocate(DataTypeToEnum<T>::value, TensorShape(), this);
  if (!s.ok()) {
    dtype_ = DataTypeToEnum<T>::value;
    LOG(ERROR) << "Scalar tensor left without storage: " << s.message();
    return;
  }
  *base<T>() = value;
}

Tensor::Tensor(float value) { InitScalar(value); }
Tensor::Tensor(double value) { InitScalar(value); }
Tensor::Tensor(int32 value) { InitScalar(value); }
Tensor::Tensor(uint32 value) { InitScalar(value); }
Tensor::Tensor(uint16 value) { InitScalar(value); }
Tensor::Tensor(uint8 value) { InitScalar(value); }
Tensor::Tensor(int16 value) { InitScalar(value); }
Tensor::Tensor(int8 value) { InitScalar(value); }
Tensor::Tensor(tstring value) { InitScalar(value); }
Tensor::Tensor(const char* value) { InitScalar(tstring(value)); }
Tensor::Tensor(complex64 value) { InitScalar(value); }
Tensor::Tensor(complex128 value) { InitScalar(value); }
Tensor::Tensor(int64 value) { InitScalar(value); }
Tensor::Tensor(uint64 value) { InitScalar(value); }
Tensor::Tensor(bool value) { InitScalar(value); }
Tensor::Tensor(half value) { InitScalar(value); }
Tensor::Tensor(bfloat16 value) { InitScalar(value); }

Status Tensor::Allocate(DataType type, const TensorShape& shape, Tensor* out,
                        Allocator* a) {
  if (!HasStorage(type)) return UnsupportedDtype(type);
  if (a == nullptr) a = cpu_allocator();
  std::shared_ptr<TensorBuffer> buf;
  OPKIT_RETURN_IF_ERROR(AllocateBuffer(a, type, shape, &buf));
  out->dtype_ = type;
  out->shape_ = shape;
  out->data_ = buf ? buf->data() : nullptr;
  out->buf_ = std::move(buf);
  return Status();
}

Tensor::Tensor(Tensor&& other) noexcept
    : dtype_(other.dtype_),
      shape_(std::move(other.shape_)),
      buf_(std::move(other.buf_)),
      data_(other.data_) {
  other.dtype_ = DT_FLOAT;
  other.shape_ = TensorShape();
  other.data_ = nullptr;
}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this != &other) {
    dtype_ = other.dtype_;
    shape_ = std::move(other.shape_);
    buf_ = std::move(other.buf_);
    data_ = other.data_;
    other.dtype_ = DT_FLOAT;
    other.shape_ = TensorShape();
    other.buf_.reset();
    other.data_ = nullptr;
  }
  return *this;
}

Tensor::~Tensor() = default;

// ---------------------------------------------------------------------------
// Properties.

size_t Tensor::TotalBytes() const {
  size_t bytes;
  if (__builtin_mul_overflow(static_cast<size_t>(NumElements()),
                             ElementSize(dtype_), &bytes)) {
    return std::numeric_limits<size_t>::max();
  }
  return bytes;
}

size_t Tensor::AllocatedBytes() const { return buf_ ? buf_->size() : 0; }

bool Tensor::IsInitialized() const {
  return HasStorage(dtype_) && (data_ != nullptr || NumElements() == 0);
}

bool Tensor::IsAligned() const {
  return reinterpret_cast<uintptr_t>(data_) % EIGEN_MAX_ALIGN_BYTES == 0;
}

bool Tensor::SharesBufferWith(const Tensor& other) const {
  return buf_ != nullptr && buf_ == other.buf_;
}

bool Tensor::RefCountIsOne() const { return buf_ != nullptr && buf_.use_count() == 1; }

bool Tensor::CopyFrom(const Tensor& other, const TensorShape& shape) {
  if (other.NumElements() != shape.num_elements()) return false;
  dtype_ = other.dtype_;
  shape_ = shape;
  buf_ = other.buf_;
  data_ = other.data_;
  return true;
}

Status Tensor::BitcastFrom(const Tensor& other, DataType dtype,
                           const TensorShape& shape) {
  if (!DataTypeCanUseMemcpy(other.dtype_) || !DataTypeCanUseMemcpy(dtype)) {
    return errors::InvalidArgument("Cannot bitcast from ",
                                   DataTypeString(other.dtype_), " to ",
                                   DataTypeString(dtype),
                                   ": both types must be plain numbers");
  }
  const size_t in_bytes = other.TotalBytes();
  size_t out_bytes;
  if (__builtin_mul_overflow(static_cast<size_t>(shape.num_elements()),
                             ElementSize(dtype), &out_bytes) ||
      in_bytes != out_bytes) {
    return errors::InvalidArgument(
        "Cannot bitcast from ", DataTypeString(other.dtype_), " to ",
        DataTypeString(dtype), ": shape ", other.shape_.DebugString(),
        " does not match ", shape.DebugString(), " (", in_bytes, " vs. ",
        out_bytes, " bytes)");
  }
  dtype_ = dtype;
  shape_ = shape;
  buf_ = other.buf_;
  data_ = other.data_;
  return Status();
}

Status Tensor::SliceWithStatus(int64_t dim0_start, int64_t dim0_limit,
                               Tensor* out) const {
  if (dims() < 1) {
    return errors::InvalidArgument("Cannot slice a scalar tensor (shape ",
                                   shape_.DebugString(), ")");
  }
  const int64_t dim0 = shape_.dim_size(0);
  if (dim0_start < 0 || dim0_start > dim0_limit || dim0_limit > dim0) {
    return errors::InvalidArgument("Slice [", dim0_start, ", ", dim0_limit,
                                   ") is out of range for dimension 0 of shape ",
                                   shape_.DebugString(),
                                   "; need 0 <= start <= limit <= ", dim0);
  }
  Tensor result;
  result.dtype_ = dtype_;
  result.shape_ = shape_;
  result.shape_.set_dim(0, dim0_limit - dim0_start);
  result.buf_ = buf_;
  result.data_ = data_;
  if (data_ != nullptr && dim0 > 0) {
    const int64_t row_elements = NumElements() / dim0;
    result.data_ = data_ + static_cast<size_t>(dim0_start * row_elements) *
                               ElementSize(dtype_);
  }
  *out = std::move(result);
  return Status();
}

Tensor Tensor::Slice(int64_t dim0_start, int64_t dim0_limit) const {
  Tensor result;
  Status s = SliceWithStatus(dim0_start, dim0_limit, &result);
  OPKIT_CHECK(s.ok()) << s.message();
  return result;
}

Tensor Tensor::SubSlice(int64_t index) const {
  OPKIT_CHECK(dims() >= 1 && index >= 0 && index < shape_.dim_size(0))
      << "SubSlice(" << index << ") of a tensor of shape " << shape_.DebugString();
  Tensor result;
  Status s = SliceWithStatus(index, index + 1, &result);
  OPKIT_CHECK(s.ok()) << s.message();
  result.shape_.RemoveDim(0);
  return result;
}

std::string_view Tensor::tensor_data() const {
  OPKIT_CHECK(DataTypeCanUseMemcpy(dtype_))
      << "tensor_data() of a " << DataTypeString(dtype_)
      << " tensor: its elements are objects, not bytes";
  if (data_ == nullptr) return std::string_view();
  return std::string_view(data_, TotalBytes());
}

// ---------------------------------------------------------------------------
// Checks behind the accessors.

Status Tensor::CheckTypeAndRank(DataType expected, int rank) const {
  if (dtype_ != expected) {
    return errors::InvalidArgument(DataTypeString(expected), " expected, got ",
                                   DataTypeString(dtype_));
  }
  if (rank >= 0 && dims() != rank) {
    return errors::InvalidArgument("Expected a tensor of rank ", rank,
                                   ", got shape ", shape_.DebugString());
  }
  if (!IsInitialized()) {
    return errors::FailedPrecondition("Tensor of type ", DataTypeString(dtype_),
                                      " and shape ", shape_.DebugString(),
                                      " has no storage (uninitialized)");
  }
  return Status();
}

void Tensor::CheckType(DataType expected) const {
  OPKIT_CHECK(dtype_ == expected) << DataTypeString(expected)
                                  << " expected, got " << DataTypeString(dtype_);
  OPKIT_CHECK(data_ != nullptr || NumElements() == 0)
      << "accessing the elements of an uninitialized tensor of shape "
      << shape_.DebugString();
}

void Tensor::CheckTypeAndIsAligned(DataType expected) const {
  CheckType(expected);
  OPKIT_CHECK(IsAligned()) << "tensor data at " << static_cast<void*>(data_)
                           << " is not aligned to " << EIGEN_MAX_ALIGN_BYTES
                           << " bytes; use the unaligned_* accessors";
}

void Tensor::CheckRank(int rank) const {
  OPKIT_CHECK(dims() == rank) << "Asked for a rank " << rank
                              << " view of a tensor of shape "
                              << shape_.DebugString();
}

void Tensor::CheckReshape(const std::vector<int64_t>& new_sizes,
                          size_t ndims) const {
  OPKIT_CHECK(new_sizes.size() == ndims)
      << "shaped<T, " << ndims << ">() given " << new_sizes.size() << " sizes";
  int64_t product = 1;
  bool ok = true;
  for (int64_t d : new_sizes) {
    if (d < 0 || __builtin_mul_overflow(product, d, &product)) ok = false;
  }
  OPKIT_CHECK(ok && product == NumElements())
      << "Cannot view a tensor of shape " << shape_.DebugString()
      << " with sizes [" << StrJoin(new_sizes, ",") << "]";
}

void Tensor::CheckIsAlignedAndSingleElement() const {
  OPKIT_CHECK(IsAligned()) << "tensor data is not aligned";
  OPKIT_CHECK(NumElements() == 1)
      << "Must have a one element tensor, got shape " << shape_.DebugString();
}

std::vector<int64_t> Tensor::FlatInnerDims(const std::vector<int64_t>& orig,
                                           int num_out_dims) {
  std::vector<int64_t> out(num_out_dims, 1);
  const int offset = static_cast<int>(orig.size()) - num_out_dims;
  for (int i = num_out_dims - 1; i >= 0; --i) {
    const int in = i + offset;
    out[i] = in < 0 ? 1 : orig[in];
  }
  // The folded dimensions' product is the element count divided by the
  // kept ones, so it cannot overflow for an existing tensor; with a zero
  // somewhere the fold may be large but then the product check is exact.
  for (int in = 0; in < offset; ++in) out[0] *= orig[in];
  return out;
}

std::vector<int64_t> Tensor::FlatOuterDims(const std::vector<int64_t>& orig,
                                           int num_out_dims) {
  std::vector<int64_t> out(num_out_dims, 1);
  for (int i = 0; i < num_out_dims; ++i) {
    out[i] = i < static_cast<int>(orig.size()) ? orig[i] : 1;
  }
  for (int in = num_out_dims; in < static_cast<int>(orig.size()); ++in) {
    out[num_out_dims - 1] *= orig[in];
  }
  return out;
}

std::vector<int64_t> Tensor::FlatInnerOuterDims(const std::vector<int64_t>& orig,
                                                int64_t begin, int num_out_dims) {
  OPKIT_CHECK(begin >= 0 && begin <= TensorShape::kMaxDimensions)
      << "flat_inner_outer_dims: begin " << begin << " out of range";
  // Pad with leading 1s so that dimension `begin` of the original lands at
  // index 0 of the result, then fold.
  std::vector<int64_t> outer = FlatOuterDims(orig, static_cast<int>(begin) + num_out_dims);
  return FlatInnerDims(outer, num_out_dims);
}

// ---------------------------------------------------------------------------
// Shapes from tensors.

namespace {

template <typename Shape, typename Builder>
Status ShapeFromTensor(const Tensor& t, Shape* out, Builder build) {
  if (t.dims() != 1) {
    return errors::InvalidArgument(
        "shape must be a vector of int32 or int64, got shape ",
        t.shape().DebugString());
  }
  if (!t.IsInitialized()) {
    return errors::FailedPrecondition("shape tensor is uninitialized");
  }
  if (t.dtype() == DT_INT32) {
    return build(static_cast<const int32*>(t.data()), t.NumElements(), out);
  }
  if (t.dtype() == DT_INT64) {
    return build(static_cast<const int64*>(t.data()), t.NumElements(), out);
  }
  return errors::InvalidArgument(
      "shape must be a vector of int32 or int64, got a vector of ",
      DataTypeString(t.dtype()));
}

}  // namespace

Status MakeShapeFromTensor(const Tensor& shape, TensorShape* out) {
  return ShapeFromTensor(shape, out, [](const auto* dims, int64_t n, TensorShape* o) {
    return TensorShapeUtils::MakeShape(dims, n, o);
  });
}

Status MakeShapeFromTensor(const Tensor& shape, PartialTensorShape* out) {
  // A scalar -1 stands for an unknown rank.
  if (shape.dims() == 0 && shape.IsInitialized() &&
      ((shape.dtype() == DT_INT32 && shape.scalar<int32>()() == -1) ||
       (shape.dtype() == DT_INT64 && shape.scalar<int64>()() == -1))) {
    *out = PartialTensorShape();
    return Status();
  }
  return ShapeFromTensor(shape, out,
                         [](const auto* dims, int64_t n, PartialTensorShape* o) {
                           return TensorShapeUtils::MakeShape(dims, n, o);
                         });
}

// ---------------------------------------------------------------------------
// Copies.

Status DeepCopy(const Tensor& src, Tensor* out, Allocator* a) {
  if (!src.IsInitialized()) {
    return errors::FailedPrecondition(
        "Cannot copy an uninitialized tensor of type ",
        DataTypeString(src.dtype()), " and shape ", src.shape().DebugString());
  }
  Tensor copy;
  OPKIT_RETURN_IF_ERROR(Tensor::Allocate(src.dtype(), src.shape(), &copy, a));
  if (src.NumElements() > 0) {
    if (src.dtype() == DT_STRING) {
      const tstring* from = static_cast<const tstring*>(src.data());
      tstring* to = static_cast<tstring*>(copy.data());
      std::copy(from, from + src.NumElements(), to);
    } else if (src.dtype() == DT_RESOURCE) {
      const ResourceHandle* from =
          static_cast<const ResourceHandle*>(src.data());
      ResourceHandle* to = static_cast<ResourceHandle*>(copy.data());
      std::copy(from, from + src.NumElements(), to);
    } else if (src.dtype() == DT_VARIANT) {
      const Variant* from = static_cast<const Variant*>(src.data());
      Variant* to = static_cast<Variant*>(copy.data());
      std::copy(from, from + src.NumElements(), to);
    } else {
      std::memcpy(copy.data(), src.data(), src.TotalBytes());
    }
  }
  *out = std::move(copy);
  return Status();
}

Tensor DeepCopy(const Tensor& src) {
  Tensor out(src.dtype());
  Status s = DeepCopy(src, &out);
  if (!s.ok()) LOG(ERROR) << "DeepCopy failed: " << s.message();
  return out;
}

}  // namespace opkit

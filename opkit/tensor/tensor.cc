// Tensor: storage, views, proto conversion and printing.
#include "opkit/tensor/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>

#include "opkit/core/errors.h"
#include "opkit/core/logging.h"
#include "opkit/core/str_util.h"

namespace opkit {
namespace internal {

// One allocation. For DT_STRING it owns `num_elements` constructed strings,
// destroyed before the memory goes back to the allocator.
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

}  // namespace internal

namespace {

using internal::TensorBuffer;

// Bytes per element in a tensor buffer; 0 when `dtype` has no storage here.
size_t ElementSize(DataType dtype) {
  if (dtype == DT_STRING) return sizeof(tstring);
  return static_cast<size_t>(DataTypeSize(dtype));
}

bool HasStorage(DataType dtype) { return ElementSize(dtype) > 0; }

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
  if (dtype == DT_RESOURCE || dtype == DT_VARIANT) {
    return errors::InvalidArgument("Tensors of dtype ", DataTypeString(dtype),
                                   " are not supported by opkit yet");
  }
  return errors::InvalidArgument("Cannot allocate a tensor of dtype ",
                                 DataTypeString(dtype));
}

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
// Proto conversion. Each *Field struct says which TensorProto field holds a
// dtype's values and how one value converts.

namespace {

template <typename T>
T FromInt32(int32 v) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(v);
  } else {
    return T(static_cast<typename T::value_type>(v));
  }
}

template <typename T>
int32 ToInt32(const T& v) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<int32>(v);
  } else {
    return static_cast<int32>(v.value);
  }
}

struct FloatField {
  using T = float;
  static constexpr const char* kName = "float_val";
  static int64_t Count(const TensorProto& p) { return p.float_val_size(); }
  static T Get(const TensorProto& p, int64_t i) { return p.float_val(i); }
  static void Add(TensorProto* p, const T& v) { p->add_float_val(v); }
};
struct DoubleField {
  using T = double;
  static constexpr const char* kName = "double_val";
  static int64_t Count(const TensorProto& p) { return p.double_val_size(); }
  static T Get(const TensorProto& p, int64_t i) { return p.double_val(i); }
  static void Add(TensorProto* p, const T& v) { p->add_double_val(v); }
};
template <typename Elem>
struct IntField {
  using T = Elem;
  static constexpr const char* kName = "int_val";
  static int64_t Count(const TensorProto& p) { return p.int_val_size(); }
  static T Get(const TensorProto& p, int64_t i) { return FromInt32<T>(p.int_val(i)); }
  static void Add(TensorProto* p, const T& v) { p->add_int_val(ToInt32(v)); }
};
struct Int64Field {
  using T = int64;
  static constexpr const char* kName = "int64_val";
  static int64_t Count(const TensorProto& p) { return p.int64_val_size(); }
  static T Get(const TensorProto& p, int64_t i) { return p.int64_val(i); }
  static void Add(TensorProto* p, const T& v) { p->add_int64_val(v); }
};
struct UInt32Field {
  using T = uint32;
  static constexpr const char* kName = "uint32_val";
  static int64_t Count(const TensorProto& p) { return p.uint32_val_size(); }
  static T Get(const TensorProto& p, int64_t i) { return p.uint32_val(i); }
  static void Add(TensorProto* p, const T& v) { p->add_uint32_val(v); }
};
struct UInt64Field {
  using T = uint64;
  static constexpr const char* kName = "uint64_val";
  static int64_t Count(const TensorProto& p) { return p.uint64_val_size(); }
  static T Get(const TensorProto& p, int64_t i) { return p.uint64_val(i); }
  static void Add(TensorProto* p, const T& v) { p->add_uint64_val(v); }
};
struct BoolField {
  using T = bool;
  static constexpr const char* kName = "bool_val";
  static int64_t Count(const TensorProto& p) { return p.bool_val_size(); }
  static T Get(const TensorProto& p, int64_t i) { return p.bool_val(i); }
  static void Add(TensorProto* p, const T& v) { p->add_bool_val(v); }
};
struct StringField {
  using T = tstring;
  static constexpr const char* kName = "string_val";
  static int64_t Count(const TensorProto& p) { return p.string_val_size(); }
  static const T& Get(const TensorProto& p, int64_t i) { return p.string_val(i); }
  static void Add(TensorProto* p, const T& v) { p->add_string_val(v); }
};
// half and bfloat16 travel as their 16 bits in half_val.
template <typename Elem>
struct HalfBitsField {
  using T = Elem;
  static constexpr const char* kName = "half_val";
  static int64_t Count(const TensorProto& p) { return p.half_val_size(); }
  static T Get(const TensorProto& p, int64_t i) {
    return Eigen::numext::bit_cast<T>(static_cast<uint16_t>(p.half_val(i)));
  }
  static void Add(TensorProto* p, const T& v) {
    p->add_half_val(static_cast<int32>(Eigen::numext::bit_cast<uint16_t>(v)));
  }
};
struct Complex64Field {
  using T = complex64;
  static constexpr const char* kName = "scomplex_val";
  static int64_t Count(const TensorProto& p) { return p.scomplex_val_size() / 2; }
  static int64_t RawCount(const TensorProto& p) { return p.scomplex_val_size(); }
  static T Get(const TensorProto& p, int64_t i) {
    return T(p.scomplex_val(2 * i), p.scomplex_val(2 * i + 1));
  }
  static void Add(TensorProto* p, const T& v) {
    p->add_scomplex_val(v.real());
    p->add_scomplex_val(v.imag());
  }
};
struct Complex128Field {
  using T = complex128;
  static constexpr const char* kName = "dcomplex_val";
  static int64_t Count(const TensorProto& p) { return p.dcomplex_val_size() / 2; }
  static int64_t RawCount(const TensorProto& p) { return p.dcomplex_val_size(); }
  static T Get(const TensorProto& p, int64_t i) {
    return T(p.dcomplex_val(2 * i), p.dcomplex_val(2 * i + 1));
  }
  static void Add(TensorProto* p, const T& v) {
    p->add_dcomplex_val(v.real());
    p->add_dcomplex_val(v.imag());
  }
};
// float8 types: one byte per value in the float8_val bytes field.
struct Float8Field {
  using T = uint8;
  static constexpr const char* kName = "float8_val";
  static int64_t Count(const TensorProto& p) {
    return static_cast<int64_t>(p.float8_val().size());
  }
  static T Get(const TensorProto& p, int64_t i) {
    return static_cast<uint8>(p.float8_val()[i]);
  }
  static void Add(TensorProto* p, const T& v) {
    p->mutable_float8_val()->push_back(static_cast<char>(v));
  }
};

template <typename F>
constexpr bool kIsComplexField =
    std::is_same_v<F, Complex64Field> || std::is_same_v<F, Complex128Field>;

// Calls fn(Field{}) for the proto field of `dtype`; false when the dtype
// has no field (invalid, ref, resource, variant).
template <typename Fn>
bool VisitField(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_FLOAT: fn(FloatField{}); return true;
    case DT_DOUBLE: fn(DoubleField{}); return true;
    case DT_INT32: fn(IntField<int32>{}); return true;
    case DT_UINT8: fn(IntField<uint8>{}); return true;
    case DT_INT16: fn(IntField<int16>{}); return true;
    case DT_INT8: fn(IntField<int8>{}); return true;
    case DT_UINT16: fn(IntField<uint16>{}); return true;
    case DT_QINT8: fn(IntField<qint8>{}); return true;
    case DT_QUINT8: fn(IntField<quint8>{}); return true;
    case DT_QINT16: fn(IntField<qint16>{}); return true;
    case DT_QUINT16: fn(IntField<quint16>{}); return true;
    case DT_QINT32: fn(IntField<qint32>{}); return true;
    case DT_INT4:
    case DT_INT2: fn(IntField<int8>{}); return true;
    case DT_UINT4:
    case DT_UINT2: fn(IntField<uint8>{}); return true;
    case DT_INT64: fn(Int64Field{}); return true;
    case DT_UINT32: fn(UInt32Field{}); return true;
    case DT_UINT64: fn(UInt64Field{}); return true;
    case DT_BOOL: fn(BoolField{}); return true;
    case DT_STRING: fn(StringField{}); return true;
    case DT_HALF: fn(HalfBitsField<half>{}); return true;
    case DT_BFLOAT16: fn(HalfBitsField<bfloat16>{}); return true;
    case DT_COMPLEX64: fn(Complex64Field{}); return true;
    case DT_COMPLEX128: fn(Complex128Field{}); return true;
    case DT_FLOAT8_E5M2:
    case DT_FLOAT8_E4M3FN:
    case DT_FLOAT8_E4M3FNUZ:
    case DT_FLOAT8_E4M3B11FNUZ:
    case DT_FLOAT8_E5M2FNUZ: fn(Float8Field{}); return true;
    default: return false;
  }
}

void PutVarint32(std::string* out, uint32_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

bool GetVarint32(std::string_view* in, uint32_t* v) {
  uint32_t result = 0;
  for (int shift = 0; shift <= 28 && !in->empty(); shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    if (shift == 28 && byte > 0x0f) return false;  // More than 32 bits.
    result |= static_cast<uint32_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

// TensorFlow's string-list encoding: every length as a varint32, then
// every string's bytes.
void EncodeStrings(const tstring* strings, int64_t n, std::string* out) {
  out->clear();
  for (int64_t i = 0; i < n; ++i) {
    PutVarint32(out, static_cast<uint32_t>(strings[i].size()));
  }
  for (int64_t i = 0; i < n; ++i) out->append(strings[i]);
}

Status DecodeStrings(std::string_view in, int64_t n, tstring* strings) {
  std::vector<uint32_t> sizes(static_cast<size_t>(n));
  uint64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!GetVarint32(&in, &sizes[i])) {
      return errors::InvalidArgument(
          "Invalid TensorProto: tensor_content of a string tensor is truncated "
          "or corrupt: cannot read the length of string ", i, " of ", n);
    }
    total += sizes[i];
  }
  if (total != in.size()) {
    return errors::InvalidArgument(
        "Invalid TensorProto: tensor_content of a string tensor declares ",
        total, " bytes of string data but holds ", in.size());
  }
  for (int64_t i = 0; i < n; ++i) {
    strings[i].assign(in.data(), sizes[i]);
    in.remove_prefix(sizes[i]);
  }
  return Status();
}

}  // namespace

Status Tensor::BuildFromProto(const TensorProto& proto, Tensor* out,
                              Allocator* a) {
  const int raw_dtype = static_cast<int>(proto.dtype());
  if (raw_dtype == DT_INVALID || !DataTypeIsValid(raw_dtype)) {
    return errors::InvalidArgument(
        "Invalid TensorProto: dtype ", DataTypeString(proto.dtype()),
        " is not a valid tensor element type; set dtype to e.g. DT_FLOAT");
  }
  const DataType dtype = proto.dtype();
  if (!HasStorage(dtype)) {
    return errors::InvalidArgument("Invalid TensorProto: ",
                                   UnsupportedDtype(dtype).message());
  }
  TensorShape shape;
  Status shape_status = TensorShape::FromProto(proto.tensor_shape(), &shape);
  if (!shape_status.ok()) {
    return errors::InvalidArgument("Invalid TensorProto: tensor_shape: ",
                                   shape_status.message());
  }
  const int64_t n = shape.num_elements();

  Tensor result;
  OPKIT_RETURN_IF_ERROR(Allocate(dtype, shape, &result, a));

  if (!proto.tensor_content().empty()) {
    const std::string& content = proto.tensor_content();
    if (dtype == DT_STRING) {
      OPKIT_RETURN_IF_ERROR(DecodeStrings(content, n, result.base<tstring>()));
    } else {
      const size_t expected = result.TotalBytes();
      if (content.size() != expected) {
        return errors::InvalidArgument(
            "Invalid TensorProto: tensor_content holds ", content.size(),
            " bytes but a ", DataTypeString(dtype), " tensor of shape ",
            shape.DebugString(), " needs ", expected, " (",
            n, " elements of ", DataTypeSize(dtype), " bytes)");
      }
      if (expected > 0) std::memcpy(result.data_, content.data(), expected);
      if (dtype == DT_BOOL) {
        // Bytes other than 0 and 1 are not valid bools; normalise them.
        uint8_t* bytes = reinterpret_cast<uint8_t*>(result.data_);
        for (int64_t i = 0; i < n; ++i) bytes[i] = bytes[i] != 0 ? 1 : 0;
      }
    }
    *out = std::move(result);
    return Status();
  }

  Status status;
  VisitField(dtype, [&](auto field) {
    using F = decltype(field);
    using T = typename F::T;
    if constexpr (kIsComplexField<F>) {
      if (F::RawCount(proto) % 2 != 0) {
        status = errors::InvalidArgument(
            "Invalid TensorProto: ", F::kName, " has ", F::RawCount(proto),
            " values; complex numbers need (real, imaginary) pairs");
        return;
      }
    }
    const int64_t count = F::Count(proto);
    if (count > n) {
      status = errors::InvalidArgument(
          "Invalid TensorProto: ", F::kName, " has ", count,
          " values but a tensor of shape ", shape.DebugString(), " has only ",
          n, " elements");
      return;
    }
    T* data = result.base<T>();
    if (count == 0) {
      for (int64_t i = 0; i < n; ++i) data[i] = T();
      return;
    }
    for (int64_t i = 0; i < count; ++i) data[i] = F::Get(proto, i);
    // TensorFlow's compact form: the last value repeats to the end.
    for (int64_t i = count; i < n; ++i) data[i] = data[count - 1];
  });
  OPKIT_RETURN_IF_ERROR(status);
  *out = std::move(result);
  return Status();
}

bool Tensor::FromProto(const TensorProto& proto) {
  return FromProto(cpu_allocator(), proto);
}

bool Tensor::FromProto(Allocator* a, const TensorProto& proto) {
  Status s = BuildFromProto(proto, this, a);
  if (!s.ok()) VLOG(1) << "Tensor::FromProto: " << s.message();
  return s.ok();
}

void Tensor::AsProtoField(TensorProto* proto) const {
  proto->Clear();
  proto->set_dtype(dtype_);
  shape_.AsProto(proto->mutable_tensor_shape());
  if (data_ == nullptr) return;
  const int64_t n = NumElements();
  VisitField(dtype_, [&](auto field) {
    using F = decltype(field);
    using T = typename F::T;
    const T* data = base<const T>();
    for (int64_t i = 0; i < n; ++i) F::Add(proto, data[i]);
  });
}

void Tensor::AsProtoTensorContent(TensorProto* proto) const {
  proto->Clear();
  proto->set_dtype(dtype_);
  shape_.AsProto(proto->mutable_tensor_shape());
  if (data_ == nullptr) return;
  if (dtype_ == DT_STRING) {
    EncodeStrings(base<const tstring>(), NumElements(),
                  proto->mutable_tensor_content());
  } else if (DataTypeCanUseMemcpy(dtype_)) {
    proto->set_tensor_content(data_, TotalBytes());
  }
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

// ---------------------------------------------------------------------------
// Printing, in TensorFlow's formats.

namespace {

// absl::StrCat's float format: like printf("%.6g"), "nan" for every NaN.
std::string SixDigits(double v) {
  if (std::isnan(v)) return "nan";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

// absl::Utf8SafeCEscape: C escapes for control characters, quotes and
// backslash; bytes >= 0x80 pass through so UTF-8 text stays readable.
std::string Utf8SafeCEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\"': out += "\\\""; break;
      case '\'': out += "\\'"; break;
      case '\\': out += "\\\\"; break;
      default:
        if (u < 0x80 && (u < 0x20 || u == 0x7f)) {
          char buf[5];
          std::snprintf(buf, sizeof(buf), "\\%03o", u);
          out += buf;
        } else {
          out.push_back(c);
        }
    }
  }
  return out;
}

// Prints element i of a tensor's storage.
using ElementPrinter = std::function<std::string(int64_t)>;

// The v1 layout: "[1 2][3 4]", stopping after `limit` elements.
void PrintDimV1(const std::vector<int64_t>& shape, size_t dim, int64_t limit,
                const ElementPrinter& print, int64_t* index, std::string* out) {
  if (*index >= limit) return;
  const int64_t count = shape[dim];
  if (dim + 1 == shape.size()) {
    for (int64_t i = 0; i < count; ++i) {
      if (*index >= limit) {
        if (dim != 0) *out += "...";
        return;
      }
      if (i > 0) *out += " ";
      *out += print((*index)++);
    }
    return;
  }
  for (int64_t i = 0; i < count && *index < limit; ++i) {
    // Once `limit` elements are out nothing more is printed, so stopping
    // early only saves looping over the rest of a large tensor.
    *out += "[";
    PrintDimV1(shape, dim + 1, limit, print, index, out);
    *out += "]";
  }
}

void AppendDimSpacing(size_t dim, size_t rank, std::string* out) {
  if (dim + 1 == rank) {
    *out += " ";
    return;
  }
  out->append(rank - dim - 1, '\n');
  out->append(dim + 1, ' ');
}

// The tf.print layout: nested brackets, the first and last `edge` entries
// of each dimension with "..." between.
void PrintDimV2(const std::vector<int64_t>& shape, size_t dim, int64_t edge,
                const ElementPrinter& print, int64_t offset, std::string* out) {
  const size_t rank = shape.size();
  if (dim == rank) {
    *out += print(offset);
    return;
  }
  *out += "[";
  const int64_t count = shape[dim];
  int64_t stride = 1;
  for (size_t i = dim + 1; i < rank; ++i) stride *= shape[i];
  for (int64_t i = 0; i < edge && i < count; ++i) {
    if (i > 0) AppendDimSpacing(dim, rank, out);
    PrintDimV2(shape, dim + 1, edge, print, offset + stride * i, out);
  }
  if (count > 2 * edge) {
    AppendDimSpacing(dim, rank, out);
    *out += "...";
  }
  for (int64_t i = std::max(edge, count - edge); i < count; ++i) {
    AppendDimSpacing(dim, rank, out);
    PrintDimV2(shape, dim + 1, edge, print, offset + stride * i, out);
  }
  *out += "]";
}

std::string SummarizeElements(const TensorShape& shape, int64_t limit,
                              int64_t num_elements, bool print_v2,
                              const ElementPrinter& print) {
  std::string out;
  const std::vector<int64_t>& dims = shape.dim_sizes();
  if (dims.empty()) {
    for (int64_t i = 0; i < limit; ++i) {
      if (i > 0) out += " ";
      out += print(i);
    }
    if (num_elements > limit) out += "...";
    return out;
  }
  if (print_v2) {
    PrintDimV2(dims, 0, limit, print, 0, &out);
  } else {
    int64_t index = 0;
    PrintDimV1(dims, 0, limit, print, &index, &out);
    if (num_elements > limit) out += "...";
  }
  return out;
}

template <typename T>
ElementPrinter IntegerPrinter(const void* data) {
  const T* p = static_cast<const T*>(data);
  return [p](int64_t i) { return std::to_string(p[i]); };
}

template <typename T>
ElementPrinter FloatPrinter(const void* data) {
  const T* p = static_cast<const T*>(data);
  return [p](int64_t i) { return SixDigits(static_cast<double>(static_cast<float>(p[i]))); };
}

}  // namespace

std::string Tensor::SummarizeValue(int64_t max_entries, bool print_v2) const {
  const int64_t num_elements = NumElements();
  if (max_entries < 0) max_entries = num_elements;
  const int64_t limit = std::min(max_entries, num_elements);
  if (limit > 0 && data_ == nullptr) {
    return StrCat("uninitialized Tensor of ", num_elements, " elements of type ",
                  static_cast<int>(dtype_));
  }
  ElementPrinter print;
  switch (dtype_) {
    case DT_FLOAT:
      print = [p = base<const float>()](int64_t i) { return SixDigits(p[i]); };
      break;
    case DT_DOUBLE:
      print = [p = base<const double>()](int64_t i) { return SixDigits(p[i]); };
      break;
    case DT_HALF:
      print = FloatPrinter<half>(data_);
      break;
    case DT_BFLOAT16:
      print = FloatPrinter<bfloat16>(data_);
      break;
    case DT_INT32:
      print = IntegerPrinter<int32>(data_);
      break;
    case DT_UINT32:
      print = IntegerPrinter<uint32>(data_);
      break;
    case DT_INT64:
      print = IntegerPrinter<int64>(data_);
      break;
    case DT_UINT64:
      print = IntegerPrinter<uint64>(data_);
      break;
    // The quantized types print as their stored integers, except qint32,
    // which TensorFlow leaves as "?".
    case DT_UINT8:
    case DT_QUINT8:
    case DT_UINT4:
    case DT_UINT2:
      print = [p = reinterpret_cast<const uint8*>(data_)](int64_t i) {
        return std::to_string(static_cast<int>(p[i]));
      };
      break;
    case DT_INT8:
    case DT_QINT8:
    case DT_INT4:
    case DT_INT2:
      print = [p = reinterpret_cast<const int8*>(data_)](int64_t i) {
        return std::to_string(static_cast<int>(p[i]));
      };
      break;
    case DT_UINT16:
    case DT_QUINT16:
      print = IntegerPrinter<uint16>(data_);
      break;
    case DT_INT16:
    case DT_QINT16:
      print = IntegerPrinter<int16>(data_);
      break;
    case DT_BOOL:
      // Read as bytes: a kernel may have stored a byte that is not 0 or 1.
      print = [p = reinterpret_cast<const uint8*>(data_)](int64_t i) {
        return std::string(p[i] != 0 ? "1" : "0");
      };
      break;
    case DT_STRING:
      print = [p = base<const tstring>(), print_v2](int64_t i) {
        return print_v2 ? "\"" + Utf8SafeCEscape(p[i]) + "\"" : Utf8SafeCEscape(p[i]);
      };
      break;
    default: {
      // Complex, qint32, float8 and types without storage: "?" per element.
      std::string out;
      if (print_v2 && dims() > 0) out += "[";
      for (int64_t i = 0; i < limit; ++i) {
        if (i > 0) out += " ";
        out += "?";
      }
      if (max_entries < num_elements) out += "...";
      if (print_v2 && dims() > 0) out += "]";
      return out;
    }
  }
  return SummarizeElements(shape_, limit, num_elements, print_v2, print);
}

std::string Tensor::DebugString(int num_values) const {
  return StrCat("Tensor<type: ", DataTypeString(dtype_), " shape: ",
                shape_.DebugString(), " values: ", SummarizeValue(num_values),
                ">");
}

std::string Tensor::DeviceSafeDebugString() const {
  return StrCat("Tensor<type: ", DataTypeString(dtype_), " shape: ",
                shape_.DebugString(), ">");
}

}  // namespace opkit

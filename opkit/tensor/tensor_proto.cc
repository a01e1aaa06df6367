// Tensor to and from TensorProto: the typed value fields (with TensorFlow's
// compact form, where the last value repeats), tensor_content (with
// TensorFlow's encoding of string lists), and the checks that keep a
// malformed proto from building a bad tensor.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/core/logging.h"
#include "opkit/tensor/internal/tensor_storage.h"
#include "opkit/tensor/resource_handle.h"
#include "opkit/tensor/tensor.h"

namespace opkit {

using internal::HasStorage;
using internal::UnsupportedDtype;

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
struct ResourceHandleField {
  using T = ResourceHandle;
  static constexpr const char* kName = "resource_handle_val";
  static int64_t Count(const TensorProto& p) {
    return p.resource_handle_val_size();
  }
  static T Get(const TensorProto& p, int64_t i) {
    return ResourceHandle(p.resource_handle_val(i));
  }
  static void Add(TensorProto* p, const T& v) {
    v.AsProto(p->add_resource_handle_val());
  }
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
    case DT_RESOURCE: fn(ResourceHandleField{}); return true;
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
  if (dtype == DT_VARIANT) {
    // Variant values are C++ objects made by kernels (a TensorList, ...);
    // TensorFlow's serialised variants (variant_val) are not read.
    return errors::InvalidArgument(
        "Invalid TensorProto: variant tensors cannot be read from a "
        "TensorProto in opkit; build the value with the ops that make it "
        "(e.g. TensorListReserve, TensorListFromTensor)");
  }
  if (dtype == DT_RESOURCE) {
    // ResourceHandle's proto constructor cannot fail, so the shapes it
    // carries are checked here (TensorFlow's TFSA-2022-030).
    for (int i = 0; i < proto.resource_handle_val_size(); ++i) {
      const auto& dtypes_and_shapes =
          proto.resource_handle_val(i).dtypes_and_shapes();
      for (int j = 0; j < dtypes_and_shapes.size(); ++j) {
        Status s = PartialTensorShape::IsValidShape(dtypes_and_shapes[j].shape());
        if (!s.ok()) {
          return errors::InvalidArgument(
              "Invalid TensorProto: resource_handle_val[", i,
              "].dtypes_and_shapes[", j, "].shape: ", s.message(),
              "; give each dimension a size >= -1 (-1 = unknown)");
        }
      }
    }
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
    } else if (dtype == DT_RESOURCE) {
      return errors::InvalidArgument(
          "Invalid TensorProto: a resource tensor's handles must be in "
          "resource_handle_val; tensor_content is not supported for it");
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
  } else if (dtype_ == DT_RESOURCE) {
    // Handles have no byte encoding here; they go in their typed field.
    for (int64_t i = 0; i < NumElements(); ++i) {
      ResourceHandleField::Add(proto, base<const ResourceHandle>()[i]);
    }
  } else if (DataTypeCanUseMemcpy(dtype_)) {
    proto->set_tensor_content(data_, TotalBytes());
  }
}

}  // namespace opkit

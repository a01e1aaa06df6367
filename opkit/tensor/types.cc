// DataType names, sizes, predicates and the named type sets.
#include "opkit/tensor/types.h"

#include <cstddef>
#include <utility>

#include "opkit/core/str_util.h"

namespace opkit {
namespace {

constexpr int kRefOffset = 100;

struct TypeName {
  DataType dtype;
  const char* name;
};

// Canonical names of the base types, in enum order. The float8 and sub-byte
// integer names are the ones TensorFlow (and ml_dtypes) print.
constexpr TypeName kBaseTypeNames[] = {
    {DT_FLOAT, "float"},
    {DT_DOUBLE, "double"},
    {DT_INT32, "int32"},
    {DT_UINT8, "uint8"},
    {DT_INT16, "int16"},
    {DT_INT8, "int8"},
    {DT_STRING, "string"},
    {DT_COMPLEX64, "complex64"},
    {DT_INT64, "int64"},
    {DT_BOOL, "bool"},
    {DT_QINT8, "qint8"},
    {DT_QUINT8, "quint8"},
    {DT_QINT32, "qint32"},
    {DT_BFLOAT16, "bfloat16"},
    {DT_QINT16, "qint16"},
    {DT_QUINT16, "quint16"},
    {DT_UINT16, "uint16"},
    {DT_COMPLEX128, "complex128"},
    {DT_HALF, "half"},
    {DT_RESOURCE, "resource"},
    {DT_VARIANT, "variant"},
    {DT_UINT32, "uint32"},
    {DT_UINT64, "uint64"},
    {DT_FLOAT8_E5M2, "float8_e5m2"},
    {DT_FLOAT8_E4M3FN, "float8_e4m3fn"},
    {DT_FLOAT8_E4M3FNUZ, "float8_e4m3fnuz"},
    {DT_FLOAT8_E4M3B11FNUZ, "float8_e4m3b11fnuz"},
    {DT_FLOAT8_E5M2FNUZ, "float8_e5m2fnuz"},
    {DT_INT4, "int4"},
    {DT_UINT4, "uint4"},
    {DT_INT2, "int2"},
    {DT_UINT2, "uint2"},
};

// Extra spellings TensorFlow's parser accepts (numpy-style); never printed.
constexpr TypeName kAliases[] = {
    {DT_FLOAT, "float32"},
    {DT_DOUBLE, "float64"},
    {DT_HALF, "float16"},
};

const char* BaseTypeName(DataType dtype) {
  for (const TypeName& t : kBaseTypeNames) {
    if (t.dtype == dtype) return t.name;
  }
  return nullptr;
}

bool BaseTypeFromName(std::string_view name, DataType* dtype) {
  for (const TypeName& t : kBaseTypeNames) {
    if (name == t.name) {
      *dtype = t.dtype;
      return true;
    }
  }
  for (const TypeName& t : kAliases) {
    if (name == t.name) {
      *dtype = t.dtype;
      return true;
    }
  }
  return false;
}

// Builds a set in enum order from a membership predicate, so that the sets
// print and expand in the order the op-definition grammar requires.
template <typename Pred>
DataTypeVector EnumOrdered(Pred in_set) {
  DataTypeVector out;
  for (const TypeName& t : kBaseTypeNames) {
    if (in_set(t.dtype)) out.push_back(t.dtype);
  }
  return out;
}

bool IsRealNumberType(DataType dt) {
  switch (dt) {
    case DT_FLOAT:
    case DT_DOUBLE:
    case DT_INT32:
    case DT_UINT8:
    case DT_INT16:
    case DT_INT8:
    case DT_INT64:
    case DT_BFLOAT16:
    case DT_UINT16:
    case DT_HALF:
    case DT_UINT32:
    case DT_UINT64:
      return true;
    default:
      return false;
  }
}

// TensorFlow's NumberTypes: the real numbers, complex, and the quantized
// types other than qint16/quint16 (which it adds only in later releases).
bool IsNumberType(DataType dt) {
  switch (dt) {
    case DT_COMPLEX64:
    case DT_COMPLEX128:
    case DT_QINT8:
    case DT_QUINT8:
    case DT_QINT32:
      return true;
    default:
      return IsRealNumberType(dt);
  }
}

// TensorFlow's AllTypes: every base type with a C++ element type in its
// 2.6 release (enum values 1..23); float8 and sub-byte integers are not in it.
bool IsInAllTypes(DataType dt) { return dt >= DT_FLOAT && dt <= DT_UINT64; }

}  // namespace

std::string DataTypeString(DataType dtype) {
  if (IsRefType(dtype)) {
    const char* base = BaseTypeName(RemoveRefType(dtype));
    if (base != nullptr) return StrCat(base, "_ref");
  } else if (dtype == DT_INVALID) {
    return "INVALID";
  } else if (const char* base = BaseTypeName(dtype)) {
    return base;
  }
  return StrCat("unknown dtype enum (", static_cast<int>(dtype), ")");
}

bool DataTypeFromString(std::string_view name, DataType* dtype) {
  constexpr std::string_view kRefSuffix = "_ref";
  if (name.size() > kRefSuffix.size() &&
      name.substr(name.size() - kRefSuffix.size()) == kRefSuffix) {
    DataType base;
    if (!BaseTypeFromName(name.substr(0, name.size() - kRefSuffix.size()),
                          &base)) {
      return false;
    }
    *dtype = MakeRefType(base);
    return true;
  }
  return BaseTypeFromName(name, dtype);
}

std::string DataTypeSliceString(const DataTypeVector& types) {
  std::string out;
  for (size_t i = 0; i < types.size(); ++i) {
    if (i > 0) out += ", ";
    out += DataTypeString(types[i]);
  }
  return out;
}

int DataTypeSize(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
      return sizeof(float);
    case DT_DOUBLE:
      return sizeof(double);
    case DT_INT32:
      return sizeof(int32);
    case DT_UINT32:
      return sizeof(uint32);
    case DT_UINT8:
      return sizeof(uint8);
    case DT_UINT16:
      return sizeof(uint16);
    case DT_INT16:
      return sizeof(int16);
    case DT_INT8:
      return sizeof(int8);
    case DT_COMPLEX64:
      return sizeof(complex64);
    case DT_COMPLEX128:
      return sizeof(complex128);
    case DT_INT64:
      return sizeof(int64);
    case DT_UINT64:
      return sizeof(uint64);
    case DT_BOOL:
      return sizeof(bool);
    case DT_QINT8:
      return sizeof(qint8);
    case DT_QUINT8:
      return sizeof(quint8);
    case DT_QINT16:
      return sizeof(qint16);
    case DT_QUINT16:
      return sizeof(quint16);
    case DT_QINT32:
      return sizeof(qint32);
    case DT_BFLOAT16:
      return sizeof(bfloat16);
    case DT_HALF:
      return sizeof(half);
    // One element per byte, as TensorFlow and ml_dtypes store them.
    case DT_FLOAT8_E5M2:
    case DT_FLOAT8_E4M3FN:
    case DT_FLOAT8_E4M3FNUZ:
    case DT_FLOAT8_E4M3B11FNUZ:
    case DT_FLOAT8_E5M2FNUZ:
    case DT_INT4:
    case DT_UINT4:
    case DT_INT2:
    case DT_UINT2:
      return 1;
    default:
      return 0;
  }
}

bool DataTypeIsValid(int dtype) {
  if (dtype > kRefOffset) dtype -= kRefOffset;
  return dtype == DT_INVALID ? false : BaseTypeName(static_cast<DataType>(dtype)) != nullptr;
}

bool DataTypeIsFloating(DataType dtype) {
  switch (dtype) {
    case DT_HALF:
    case DT_BFLOAT16:
    case DT_FLOAT:
    case DT_DOUBLE:
    case DT_FLOAT8_E5M2:
    case DT_FLOAT8_E4M3FN:
    case DT_FLOAT8_E4M3FNUZ:
    case DT_FLOAT8_E4M3B11FNUZ:
    case DT_FLOAT8_E5M2FNUZ:
      return true;
    default:
      return false;
  }
}

bool DataTypeIsComplex(DataType dtype) {
  return dtype == DT_COMPLEX64 || dtype == DT_COMPLEX128;
}

bool DataTypeIsQuantized(DataType dtype) {
  switch (dtype) {
    case DT_QINT8:
    case DT_QUINT8:
    case DT_QINT16:
    case DT_QUINT16:
    case DT_QINT32:
      return true;
    default:
      return false;
  }
}

bool DataTypeIsSigned(DataType dtype) {
  switch (dtype) {
    case DT_INT8:
    case DT_INT16:
    case DT_INT32:
    case DT_INT64:
    case DT_INT4:
    case DT_INT2:
      return true;
    default:
      return false;
  }
}

bool DataTypeIsUnsigned(DataType dtype) {
  switch (dtype) {
    case DT_UINT8:
    case DT_UINT16:
    case DT_UINT32:
    case DT_UINT64:
    case DT_UINT4:
    case DT_UINT2:
      return true;
    default:
      return false;
  }
}

bool DataTypeIsInteger(DataType dtype) {
  return DataTypeIsSigned(dtype) || DataTypeIsUnsigned(dtype);
}

bool DataTypeCanUseMemcpy(DataType dtype) {
  // Every fixed-size type is plain bytes; the rest hold C++ objects.
  return !IsRefType(dtype) && DataTypeSize(dtype) > 0;
}

const DataTypeVector& AllTypes() {
  static const DataTypeVector* const kSet =
      new DataTypeVector(EnumOrdered(IsInAllTypes));
  return *kSet;
}

const DataTypeVector& RealNumberTypes() {
  static const DataTypeVector* const kSet =
      new DataTypeVector(EnumOrdered(IsRealNumberType));
  return *kSet;
}

const DataTypeVector& NumberTypes() {
  static const DataTypeVector* const kSet =
      new DataTypeVector(EnumOrdered(IsNumberType));
  return *kSet;
}

const DataTypeVector& QuantizedTypes() {
  static const DataTypeVector* const kSet =
      new DataTypeVector(EnumOrdered(DataTypeIsQuantized));
  return *kSet;
}

const DataTypeVector& RealAndQuantizedTypes() {
  static const DataTypeVector* const kSet = new DataTypeVector(
      EnumOrdered([](DataType dt) {
        return IsRealNumberType(dt) || DataTypeIsQuantized(dt);
      }));
  return *kSet;
}

}  // namespace opkit

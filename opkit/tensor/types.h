// DataType helpers: names, sizes, ref types, the C++ type of each DataType,
// and the named type sets the op-definition grammar uses.
//
//   DataType dt;
//   if (!DataTypeFromString("float", &dt)) { ... }
//   DataTypeString(DT_INT32_REF);                 // "int32_ref"
//   DataTypeToEnum<float>::value;                 // DT_FLOAT
//   EnumToDataType<DT_HALF>::Type h;              // Eigen::half
//   for (DataType t : RealNumberTypes()) { ... }  // in DataType enum order
#ifndef OPKIT_TENSOR_TYPES_H_
#define OPKIT_TENSOR_TYPES_H_

#include <string>
#include <string_view>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/tensor/numeric_types.h"
#include "opkit/types.pb.h"

namespace opkit {

using DataTypeVector = std::vector<DataType>;

// Where a kernel's argument lives (TensorFlow's MemoryType): in the device's
// memory or in host memory. Both are host memory on opkit's CPU device.
enum MemoryType { DEVICE_MEMORY = 0, HOST_MEMORY = 1 };

// The name TensorFlow prints: "float", "int32", "float_ref", "bfloat16"...
// DT_INVALID prints as "INVALID"; an out-of-range value as
// "unknown dtype enum (N)".
OPKIT_EXPORT std::string DataTypeString(DataType dtype);
// Parses what DataTypeString prints, plus TensorFlow's aliases "float32",
// "float64" and "float16" (with or without "_ref"). "DT_FLOAT" spellings are
// not accepted, as in TensorFlow. Returns false (leaving *dtype alone) on an
// unknown name. "INVALID" is not parsed.
OPKIT_EXPORT bool DataTypeFromString(std::string_view name, DataType* dtype);
// "float, int32" for a list of types.
OPKIT_EXPORT std::string DataTypeSliceString(const DataTypeVector& types);

// Bytes per element; 0 for types without a fixed size (string, resource,
// variant), for DT_INVALID and for ref types. The float8 and the sub-byte
// integer types (int4, uint4, int2, uint2) are stored one element per byte,
// as TensorFlow stores them, so their size is 1.
OPKIT_EXPORT int DataTypeSize(DataType dtype);

constexpr bool IsRefType(DataType dtype) { return dtype > 100; }
// DT_FLOAT -> DT_FLOAT_REF. Requires a base type.
constexpr DataType MakeRefType(DataType dtype) {
  return IsRefType(dtype) ? dtype : static_cast<DataType>(dtype + 100);
}
// DT_FLOAT_REF -> DT_FLOAT; a base type is returned unchanged.
constexpr DataType RemoveRefType(DataType dtype) {
  return IsRefType(dtype) ? static_cast<DataType>(dtype - 100) : dtype;
}
constexpr DataType BaseType(DataType dtype) { return RemoveRefType(dtype); }
// Whether `dtype` is a value of the DataType enum (refs included).
OPKIT_EXPORT bool DataTypeIsValid(int dtype);

// The predicates take base types; a ref type answers false.
// half, bfloat16, float, double and the float8 types.
OPKIT_EXPORT bool DataTypeIsFloating(DataType dtype);
// complex64, complex128.
OPKIT_EXPORT bool DataTypeIsComplex(DataType dtype);
// qint8, quint8, qint16, quint16, qint32.
OPKIT_EXPORT bool DataTypeIsQuantized(DataType dtype);
// Signed and unsigned integers (int4/uint4/int2/uint2 included), not quantized.
OPKIT_EXPORT bool DataTypeIsInteger(DataType dtype);
// int8, int16, int32, int64, int4, int2.
OPKIT_EXPORT bool DataTypeIsSigned(DataType dtype);
// uint8, uint16, uint32, uint64, uint4, uint2.
OPKIT_EXPORT bool DataTypeIsUnsigned(DataType dtype);
// Whether elements may be copied with memcpy: every base type with a fixed
// size (not string, resource, variant, DT_INVALID or refs).
OPKIT_EXPORT bool DataTypeCanUseMemcpy(DataType dtype);

// The named type sets, exactly as TensorFlow (non-mobile build) defines them,
// each in DataType enum order:
//   RealNumberTypes: float, double, int32, uint8, int16, int8, int64,
//                    bfloat16, uint16, half, uint32, uint64
//   NumberTypes:     RealNumberTypes + complex64, qint8, quint8, qint32,
//                    complex128
//   QuantizedTypes:  qint8, quint8, qint32, qint16, quint16
//   RealAndQuantizedTypes: RealNumberTypes + QuantizedTypes
//   AllTypes:        float ... uint64 (enum values 1..23: every base type
//                    but DT_INVALID, the float8 and the sub-byte integers)
OPKIT_EXPORT const DataTypeVector& AllTypes();
OPKIT_EXPORT const DataTypeVector& RealNumberTypes();
OPKIT_EXPORT const DataTypeVector& NumberTypes();
OPKIT_EXPORT const DataTypeVector& QuantizedTypes();
OPKIT_EXPORT const DataTypeVector& RealAndQuantizedTypes();

// The DataType of a C++ type: DataTypeToEnum<float>::value == DT_FLOAT.
template <typename T>
struct DataTypeToEnum {
  static_assert(sizeof(T) == 0, "No DataType corresponds to this C++ type");
};
// The C++ type of a DataType: EnumToDataType<DT_FLOAT>::Type is float.
template <DataType kDT>
struct EnumToDataType {};

#define OPKIT_MATCH_TYPE_AND_ENUM(TYPE, ENUM)                    \
  template <>                                                    \
  struct DataTypeToEnum<TYPE> {                                  \
    static constexpr DataType v() { return ENUM; }               \
    static constexpr DataType ref() { return MakeRefType(ENUM); } \
    static constexpr DataType value = ENUM;                      \
  };                                                             \
  template <>                                                    \
  struct EnumToDataType<ENUM> {                                  \
    using Type = TYPE;                                           \
  }

OPKIT_MATCH_TYPE_AND_ENUM(float, DT_FLOAT);
OPKIT_MATCH_TYPE_AND_ENUM(double, DT_DOUBLE);
OPKIT_MATCH_TYPE_AND_ENUM(int32, DT_INT32);
OPKIT_MATCH_TYPE_AND_ENUM(uint32, DT_UINT32);
OPKIT_MATCH_TYPE_AND_ENUM(uint16, DT_UINT16);
OPKIT_MATCH_TYPE_AND_ENUM(uint8, DT_UINT8);
OPKIT_MATCH_TYPE_AND_ENUM(int16, DT_INT16);
OPKIT_MATCH_TYPE_AND_ENUM(int8, DT_INT8);
OPKIT_MATCH_TYPE_AND_ENUM(tstring, DT_STRING);
OPKIT_MATCH_TYPE_AND_ENUM(complex64, DT_COMPLEX64);
OPKIT_MATCH_TYPE_AND_ENUM(complex128, DT_COMPLEX128);
OPKIT_MATCH_TYPE_AND_ENUM(int64, DT_INT64);
OPKIT_MATCH_TYPE_AND_ENUM(uint64, DT_UINT64);
OPKIT_MATCH_TYPE_AND_ENUM(bool, DT_BOOL);
OPKIT_MATCH_TYPE_AND_ENUM(qint8, DT_QINT8);
OPKIT_MATCH_TYPE_AND_ENUM(quint8, DT_QUINT8);
OPKIT_MATCH_TYPE_AND_ENUM(qint16, DT_QINT16);
OPKIT_MATCH_TYPE_AND_ENUM(quint16, DT_QUINT16);
OPKIT_MATCH_TYPE_AND_ENUM(qint32, DT_QINT32);
OPKIT_MATCH_TYPE_AND_ENUM(bfloat16, DT_BFLOAT16);
OPKIT_MATCH_TYPE_AND_ENUM(half, DT_HALF);

#undef OPKIT_MATCH_TYPE_AND_ENUM

// `long long` is int64 on LP64 Linux only as `long`; map it too so that
// literals like 5LL work in templates.
template <>
struct DataTypeToEnum<long long> : DataTypeToEnum<int64> {};  // NOLINT
template <>
struct DataTypeToEnum<unsigned long long> : DataTypeToEnum<uint64> {};  // NOLINT

}  // namespace opkit

#endif  // OPKIT_TENSOR_TYPES_H_

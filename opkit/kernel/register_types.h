// TF_CALL_* macros: apply a macro to each C++ type of a set, the way
// TensorFlow's kernels instantiate and register one kernel per type.
//
//   #define REGISTER_CPU(T) REGISTER_KERNEL_BUILDER(
//       Name("ZeroOut").Device(DEVICE_CPU).TypeConstraint<T>("T"),
//       ZeroOutOp<T>);
//   TF_CALL_REAL_NUMBER_TYPES(REGISTER_CPU);
// (the #define on one line, or continued with backslashes)
//   #undef REGISTER_CPU
//
// The names and the sets are TensorFlow's (they are public API, like
// REGISTER_OP); the types are opkit's, which compat/ also names in
// namespace tensorflow.
#ifndef OPKIT_KERNEL_REGISTER_TYPES_H_
#define OPKIT_KERNEL_REGISTER_TYPES_H_

#include "opkit/tensor/numeric_types.h"
#include "opkit/tensor/types.h"

// One type each, in the order of types.proto.
#define TF_CALL_float(m) m(float)
#define TF_CALL_double(m) m(double)
#define TF_CALL_int32(m) m(::opkit::int32)
#define TF_CALL_uint32(m) m(::opkit::uint32)
#define TF_CALL_uint8(m) m(::opkit::uint8)
#define TF_CALL_int16(m) m(::opkit::int16)
#define TF_CALL_int8(m) m(::opkit::int8)
#define TF_CALL_string(m) m(::opkit::tstring)
#define TF_CALL_tstring(m) m(::opkit::tstring)
#define TF_CALL_complex64(m) m(::opkit::complex64)
#define TF_CALL_int64(m) m(::opkit::int64)
#define TF_CALL_uint64(m) m(::opkit::uint64)
#define TF_CALL_bool(m) m(bool)
#define TF_CALL_qint8(m) m(::opkit::qint8)
#define TF_CALL_quint8(m) m(::opkit::quint8)
#define TF_CALL_qint32(m) m(::opkit::qint32)
#define TF_CALL_bfloat16(m) m(::opkit::bfloat16)
#define TF_CALL_qint16(m) m(::opkit::qint16)
#define TF_CALL_quint16(m) m(::opkit::quint16)
#define TF_CALL_uint16(m) m(::opkit::uint16)
#define TF_CALL_complex128(m) m(::opkit::complex128)
#define TF_CALL_half(m) m(::opkit::half)
// Resource and variant tensors hold no C++ element type opkit kernels
// instantiate over; these sets expand to nothing for them.
#define TF_CALL_resource(m)
#define TF_CALL_variant(m)

// Sets of types.
#define TF_CALL_INTEGRAL_TYPES_NO_INT32(m)                               \
  TF_CALL_uint64(m) TF_CALL_int64(m) TF_CALL_uint32(m) TF_CALL_uint16(m) \
      TF_CALL_int16(m) TF_CALL_uint8(m) TF_CALL_int8(m)
#define TF_CALL_INTEGRAL_TYPES(m) \
  TF_CALL_INTEGRAL_TYPES_NO_INT32(m) TF_CALL_int32(m)
#define TF_CALL_FLOAT_TYPES(m) \
  TF_CALL_half(m) TF_CALL_bfloat16(m) TF_CALL_float(m) TF_CALL_double(m)
#define TF_CALL_REAL_NUMBER_TYPES(m) \
  TF_CALL_INTEGRAL_TYPES(m) TF_CALL_FLOAT_TYPES(m)
#define TF_CALL_REAL_NUMBER_TYPES_NO_BFLOAT16(m) \
  TF_CALL_INTEGRAL_TYPES(m) TF_CALL_half(m) TF_CALL_float(m) TF_CALL_double(m)
#define TF_CALL_REAL_NUMBER_TYPES_NO_INT32(m) \
  TF_CALL_FLOAT_TYPES(m) TF_CALL_INTEGRAL_TYPES_NO_INT32(m)
#define TF_CALL_COMPLEX_TYPES(m) TF_CALL_complex64(m) TF_CALL_complex128(m)
#define TF_CALL_NUMBER_TYPES(m) \
  TF_CALL_REAL_NUMBER_TYPES(m) TF_CALL_COMPLEX_TYPES(m)
#define TF_CALL_NUMBER_TYPES_NO_INT32(m) \
  TF_CALL_REAL_NUMBER_TYPES_NO_INT32(m) TF_CALL_COMPLEX_TYPES(m)
#define TF_CALL_POD_TYPES(m) TF_CALL_NUMBER_TYPES(m) TF_CALL_bool(m)
#define TF_CALL_ALL_TYPES(m) \
  TF_CALL_POD_TYPES(m) TF_CALL_tstring(m) TF_CALL_resource(m) TF_CALL_variant(m)
#define TF_CALL_POD_STRING_TYPES(m) TF_CALL_POD_TYPES(m) TF_CALL_tstring(m)
#define TF_CALL_QUANTIZED_TYPES(m) \
  TF_CALL_qint8(m) TF_CALL_quint8(m) TF_CALL_qint32(m)
#define TF_CALL_SAVE_RESTORE_TYPES(m)                                 \
  TF_CALL_REAL_NUMBER_TYPES_NO_BFLOAT16(m) TF_CALL_COMPLEX_TYPES(m)   \
      TF_CALL_QUANTIZED_TYPES(m) TF_CALL_bool(m) TF_CALL_tstring(m)
// Types TensorFlow's GPU kernels cover; opkit builds no GPU kernels itself,
// but op libraries use these names.
#define TF_CALL_GPU_NUMBER_TYPES(m) \
  TF_CALL_half(m) TF_CALL_bfloat16(m) TF_CALL_float(m) TF_CALL_double(m)
#define TF_CALL_GPU_NUMBER_TYPES_NO_HALF(m) TF_CALL_float(m) TF_CALL_double(m)
#define TF_CALL_GPU_ALL_TYPES(m) \
  TF_CALL_GPU_NUMBER_TYPES(m) TF_CALL_COMPLEX_TYPES(m) TF_CALL_bool(m)

#endif  // OPKIT_KERNEL_REGISTER_TYPES_H_

// The C++ element types of tensors: fixed-width integers, Eigen's half and
// bfloat16, std::complex, and the quantized wrappers.
//
//   opkit::half h(1.5f);
//   opkit::qint8 q(-3);        // a quantized int8; arithmetic on .value
//   opkit::complex64 c(1, 2);
#ifndef OPKIT_TENSOR_NUMERIC_TYPES_H_
#define OPKIT_TENSOR_NUMERIC_TYPES_H_

#include <complex>
#include <cstdint>
#include <ostream>
#include <string>

#include "opkit/core/eigen.h"

namespace opkit {

using int8 = std::int8_t;
using int16 = std::int16_t;
using int32 = std::int32_t;
using int64 = std::int64_t;
using uint8 = std::uint8_t;
using uint16 = std::uint16_t;
using uint32 = std::uint32_t;
using uint64 = std::uint64_t;

using half = Eigen::half;
using bfloat16 = Eigen::bfloat16;
using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

// The element type of DT_STRING tensors.
using tstring = std::string;

namespace internal {
// A quantized integer: the stored integer of a value whose real range is
// carried separately (as min/max tensors). Distinct types so that a kernel
// registered for qint8 does not accept int8.
template <typename T, int kTag>
struct QuantizedInt {
  using value_type = T;
  T value = 0;
  QuantizedInt() = default;
  constexpr QuantizedInt(T v) : value(v) {}  // NOLINT: implicit, as Eigen's
  constexpr operator T() const { return value; }  // NOLINT
  friend bool operator==(QuantizedInt a, QuantizedInt b) { return a.value == b.value; }
  friend bool operator!=(QuantizedInt a, QuantizedInt b) { return a.value != b.value; }
  friend bool operator<(QuantizedInt a, QuantizedInt b) { return a.value < b.value; }
  friend std::ostream& operator<<(std::ostream& os, QuantizedInt q) {
    return os << static_cast<int64_t>(q.value);
  }
};
}  // namespace internal

using qint8 = internal::QuantizedInt<int8_t, 0>;
using quint8 = internal::QuantizedInt<uint8_t, 1>;
using qint16 = internal::QuantizedInt<int16_t, 2>;
using quint16 = internal::QuantizedInt<uint16_t, 3>;
using qint32 = internal::QuantizedInt<int32_t, 4>;

}  // namespace opkit

#endif  // OPKIT_TENSOR_NUMERIC_TYPES_H_

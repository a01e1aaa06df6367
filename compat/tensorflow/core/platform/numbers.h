// TensorFlow compatibility: strings::safe_strto32 and friends (parse a
// whole string as a number, surrounding whitespace allowed, false on
// anything else or on overflow), over absl::SimpleAtoi / SimpleAtof;
// HumanReadableNumBytes.
//
//   int32 n;
//   if (!strings::safe_strto32(attr_text, &n)) { ... }   // " 42 " -> 42
//   float f;
//   strings::safe_strtof("1e3", &f);                     // 1000
//   strings::HumanReadableNumBytes(1536);                // "1.50KiB"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_NUMBERS_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_NUMBERS_H_

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/strings/numbers.h"
#include "tensorflow/core/platform/stringpiece.h"
#include "tensorflow/core/platform/types.h"

namespace tensorflow {
namespace strings {

inline bool safe_strto32(StringPiece str, int32_t* value) {
  return absl::SimpleAtoi(opkit_compat_internal::AbslView(str), value);
}
inline bool safe_strtou32(StringPiece str, uint32_t* value) {
  return absl::SimpleAtoi(opkit_compat_internal::AbslView(str), value);
}
inline bool safe_strto64(StringPiece str, int64_t* value) {
  return absl::SimpleAtoi(opkit_compat_internal::AbslView(str), value);
}
inline bool safe_strtou64(StringPiece str, uint64_t* value) {
  return absl::SimpleAtoi(opkit_compat_internal::AbslView(str), value);
}
// Also "inf", "-inf" and "nan".
inline bool safe_strtof(StringPiece str, float* value) {
  return absl::SimpleAtof(opkit_compat_internal::AbslView(str), value);
}
inline bool safe_strtod(StringPiece str, double* value) {
  return absl::SimpleAtod(opkit_compat_internal::AbslView(str), value);
}

// A byte count for people: "512B", "1.50KiB", "2.00MiB", "-3.00GiB"
// (binary units, two decimals).
inline std::string HumanReadableNumBytes(int64_t num_bytes) {
  if (num_bytes == INT64_MIN) return "-8E";  // cannot be negated
  const char* sign = num_bytes < 0 ? "-" : "";
  uint64_t n = static_cast<uint64_t>(num_bytes < 0 ? -num_bytes : num_bytes);
  char buf[32];
  if (n < 1024) {
    std::snprintf(buf, sizeof(buf), "%s%" PRIu64 "B", sign, n);
    return buf;
  }
  static const char kUnits[] = "KMGTPE";
  double size = static_cast<double>(n) / 1024.0;
  int unit = 0;
  while (size >= 1024.0 && kUnits[unit + 1] != '\0') {
    size /= 1024.0;
    ++unit;
  }
  std::snprintf(buf, sizeof(buf), "%s%.2f%ciB", sign, size, kUnits[unit]);
  return buf;
}

}  // namespace strings
}  // namespace tensorflow

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_NUMBERS_H_

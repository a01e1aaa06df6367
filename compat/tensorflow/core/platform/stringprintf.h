// TensorFlow compatibility: strings::Printf, Appendf and Appendv, printf
// formatting into a std::string.
//
//   string msg = strings::Printf("%d of %s", 3, "ten");   // "3 of ten"
//   strings::Appendf(&msg, " (%.1f%%)", 30.0);            // "3 of ten (30.0%)"
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STRINGPRINTF_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STRINGPRINTF_H_

#include <cstdarg>
#include <cstdio>
#include <string>

#include "tensorflow/core/platform/types.h"

namespace tensorflow {
namespace strings {

// Appends printf(format, ap) to *dst.
inline void Appendv(std::string* dst, const char* format, va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  const int needed = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  if (needed <= 0) return;  // nothing to add, or a bad format
  const size_t old_size = dst->size();
  dst->resize(old_size + static_cast<size_t>(needed) + 1);
  std::vsnprintf(&(*dst)[old_size], static_cast<size_t>(needed) + 1, format,
                 ap);
  dst->resize(old_size + static_cast<size_t>(needed));  // drop the NUL
}

// Appends printf(format, ...) to *dst.
inline void Appendf(std::string* dst, const char* format, ...)
    __attribute__((format(printf, 2, 3)));
inline void Appendf(std::string* dst, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  Appendv(dst, format, ap);
  va_end(ap);
}

// printf(format, ...) as a string.
inline std::string Printf(const char* format, ...)
    __attribute__((format(printf, 1, 2)));
inline std::string Printf(const char* format, ...) {
  std::string result;
  va_list ap;
  va_start(ap, format);
  Appendv(&result, format, ap);
  va_end(ap);
  return result;
}

}  // namespace strings
}  // namespace tensorflow

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STRINGPRINTF_H_

// TensorFlow compatibility: StringPiece, which TensorFlow defines as
// absl::string_view; here std::string_view.
//
//   void Parse(StringPiece text);
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STRINGPIECE_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STRINGPIECE_H_

#include <string_view>

#include "absl/strings/string_view.h"
#include "tensorflow/core/platform/types.h"

namespace tensorflow {

using StringPiece = std::string_view;

namespace opkit_compat_internal {
// Debian's abseil has its own absl::string_view class (not an alias of
// std::string_view): the compat headers built on abseil convert with these.
inline absl::string_view AbslView(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}
inline std::string_view StdView(absl::string_view s) {
  return std::string_view(s.data(), s.size());
}
}  // namespace opkit_compat_internal

}  // namespace tensorflow

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STRINGPIECE_H_

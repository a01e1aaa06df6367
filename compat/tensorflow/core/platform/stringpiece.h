// TensorFlow compatibility: StringPiece, which TensorFlow defines as
// absl::string_view; here std::string_view.
//
//   void Parse(StringPiece text);
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STRINGPIECE_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STRINGPIECE_H_

#include <string_view>

#include "tensorflow/core/platform/types.h"

namespace tensorflow {

using StringPiece = std::string_view;

}  // namespace tensorflow

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STRINGPIECE_H_

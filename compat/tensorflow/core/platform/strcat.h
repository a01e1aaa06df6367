// TensorFlow compatibility: strings::StrCat and strings::StrAppend; and
// absl::StrCat, which TensorFlow's strcat.h brings along and newer sources
// call directly.
//
//   string msg = strings::StrCat("got ", n, " elements");
//   strings::StrAppend(&msg, ", expected ", m);
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STRCAT_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STRCAT_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "opkit/core/str_util.h"
#include "tensorflow/core/platform/types.h"

namespace tensorflow {
namespace strings {

using ::opkit::StrCat;

// Appends the printed `args` to *dest (TensorFlow's strings::StrAppend).
template <typename... Args>
void StrAppend(std::string* dest, const Args&... args) {
  dest->append(::opkit::StrCat(args...));
}

}  // namespace strings
}  // namespace tensorflow

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_STRCAT_H_

// StatusOr<T>'s out-of-line failure paths: value() of an error, and a
// StatusOr made from an OK status (an Internal error, never a crash).
#include "opkit/core/statusor.h"

#include <cstdio>
#include <cstdlib>

#include "opkit/core/errors.h"

namespace opkit {
namespace internal {

void StatusOrValueOfError(const Status& status) {
  std::fprintf(stderr,
               "opkit: value() called on a StatusOr holding an error: %s\n",
               status.ToString().c_str());
  std::abort();
}

Status StatusOrFromOkStatus() {
  return errors::Internal(
      "StatusOr was constructed from an OK status; it needs a value or an "
      "error");
}

}  // namespace internal
}  // namespace opkit

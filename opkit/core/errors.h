// errors:: helpers: build a Status of one canonical code from any printable
// arguments, and test a Status for a code.
//
//   return errors::InvalidArgument("Need preserve_index >= 0, got ", v);
//   if (errors::IsNotFound(s)) { ... }
#ifndef OPKIT_CORE_ERRORS_H_
#define OPKIT_CORE_ERRORS_H_

#include <string>

#include "opkit/core/status.h"
#include "opkit/core/str_util.h"

namespace opkit {
namespace errors {

#define OPKIT_DECLARE_ERROR(FUNC, CODE)                                  \
  template <typename... Args>                                            \
  Status FUNC(const Args&... args) {                                     \
    return Status(error::CODE, ::opkit::StrCat(args...));                \
  }                                                                      \
  inline bool Is##FUNC(const Status& status) {                           \
    return status.code() == error::CODE;                                 \
  }

OPKIT_DECLARE_ERROR(Cancelled, CANCELLED)
OPKIT_DECLARE_ERROR(Unknown, UNKNOWN)
OPKIT_DECLARE_ERROR(InvalidArgument, INVALID_ARGUMENT)
OPKIT_DECLARE_ERROR(DeadlineExceeded, DEADLINE_EXCEEDED)
OPKIT_DECLARE_ERROR(NotFound, NOT_FOUND)
OPKIT_DECLARE_ERROR(AlreadyExists, ALREADY_EXISTS)
OPKIT_DECLARE_ERROR(PermissionDenied, PERMISSION_DENIED)
OPKIT_DECLARE_ERROR(ResourceExhausted, RESOURCE_EXHAUSTED)
OPKIT_DECLARE_ERROR(FailedPrecondition, FAILED_PRECONDITION)
OPKIT_DECLARE_ERROR(Aborted, ABORTED)
OPKIT_DECLARE_ERROR(OutOfRange, OUT_OF_RANGE)
OPKIT_DECLARE_ERROR(Unimplemented, UNIMPLEMENTED)
OPKIT_DECLARE_ERROR(Internal, INTERNAL)
OPKIT_DECLARE_ERROR(Unavailable, UNAVAILABLE)
OPKIT_DECLARE_ERROR(DataLoss, DATA_LOSS)
OPKIT_DECLARE_ERROR(Unauthenticated, UNAUTHENTICATED)

#undef OPKIT_DECLARE_ERROR

// Returns `status` with `args` appended to its message (same code); an OK
// status stays OK. For adding context as an error travels up:
//   return errors::AppendToMessage(s, "\n\twhile loading ", path);
template <typename... Args>
Status AppendToMessage(const Status& status, const Args&... args) {
  if (status.ok()) return status;
  return Status(status.code(), status.message() + ::opkit::StrCat(args...));
}

// TensorFlow's in-place form: appends "\n\t" and `args` to the message of
// *status, keeping its code, each added context on a line of its own. An OK
// status stays OK.
//   errors::AppendToMessage(&s, "while reading ", path);
template <typename... Args>
void AppendToMessage(Status* status, const Args&... args) {
  if (status->ok()) return;
  *status = Status(status->code(),
                   status->message() + ::opkit::StrCat("\n\t", args...));
}

}  // namespace errors
}  // namespace opkit

#endif  // OPKIT_CORE_ERRORS_H_

// TensorFlow compatibility: the errors:: helpers (opkit/core/errors.h):
// errors::InvalidArgument(...), errors::IsNotFound(s), AppendToMessage
// (in place, adding a line), TF_RETURN_WITH_CONTEXT_IF_ERROR, and, as
// TensorFlow's errors.h brings it, strings::StrCat.
//
//   OP_REQUIRES(ctx, index >= 0,
//               errors::InvalidArgument("Need preserve_index >= 0, got ",
//                                       index));
//   TF_RETURN_WITH_CONTEXT_IF_ERROR(Parse(text), "while parsing ", name);
//   // -> "<Parse's message>\n\twhile parsing <name>", same code
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_ERRORS_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_ERRORS_H_

#include "opkit/core/errors.h"
#include "tensorflow/core/platform/status.h"
#include "tensorflow/core/platform/strcat.h"

// Returns from the enclosing function if `expr` (a Status or absl::Status)
// is not OK, with the printed context appended on a new line.
#ifndef TF_RETURN_WITH_CONTEXT_IF_ERROR
#define TF_RETURN_WITH_CONTEXT_IF_ERROR(expr, ...)                     \
  do {                                                                 \
    ::opkit::Status _opkit_context_status = (expr);                    \
    if (TF_PREDICT_FALSE(!_opkit_context_status.ok())) {               \
      ::opkit::errors::AppendToMessage(&_opkit_context_status,         \
                                       __VA_ARGS__);                   \
      return _opkit_context_status;                                    \
    }                                                                  \
  } while (0)
#endif

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_ERRORS_H_

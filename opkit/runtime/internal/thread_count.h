// How the runtime's options turn a requested thread count into threads:
// 0 means one per schedulable CPU (NumSchedulableCpus, TensorFlow's
// ConfigProto *_parallelism_threads = 0), a positive count is taken as it
// is, a negative one is an error naming the option. Not an API.
#ifndef OPKIT_RUNTIME_INTERNAL_THREAD_COUNT_H_
#define OPKIT_RUNTIME_INTERNAL_THREAD_COUNT_H_

#include "opkit/core/errors.h"
#include "opkit/core/statusor.h"
#include "opkit/core/machine_resources.h"

namespace opkit {
namespace internal {

// `option` names the field for the message ("SessionOptions::inter_op_threads").
inline StatusOr<int> ResolveThreadCount(int requested, const char* option) {
  if (requested < 0) {
    return errors::InvalidArgument(
        option, " is ", requested,
        "; pass 0 for one thread per CPU (", NumSchedulableCpus(),
        " here) or a positive count to pin it");
  }
  return requested == 0 ? NumSchedulableCpus() : requested;
}

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_RUNTIME_INTERNAL_THREAD_COUNT_H_

// TensorFlow compatibility: GuardedPhiloxRandom (Init(context) from the
// "seed"/"seed2" attrs, ReserveSamples128/32, ReserveRandomOutputs), from
// opkit/kernel/. Includes what TensorFlow's header does: op_kernel.h and
// philox_random.h.
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_UTIL_GUARDED_PHILOX_RANDOM_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_UTIL_GUARDED_PHILOX_RANDOM_H_

#include "opkit/kernel/guarded_philox_random.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/lib/random/philox_random.h"
#include "tensorflow/core/platform/mutex.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_UTIL_GUARDED_PHILOX_RANDOM_H_

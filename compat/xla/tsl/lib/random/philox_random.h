// TensorFlow compatibility: xla/tsl/lib/random/philox_random.h, where TensorFlow
// 2.17 and later keep Philox: tsl::random::PhiloxRandom is
// opkit::random::PhiloxRandom.
//
// Note [tsl random namespace]: tsl::random is opened here, once, with a
// using-directive for opkit::random, so every name of opkit::random (this
// header's and those of the other tsl/lib/random headers, which include
// this one) is tsl::random::X as well, the same entity. A using-directive
// rather than a namespace alias keeps this valid whether tsl is a namespace
// of its own or a macro for opkit.
#ifndef OPKIT_COMPAT_XLA_TSL_LIB_RANDOM_PHILOX_RANDOM_H_
#define OPKIT_COMPAT_XLA_TSL_LIB_RANDOM_PHILOX_RANDOM_H_

#include "tensorflow/core/lib/random/philox_random.h"

namespace tsl {
namespace random {
using namespace ::opkit::random;  // NOLINT: Note [tsl random namespace]
}  // namespace random
}  // namespace tsl

#endif  // OPKIT_COMPAT_XLA_TSL_LIB_RANDOM_PHILOX_RANDOM_H_

// TensorFlow compatibility: Env (opkit/core/env.h): Env::Default(), the
// file calls, NowMicros(), and ReadFileToString / WriteStringToFile taking
// the Env first.
//
//   Env* env = Env::Default();
//   string text;
//   TF_RETURN_IF_ERROR(ReadFileToString(env, vocab_path, &text));
//   const uint64 start = env->NowMicros();
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_ENV_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_ENV_H_

#include "opkit/core/env.h"
#include "tensorflow/core/platform/errors.h"
#include "tensorflow/core/platform/mutex.h"
#include "tensorflow/core/platform/stringpiece.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_ENV_H_

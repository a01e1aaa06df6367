// TensorFlow compatibility: the thread-safety annotation macros, in both
// TensorFlow spellings (GUARDED_BY and the newer TF_GUARDED_BY), over
// opkit's (opkit/core/thread_annotations.h). Clang checks them with
// -Wthread-safety; other compilers ignore them.
//
//   mutex mu_;
//   int64 count_ TF_GUARDED_BY(mu_);
//   void Bump() TF_EXCLUSIVE_LOCKS_REQUIRED(mu_);
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_THREAD_ANNOTATIONS_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_THREAD_ANNOTATIONS_H_

#include "opkit/core/thread_annotations.h"

#ifndef TF_GUARDED_BY
#define TF_GUARDED_BY(x) OPKIT_GUARDED_BY(x)
#define TF_PT_GUARDED_BY(x) OPKIT_PT_GUARDED_BY(x)
#define TF_ACQUIRED_AFTER(...) OPKIT_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))
#define TF_ACQUIRED_BEFORE(...) OPKIT_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))
#define TF_EXCLUSIVE_LOCKS_REQUIRED(...) OPKIT_REQUIRES(__VA_ARGS__)
#define TF_SHARED_LOCKS_REQUIRED(...) OPKIT_REQUIRES_SHARED(__VA_ARGS__)
#define TF_LOCKS_EXCLUDED(...) OPKIT_LOCKS_EXCLUDED(__VA_ARGS__)
#define TF_LOCK_RETURNED(x) OPKIT_THREAD_ANNOTATION(lock_returned(x))
#define TF_LOCKABLE OPKIT_CAPABILITY("mutex")
#define TF_SCOPED_LOCKABLE OPKIT_SCOPED_CAPABILITY
#define TF_EXCLUSIVE_LOCK_FUNCTION(...) OPKIT_ACQUIRE(__VA_ARGS__)
#define TF_SHARED_LOCK_FUNCTION(...) OPKIT_ACQUIRE_SHARED(__VA_ARGS__)
#define TF_UNLOCK_FUNCTION(...) OPKIT_RELEASE_GENERIC(__VA_ARGS__)
#define TF_NO_THREAD_SAFETY_ANALYSIS OPKIT_NO_THREAD_SAFETY_ANALYSIS
#endif

// The older spellings (TensorFlow 1.x and early 2.x).
#ifndef GUARDED_BY
#define GUARDED_BY(x) TF_GUARDED_BY(x)
#endif
#ifndef PT_GUARDED_BY
#define PT_GUARDED_BY(x) TF_PT_GUARDED_BY(x)
#endif
#ifndef EXCLUSIVE_LOCKS_REQUIRED
#define EXCLUSIVE_LOCKS_REQUIRED(...) TF_EXCLUSIVE_LOCKS_REQUIRED(__VA_ARGS__)
#endif
#ifndef SHARED_LOCKS_REQUIRED
#define SHARED_LOCKS_REQUIRED(...) TF_SHARED_LOCKS_REQUIRED(__VA_ARGS__)
#endif
#ifndef LOCKS_EXCLUDED
#define LOCKS_EXCLUDED(...) TF_LOCKS_EXCLUDED(__VA_ARGS__)
#endif
#ifndef NO_THREAD_SAFETY_ANALYSIS
#define NO_THREAD_SAFETY_ANALYSIS TF_NO_THREAD_SAFETY_ANALYSIS
#endif

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_THREAD_ANNOTATIONS_H_

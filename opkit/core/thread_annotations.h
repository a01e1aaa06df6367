// Clang thread-safety annotations (checked by -Wthread-safety under clang;
// empty elsewhere).
//
//   mutex mu_;
//   int count_ OPKIT_GUARDED_BY(mu_);
//   void Bump() OPKIT_LOCKS_EXCLUDED(mu_);
#ifndef OPKIT_CORE_THREAD_ANNOTATIONS_H_
#define OPKIT_CORE_THREAD_ANNOTATIONS_H_

#if defined(__clang__)
#define OPKIT_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define OPKIT_THREAD_ANNOTATION(x)
#endif

#define OPKIT_CAPABILITY(x) OPKIT_THREAD_ANNOTATION(capability(x))
#define OPKIT_SCOPED_CAPABILITY OPKIT_THREAD_ANNOTATION(scoped_lockable)
#define OPKIT_GUARDED_BY(x) OPKIT_THREAD_ANNOTATION(guarded_by(x))
#define OPKIT_PT_GUARDED_BY(x) OPKIT_THREAD_ANNOTATION(pt_guarded_by(x))
#define OPKIT_REQUIRES(...) OPKIT_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define OPKIT_REQUIRES_SHARED(...) \
  OPKIT_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
#define OPKIT_ACQUIRE(...) OPKIT_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define OPKIT_ACQUIRE_SHARED(...) \
  OPKIT_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define OPKIT_RELEASE(...) OPKIT_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define OPKIT_RELEASE_SHARED(...) \
  OPKIT_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#define OPKIT_RELEASE_GENERIC(...) \
  OPKIT_THREAD_ANNOTATION(release_generic_capability(__VA_ARGS__))
#define OPKIT_LOCKS_EXCLUDED(...) OPKIT_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define OPKIT_NO_THREAD_SAFETY_ANALYSIS \
  OPKIT_THREAD_ANNOTATION(no_thread_safety_analysis)

#endif  // OPKIT_CORE_THREAD_ANNOTATIONS_H_

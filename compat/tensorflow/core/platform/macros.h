// TensorFlow compatibility: the helper macros of TensorFlow's
// platform/macros.h that op sources use.
//
//   class MyOp : public OpKernel {
//     ...
//     TF_DISALLOW_COPY_AND_ASSIGN(MyOp);
//   };
//   if (TF_PREDICT_FALSE(n < 0)) { ... }
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_MACROS_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_MACROS_H_

#include <cstddef>

#ifndef TF_ATTRIBUTE_UNUSED
#define TF_ATTRIBUTE_UNUSED __attribute__((unused))
#endif
#ifndef TF_ATTRIBUTE_NOINLINE
#define TF_ATTRIBUTE_NOINLINE __attribute__((noinline))
#endif
#ifndef TF_ATTRIBUTE_ALWAYS_INLINE
#define TF_ATTRIBUTE_ALWAYS_INLINE __attribute__((always_inline))
#endif
#ifndef TF_ATTRIBUTE_NORETURN
#define TF_ATTRIBUTE_NORETURN __attribute__((noreturn))
#endif
#ifndef TF_ATTRIBUTE_WEAK
#define TF_ATTRIBUTE_WEAK __attribute__((weak))
#endif
#ifndef TF_MUST_USE_RESULT
#define TF_MUST_USE_RESULT __attribute__((warn_unused_result))
#endif
#ifndef TF_EXPORT
#define TF_EXPORT __attribute__((visibility("default")))
#endif
#ifndef TF_PREDICT_FALSE
#define TF_PREDICT_FALSE(x) (__builtin_expect(!!(x), 0))
#endif
#ifndef TF_PREDICT_TRUE
#define TF_PREDICT_TRUE(x) (__builtin_expect(!!(x), 1))
#endif
#ifndef TF_FALLTHROUGH_INTENDED
#define TF_FALLTHROUGH_INTENDED [[fallthrough]]
#endif
#ifndef TF_ARRAYSIZE
#define TF_ARRAYSIZE(a) (sizeof(a) / sizeof(*(a)))
#endif
#ifndef TF_DISALLOW_COPY_AND_ASSIGN
#define TF_DISALLOW_COPY_AND_ASSIGN(TypeName) \
  TypeName(const TypeName&) = delete;         \
  void operator=(const TypeName&) = delete
#endif

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_MACROS_H_

// TensorFlow compatibility: the TensorFlow version compat/ follows, for
// code that tests it in #if.
//
// compat/ follows TensorFlow 2.15: the API it provides is the one
// TensorFlow 2.15's headers have (absl::Status interop, the tsl:: paths,
// Status::OK() still accepted), so `#if TF_MAJOR_VERSION >= 2` and
// `TF_MINOR_VERSION >= 13` style checks take the modern branch.
//
//   #if TF_MAJOR_VERSION > 2 || (TF_MAJOR_VERSION == 2 && TF_MINOR_VERSION >= 13)
//     return absl::OkStatus();
//   #else
//     return Status::OK();
//   #endif
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PUBLIC_VERSION_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PUBLIC_VERSION_H_

#define TF_MAJOR_VERSION 2
#define TF_MINOR_VERSION 15
#define TF_PATCH_VERSION 0

// Empty: not a pre-release.
#define TF_VERSION_SUFFIX ""

#define TF_STR_HELPER(x) #x
#define TF_STR(x) TF_STR_HELPER(x)

// "2.15.0".
#define TF_VERSION_STRING                                            \
  (TF_STR(TF_MAJOR_VERSION) "." TF_STR(TF_MINOR_VERSION) "." TF_STR( \
      TF_PATCH_VERSION) TF_VERSION_SUFFIX)

// GraphDef versions. opkit reads any GraphDef whose producer is at least
// the minimum; TF_GRAPH_DEF_VERSION is opkit's own producer number, above
// every value custom-op code compares it with.
#define TF_GRAPH_DEF_VERSION_MIN_PRODUCER 0
#define TF_GRAPH_DEF_VERSION_MIN_CONSUMER 0
#define TF_GRAPH_DEF_VERSION 1700

// Checkpoint versions (opkit writes no checkpoints; TensorFlow's numbers).
#define TF_CHECKPOINT_VERSION_MIN_PRODUCER 0
#define TF_CHECKPOINT_VERSION_MIN_CONSUMER 0
#define TF_CHECKPOINT_VERSION 1

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PUBLIC_VERSION_H_

// TensorFlow compatibility: the root of namespace tensorflow.
//
// Every compat header includes this one. It makes opkit's whole public API
// visible in namespace tensorflow (a using-directive, so a name opkit adds
// later is there too) and adds the spellings TensorFlow has and opkit does
// not: `string`, and the integer limits kint32max and friends.
//
//   #include "tensorflow/core/platform/types.h"
//   using namespace tensorflow;
//   int32 n = kint32max;        // std::int32_t, 2147483647
//   string s = "abc";           // std::string
//   tstring t = s;              // opkit::tstring (std::string)
//
// Note [Compat namespace]
// namespace tensorflow declares nothing that opkit also declares: it reaches
// opkit's names through the using-directive only. That keeps
// `tensorflow::Tensor`, `::tensorflow::Status` and, after
// `using namespace tensorflow;`, plain `Tensor` all naming the one opkit
// entity, never an ambiguity. Names TensorFlow has and opkit lacks are
// declared here (and in the other compat headers) only when opkit has no
// entity of that name; sub-namespaces TensorFlow has and opkit lacks
// (`thread`, `strings`, `port`) are opened in tensorflow for them. Only
// compat/ opens namespace tensorflow (STYLE.md).
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_TYPES_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_TYPES_H_

#include <cstdint>
#include <limits>
#include <string>

#include "opkit/tensor/numeric_types.h"
#include "tensorflow/core/platform/macros.h"

namespace tensorflow {

using namespace ::opkit;  // NOLINT: see Note [Compat namespace]

// TensorFlow declares `string` as std::string in its namespace.
using std::string;

// The integer limits TensorFlow's platform/types.h names.
inline constexpr uint8 kuint8max = std::numeric_limits<uint8>::max();
inline constexpr uint16 kuint16max = std::numeric_limits<uint16>::max();
inline constexpr uint32 kuint32max = std::numeric_limits<uint32>::max();
inline constexpr uint64 kuint64max = std::numeric_limits<uint64>::max();
inline constexpr int8 kint8min = std::numeric_limits<int8>::min();
inline constexpr int8 kint8max = std::numeric_limits<int8>::max();
inline constexpr int16 kint16min = std::numeric_limits<int16>::min();
inline constexpr int16 kint16max = std::numeric_limits<int16>::max();
inline constexpr int32 kint32min = std::numeric_limits<int32>::min();
inline constexpr int32 kint32max = std::numeric_limits<int32>::max();
inline constexpr int64 kint64min = std::numeric_limits<int64>::min();
inline constexpr int64 kint64max = std::numeric_limits<int64>::max();

}  // namespace tensorflow

// TensorFlow 2.13+ keeps its platform layer in namespace tsl (tsl::Status,
// tsl::errors::, tsl::mutex, tsl::thread::ThreadPool, tsl::Env, tsl::int64,
// ...) and brings it into tensorflow; here tsl sees every name tensorflow
// does, so both spellings name the same entities.
namespace tsl {
using namespace ::tensorflow;  // NOLINT: the same names as tensorflow
}  // namespace tsl

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_TYPES_H_

// TensorFlow compatibility: the root of namespace tensorflow.
//
// Every compat header includes this one. It makes `tensorflow` another
// spelling of `opkit` and adds the names TensorFlow has and opkit does not:
// `string`, and the integer limits kint32max and friends.
//
//   #include "tensorflow/core/platform/types.h"
//   using namespace tensorflow;
//   int32 n = kint32max;        // std::int32_t, 2147483647
//   string s = "abc";           // std::string
//   tstring t = s;              // opkit::tstring (std::string)
//
// Note [Compat namespace]
// `tensorflow` is a macro for `opkit`. opkit's flags define it on the command
// line (`-Dtensorflow=opkit` from `opkit-config --cflags`,
// `opkit.sysconfig.get_compile_flags()` and the opkit::compat CMake target),
// and this header defines it for a build that only adds `-I compat`. So
// `tensorflow::Tensor`, `::tensorflow::Status` and, after
// `using namespace tensorflow;`, plain `Tensor` name the one opkit entity, and
// code that *declares* into namespace tensorflow declares into opkit:
//
//   namespace tensorflow {
//   class OpKernelContext;                        // redeclares opkit's class
//   namespace functor { template <typename Device, typename T> struct Fill; }
//   }
//
// a forward declaration in a user header that a using-directive (the earlier
// design: `namespace tensorflow { using namespace ::opkit; }`) turned into a
// second, ambiguous class. Why a macro and not the real name: a process may
// hold opkit and TensorFlow side by side (a Python program importing both),
// and opkit's symbols, and a compat plugin's, must never be mangled as
// TensorFlow's, or the dynamic linker would bind one library's calls to the
// other's code. Names appear in object files as opkit::..., as everywhere
// else in opkit.
//
// What the user gives up: an identifier spelled `tensorflow` means `opkit`
// (include paths and string literals are untouched: the preprocessor does
// not expand them), and a user header that opens namespace tensorflow before
// including any compat header needs opkit's flags (the -D), which every
// documented build line has. Names TensorFlow has and opkit lacks are
// declared by compat/ inside `namespace tensorflow { ... }`, that is in opkit,
// and only where opkit has no entity of that name (STYLE.md: only compat/
// opens namespace tensorflow).
#ifndef tensorflow
#define tensorflow opkit
#endif

#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_TYPES_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_TYPES_H_

#include <cstdint>
#include <limits>
#include <string>

#include "opkit/tensor/numeric_types.h"
#include "tensorflow/core/platform/macros.h"

namespace tensorflow {

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

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_TYPES_H_

// TensorFlow compatibility: gtl::FlatSet<Key, Hash, Eq>, an open-addressing
// hash set with std::unordered_set's interface; here absl::flat_hash_set.
//
//   gtl::FlatSet<int64> seen;
//   if (!seen.insert(id).second) { ... duplicate ... }
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_GTL_FLATSET_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_GTL_FLATSET_H_

#include "absl/container/flat_hash_set.h"
#include "tensorflow/core/platform/types.h"

namespace tensorflow {
namespace gtl {

template <typename Key,
          typename Hash = typename absl::flat_hash_set<Key>::hasher,
          typename Eq = typename absl::flat_hash_set<Key>::key_equal>
using FlatSet = absl::flat_hash_set<Key, Hash, Eq>;

}  // namespace gtl
}  // namespace tensorflow

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_GTL_FLATSET_H_

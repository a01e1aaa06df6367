// TensorFlow compatibility: gtl::FlatMap<Key, Value, Hash, Eq>, an
// open-addressing hash map with std::unordered_map's interface; here
// absl::flat_hash_map. Like TensorFlow's, iterators and references are
// invalidated by insertion.
//
//   gtl::FlatMap<string, int64> counts;
//   ++counts[word];
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_GTL_FLATMAP_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_GTL_FLATMAP_H_

#include "absl/container/flat_hash_map.h"
#include "tensorflow/core/platform/types.h"

namespace tensorflow {
namespace gtl {

template <typename Key, typename Val,
          typename Hash = typename absl::flat_hash_map<Key, Val>::hasher,
          typename Eq = typename absl::flat_hash_map<Key, Val>::key_equal>
using FlatMap = absl::flat_hash_map<Key, Val, Hash, Eq>;

}  // namespace gtl
}  // namespace tensorflow

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_GTL_FLATMAP_H_

// TensorFlow compatibility: the gtl:: helpers over map-like containers
// (std::map, std::unordered_map, gtl::FlatMap, ...; some also sets).
//
//   const int64* n = gtl::FindOrNull(counts, key);          // null if absent
//   int64 m = gtl::FindWithDefault(counts, key, 0);
//   Op* op = gtl::FindPtrOrNull(ops_by_name, name);          // map of pointers
//   bool added = gtl::InsertIfNotPresent(&counts, key, 1);  // false: kept old
//   bool fresh = gtl::InsertOrUpdate(&counts, key, 5);      // false: replaced
//   int64& slot = gtl::LookupOrInsert(&counts, key, 0);
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_LIB_GTL_MAP_UTIL_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_LIB_GTL_MAP_UTIL_H_

#include <utility>

#include "tensorflow/core/platform/types.h"

namespace tensorflow {
namespace gtl {

// A pointer to the value of `key`, or null.
template <class Collection>
const typename Collection::value_type::second_type* FindOrNull(
    const Collection& collection,
    const typename Collection::value_type::first_type& key) {
  auto it = collection.find(key);
  return it == collection.end() ? nullptr : &it->second;
}
template <class Collection>
typename Collection::value_type::second_type* FindOrNull(
    Collection& collection,  // NOLINT: TensorFlow's signature
    const typename Collection::value_type::first_type& key) {
  auto it = collection.find(key);
  return it == collection.end() ? nullptr : &it->second;
}

// For a map whose values are pointers: the value of `key`, or null.
template <class Collection>
typename Collection::value_type::second_type FindPtrOrNull(
    const Collection& collection,
    const typename Collection::value_type::first_type& key) {
  auto it = collection.find(key);
  if (it == collection.end()) return typename Collection::value_type::second_type();
  return it->second;
}

// The value of `key`, or `value` when it is absent (a reference into the
// collection or to `value`: keep both alive while using it).
template <class Collection>
const typename Collection::value_type::second_type& FindWithDefault(
    const Collection& collection,
    const typename Collection::value_type::first_type& key,
    const typename Collection::value_type::second_type& value) {
  auto it = collection.find(key);
  return it == collection.end() ? value : it->second;
}

// Sets the value of `key`; true if it was newly inserted, false if an
// existing value was replaced.
template <class Collection>
bool InsertOrUpdate(Collection* const collection,
                    const typename Collection::value_type& vt) {
  auto ret = collection->insert(vt);
  if (!ret.second) {
    ret.first->second = vt.second;
    return false;
  }
  return true;
}
template <class Collection>
bool InsertOrUpdate(Collection* const collection,
                    const typename Collection::value_type::first_type& key,
                    const typename Collection::value_type::second_type& value) {
  return InsertOrUpdate(collection,
                        typename Collection::value_type(key, value));
}

// Inserts `vt` (a map pair, or a set element) unless its key is present;
// true if inserted. An existing value is left as it is.
template <class Collection>
bool InsertIfNotPresent(Collection* const collection,
                        const typename Collection::value_type& vt) {
  return collection->insert(vt).second;
}
template <class Collection>
bool InsertIfNotPresent(
    Collection* const collection,
    const typename Collection::value_type::first_type& key,
    const typename Collection::value_type::second_type& value) {
  return InsertIfNotPresent(collection,
                            typename Collection::value_type(key, value));
}

// The value of `key`, inserting `value` for it first when it is absent.
template <class Collection>
typename Collection::value_type::second_type& LookupOrInsert(
    Collection* const collection, const typename Collection::value_type& vt) {
  return collection->insert(vt).first->second;
}
template <class Collection>
typename Collection::value_type::second_type& LookupOrInsert(
    Collection* const collection,
    const typename Collection::value_type::first_type& key,
    const typename Collection::value_type::second_type& value) {
  return LookupOrInsert(collection,
                        typename Collection::value_type(key, value));
}

// Fills *reverse with value -> key for every entry; false if two keys
// share a value (the later one wins, as InsertOrUpdate leaves it).
template <class Collection, class ReverseCollection>
bool ReverseMap(const Collection& collection,
                ReverseCollection* const reverse) {
  bool all_unique = true;
  for (const auto& kv : collection) {
    if (!InsertOrUpdate(reverse, kv.second, kv.first)) all_unique = false;
  }
  return all_unique;
}

// For a map whose values are owned pointers: erases `key` and returns its
// value (the caller now owns it), or null when absent.
template <class Collection>
typename Collection::value_type::second_type EraseKeyReturnValuePtr(
    Collection* const collection,
    const typename Collection::value_type::first_type& key) {
  auto it = collection->find(key);
  if (it == collection->end()) return nullptr;
  auto v = std::move(it->second);
  collection->erase(it);
  return v;
}

}  // namespace gtl
}  // namespace tensorflow

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_LIB_GTL_MAP_UTIL_H_

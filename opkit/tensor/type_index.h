// TypeIndex: a C++ type's identity as a number and a name, the way a
// ResourceHandle records which type of resource it points at (TensorFlow's
// framework/type_index.h). The hash is typeid(T).hash_code(), which
// libstdc++ computes from the mangled name, so a plugin and the framework
// agree on it; name() is the mangled name ("N5opkit3VarE"), as TensorFlow
// records it.
//
//   TypeIndex t = TypeIndex::Make<MyTable>();
//   handle.set_hash_code(t.hash_code());
//   handle.set_maybe_type_name(t.name());
#ifndef OPKIT_TENSOR_TYPE_INDEX_H_
#define OPKIT_TENSOR_TYPE_INDEX_H_

#include <cstdint>
#include <typeinfo>

namespace opkit {

class TypeIndex {
 public:
  template <typename T>
  static TypeIndex Make() {
    return TypeIndex(typeid(T).hash_code(), typeid(T).name());
  }

  uint64_t hash_code() const { return hash_; }
  // The mangled name; valid for the life of the process.
  const char* name() const { return name_; }

  bool operator==(const TypeIndex& o) const { return hash_ == o.hash_; }
  bool operator!=(const TypeIndex& o) const { return hash_ != o.hash_; }

 private:
  TypeIndex(uint64_t hash, const char* name) : hash_(hash), name_(name) {}

  uint64_t hash_;
  const char* name_;
};

}  // namespace opkit

#endif  // OPKIT_TENSOR_TYPE_INDEX_H_

// ResourceMgr: named, typed, ref-counted state that outlives one kernel call
// (variables, queues, tables, caches), grouped into containers, as
// TensorFlow's ResourceMgr.
//
//   class Counter : public ResourceBase {
//    public:
//     std::string DebugString() const override { return "Counter"; }
//     std::atomic<int64_t> value{0};
//   };
//
//   ResourceMgr* rm = ctx->resource_manager();
//   Counter* counter = nullptr;
//   OP_REQUIRES_OK(ctx, rm->LookupOrCreate<Counter>(
//       rm->default_container(), "calls", &counter,
//       [](Counter** c) { *c = new Counter; return OkStatus(); }));
//   core::ScopedUnref unref(counter);   // Lookup* hands out a reference
//   counter->value++;
//
// Resources are keyed by (container, name) and checked by C++ type: looking
// a resource up as another type than it was created with is
// InvalidArgument, a missing one is NotFound, creating a name twice is
// AlreadyExists.
//
// Thread-safe. Lookups take a shared lock.
#ifndef OPKIT_RESOURCE_RESOURCE_MGR_H_
#define OPKIT_RESOURCE_RESOURCE_MGR_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <typeindex>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "opkit/core/export.h"
#include "opkit/core/mutex.h"
#include "opkit/core/status.h"
#include "opkit/resource/refcount.h"

namespace opkit {

class ResourceHandle;  // opkit/tensor/resource_handle.h

// The base of everything a ResourceMgr holds. Ref-counted: the creator's
// reference goes to the manager on Create(); every Lookup hands the caller a
// reference to give back with Unref() (or core::ScopedUnref).
class OPKIT_EXPORT ResourceBase : public core::RefCounted {
 public:
  // A one-line description for ResourceMgr::DebugString().
  virtual std::string DebugString() const = 0;
  // Bytes held, for memory accounting; 0 when unknown.
  virtual int64_t MemoryUsed() const { return 0; }
};

class OPKIT_EXPORT ResourceMgr {
 public:
  // The default container is "localhost", as TensorFlow's.
  ResourceMgr();
  explicit ResourceMgr(std::string default_container);
  // Drops the manager's reference to every resource still held.
  ~ResourceMgr();
  ResourceMgr(const ResourceMgr&) = delete;
  ResourceMgr& operator=(const ResourceMgr&) = delete;

  // The container kernels use when a node names none.
  const std::string& default_container() const { return default_container_; }

  // Adds `resource` as `container`/`name`, taking over the caller's
  // reference (the caller must Ref() first to keep using it). On error the
  // reference is dropped too: AlreadyExists if the name is taken in that
  // container (with any type), InvalidArgument if `resource` is null.
  template <typename T>
  Status Create(const std::string& container, const std::string& name,
                T* resource);

  // Sets *resource to `container`/`name` with a new reference for the
  // caller. NotFound if missing; InvalidArgument if it was created with
  // another type than T. *resource is null on error.
  template <typename T>
  Status Lookup(const std::string& container, const std::string& name,
                T** resource) const;

  // Lookup(), or, when the resource is missing, calls `creator` to make one
  // (it must set *resource to a new object holding one reference), adds it,
  // and returns it with a reference for the caller. Only one creator runs
  // for a name even when many threads ask at once. `creator` runs with the
  // manager locked: it must not call back into this ResourceMgr. The
  // creator's error is returned as it is; a creator that returns OK without
  // a resource is Internal. A resource of another type under the name is
  // InvalidArgument (nothing is created).
  template <typename T>
  Status LookupOrCreate(const std::string& container, const std::string& name,
                        T** resource,
                        const std::function<Status(T**)>& creator);

  // Removes `container`/`name` and drops the manager's reference (holders of
  // references keep the object alive). NotFound if missing;
  // InvalidArgument if it is of another type than T.
  template <typename T>
  Status Delete(const std::string& container, const std::string& name);

  // The resource `handle` names (its container, name and type hash), with a
  // reference for the caller, whatever its C++ type. NotFound (TensorFlow's
  // "Resource <container>/<name>/ResourceBase does not exist.") when there
  // is none of that type.
  Status Lookup(const ResourceHandle& handle, ResourceBase** resource) const;

  // Removes the resource `handle` names and drops the manager's reference.
  // NotFound when there is none of the handle's type.
  Status Delete(const ResourceHandle& handle);

  // Removes every resource of `container` and the container itself. A
  // container that does not exist is OK (nothing to clean up).
  Status Cleanup(const std::string& container);

  // Removes every resource of every container.
  void Clear();

  // One line per resource, sorted: "<container> | <type> | <name> | <debug
  // string>"; empty when nothing is held.
  std::string DebugString() const;

 private:
  struct Entry {
    std::type_index type;
    std::string type_name;  // Demangled, for messages.
    ResourceBase* resource;  // Holds the manager's reference.
  };
  using Container = std::map<std::string, Entry>;

  template <typename T>
  static void CheckDerived() {
    static_assert(std::is_base_of_v<ResourceBase, T>,
                  "T must derive from ResourceBase");
  }

  Status DoCreate(const std::string& container, const std::string& name,
                  std::type_index type, const char* mangled_type,
                  ResourceBase* resource);
  Status DoLookup(const std::string& container, const std::string& name,
                  std::type_index type, const char* mangled_type,
                  ResourceBase** resource) const;
  // The entry of container/name when it holds a resource of `type`;
  // NotFound or InvalidArgument (worded for a lookup, or for Delete) if not.
  Status FindEntryLocked(const std::string& container, const std::string& name,
                         std::type_index type, const char* mangled_type,
                         bool deleting, const Entry** entry) const
      OPKIT_REQUIRES_SHARED(mu_);
  Status DoLookupLocked(const std::string& container, const std::string& name,
                        std::type_index type, const char* mangled_type,
                        ResourceBase** resource) const
      OPKIT_REQUIRES_SHARED(mu_);
  Status DoCreateLocked(const std::string& container, const std::string& name,
                        std::type_index type, const char* mangled_type,
                        ResourceBase* resource) OPKIT_REQUIRES(mu_);
  Status DoDelete(const std::string& container, const std::string& name,
                  std::type_index type, const char* mangled_type);
  // The entry of the handle's container/name when its type's hash is the
  // handle's; NotFound naming `type_name` otherwise.
  Status FindHandleEntryLocked(const ResourceHandle& handle,
                               const char* type_name, const Entry** entry) const
      OPKIT_REQUIRES_SHARED(mu_);
  // Erases container/name (which must exist) and returns its resource, with
  // the manager's reference for the caller to drop outside the lock.
  ResourceBase* EraseLocked(const std::string& container,
                            const std::string& name) OPKIT_REQUIRES(mu_);

  const std::string default_container_;
  mutable mutex mu_;
  std::map<std::string, Container> containers_ OPKIT_GUARDED_BY(mu_);
};

// ---------------------------------------------------------------------------
// Implementation of the templates.

template <typename T>
Status ResourceMgr::Create(const std::string& container,
                           const std::string& name, T* resource) {
  CheckDerived<T>();
  return DoCreate(container, name, std::type_index(typeid(T)),
                  typeid(T).name(), resource);
}

template <typename T>
Status ResourceMgr::Lookup(const std::string& container,
                           const std::string& name, T** resource) const {
  CheckDerived<T>();
  ResourceBase* found = nullptr;
  Status s = DoLookup(container, name, std::type_index(typeid(T)),
                      typeid(T).name(), &found);
  // The type was checked by typeid, so the downcast is exact.
  *resource = s.ok() ? static_cast<T*>(found) : nullptr;
  return s;
}

template <typename T>
Status ResourceMgr::LookupOrCreate(const std::string& container,
                                   const std::string& name, T** resource,
                                   const std::function<Status(T**)>& creator) {
  CheckDerived<T>();
  *resource = nullptr;
  const std::type_index type(typeid(T));
  const char* mangled = typeid(T).name();
  ResourceBase* found = nullptr;
  {
    shared_lock l(mu_);
    Status s = DoLookupLocked(container, name, type, mangled, &found);
    if (s.ok()) {
      *resource = static_cast<T*>(found);
      return s;
    }
    if (s.code() != error::NOT_FOUND) return s;
  }
  mutex_lock l(mu_);
  // Another thread may have created it between the two locks.
  Status s = DoLookupLocked(container, name, type, mangled, &found);
  if (s.ok()) {
    *resource = static_cast<T*>(found);
    return s;
  }
  if (s.code() != error::NOT_FOUND) return s;
  T* created = nullptr;
  if (!creator) {
    return Status(error::INVALID_ARGUMENT,
                  "LookupOrCreate for resource " + container + "/" + name +
                      " was given an empty creator function");
  }
  OPKIT_RETURN_IF_ERROR(creator(&created));
  if (created == nullptr) {
    return Status(error::INTERNAL,
                  "The creator function of LookupOrCreate returned OK but no "
                  "resource for " +
                      container + "/" + name +
                      "; it must set its argument to a new resource");
  }
  s = DoCreateLocked(container, name, type, mangled, created);
  if (!s.ok()) {
    created->Unref();
    return s;
  }
  created->Ref();  // The caller's; the creator's reference went to the manager.
  *resource = created;
  return OkStatus();
}

template <typename T>
Status ResourceMgr::Delete(const std::string& container,
                           const std::string& name) {
  CheckDerived<T>();
  return DoDelete(container, name, std::type_index(typeid(T)),
                  typeid(T).name());
}

}  // namespace opkit

#endif  // OPKIT_RESOURCE_RESOURCE_MGR_H_

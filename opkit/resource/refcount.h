// core::RefCounted: an intrusive, thread-safe reference count for objects
// shared between owners that come and go (resources held by a ResourceMgr
// and looked up by many kernels), and core::ScopedUnref to give a reference
// back at the end of a scope; core::RefCountPtr<T> owns one reference the
// way std::unique_ptr owns an object.
//
//   class Counter : public core::RefCounted { ... };
//   Counter* c = new Counter;        // count 1, owned by the caller
//   c->Ref();                        // count 2
//   core::ScopedUnref unref(c);      // count back to 1 at scope exit
//   c->Unref();                      // count 0: deleted
//
// Thread-safe: Ref() and Unref() may be called from any thread.
#ifndef OPKIT_RESOURCE_REFCOUNT_H_
#define OPKIT_RESOURCE_REFCOUNT_H_

#include <atomic>
#include <cstdint>
#include <memory>

#include "opkit/core/export.h"

namespace opkit {
namespace core {

class OPKIT_EXPORT RefCounted {
 public:
  // Starts with a count of one, held by the creator.
  RefCounted() = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;

  // Adds a reference. The object must be alive (count >= 1).
  void Ref() const { ref_.fetch_add(1, std::memory_order_relaxed); }

  // Drops a reference; deletes the object when it was the last one and
  // returns true then.
  bool Unref() const {
    // acq_rel: the deleting thread must see every write made by the
    // threads that dropped their references before it.
    if (ref_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      delete this;
      return true;
    }
    return false;
  }

  // Whether the caller holds the only reference.
  bool RefCountIsOne() const {
    return ref_.load(std::memory_order_acquire) == 1;
  }

 protected:
  // Only Unref() deletes: a ref-counted object is never destroyed directly.
  virtual ~RefCounted() = default;

 private:
  mutable std::atomic<int64_t> ref_{1};
};

// Calls Unref() on `obj` (if not null) when the scope ends.
//
//   Var* v = nullptr;
//   OPKIT_RETURN_IF_ERROR(rm->Lookup("c", "v", &v));
//   core::ScopedUnref unref(v);
class ScopedUnref {
 public:
  explicit ScopedUnref(const RefCounted* obj) : obj_(obj) {}
  ~ScopedUnref() {
    if (obj_ != nullptr) obj_->Unref();
  }
  ScopedUnref(const ScopedUnref&) = delete;
  ScopedUnref& operator=(const ScopedUnref&) = delete;

 private:
  const RefCounted* obj_;
};

// Gives back one reference instead of deleting.
struct RefCountDeleter {
  void operator()(const RefCounted* o) const { o->Unref(); }
};

// Holds one reference to a T and drops it when reset or destroyed
// (TensorFlow's core::RefCountPtr).
//
//   core::RefCountPtr<Table> table;
//   OP_REQUIRES_OK(ctx, LookupResource(ctx, HandleFromInput(ctx, 0), &table));
//   table->size();   // the reference goes when `table` goes out of scope
template <typename T>
class RefCountPtr : public std::unique_ptr<T, RefCountDeleter> {
 public:
  using std::unique_ptr<T, RefCountDeleter>::unique_ptr;
  // A second owner: adds a reference and returns a pointer holding it.
  RefCountPtr GetNewRef() const {
    if (this->get() != nullptr) this->get()->Ref();
    return RefCountPtr(this->get());
  }
};

}  // namespace core
}  // namespace opkit

#endif  // OPKIT_RESOURCE_REFCOUNT_H_

// Registration batches: the one mechanism op registration (opkit/op/op.h)
// and kernel registration (opkit/kernel/kernel_registration.h) share. A
// macro appends to a process-wide PendingRegistrations list; a registry
// commits a batch of them all or nothing and hands back a RegistrationHandle
// for exactly what the batch registered; releasing the handle removes it.
//
//   // What REGISTER_OP's static object does:
//   PendingOps().Add(std::move(registration));
//   // What the library loader does after dlopen():
//   OPKIT_ASSIGN_OR_RETURN(CommittedOpBatch ops,
//       CommitOpBatch(TakePendingOpRegistrations(), OpRegistry::Global(), path));
//   OPKIT_ASSIGN_OR_RETURN(RegistrationHandle kernels,
//       KernelRegistry::Global()->CommitBatch(TakePendingKernelRegistrations(),
//                                             path));
//   // (had the kernels failed, `ops.handle` going out of scope would have
//   // rolled the ops back)
//   ...
//   OPKIT_RETURN_IF_ERROR(kernels.Remove());     // Unload: exactly those
//   OPKIT_RETURN_IF_ERROR(ops.handle.Remove());
//
// Note [Registration batches]
// Registration happens in two phases, for ops and kernels alike:
//   1. Pending. A registration macro's static initializer appends to a
//      process-wide PendingRegistrations<T> (living in libopkit_framework.so,
//      so plugins share it). It checks nothing and cannot fail or throw.
//   2. Commit. A registry takes a batch (what one library, or the program,
//      registered), checks every registration against itself, and lands all
//      of it or none: the first failing registration's Status is returned
//      and the registry is as it was. Conflicts are rejected, never merely
//      warned about: an op name taken by a different OpDef (AlreadyExists),
//      a kernel that would make selection ambiguous with a registered one
//      (InvalidArgument, TensorFlow's "Multiple OpKernel registrations
//      match" naming both origins and the fixes; Note [Kernel ambiguity] in
//      kernel_registry.h).
//   3. Handle. A committed batch yields a RegistrationHandle: Remove() (or
//      the destructor) removes exactly what that batch registered, nothing
//      registered before or after it; Detach() keeps it for good.
//   4. Roll back. Committing into several registries (a library's ops, then
//      its kernels) is all or nothing because each step's handle is held
//      until the last step succeeds: a failed step returns, the handles of
//      the earlier steps go out of scope, and what they registered is
//      removed again.
// Code linked into the program is committed by the first use of each global
// registry, registration by registration, so that one bad registration does
// not take the others down (it is skipped and logged with LOG(ERROR)).
// The generic part (the pending list and the handle) lives here, in core,
// because both the op layer and the kernel layer use it and the loader
// (runtime) combines them: kernel/ could see op/, but op/ cannot see
// kernel/, and neither part knows anything of ops or kernels (a template
// over the registration type, and a handle over undo functions), so core —
// the lowest layer, next to Status — is where it belongs.
#ifndef OPKIT_CORE_REGISTRATION_BATCH_H_
#define OPKIT_CORE_REGISTRATION_BATCH_H_

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/mutex.h"
#include "opkit/core/status.h"

namespace opkit {

// A process-wide list of registrations waiting to be committed (phase 1 of
// Note [Registration batches]). Thread-safe. Define each list once, in a
// .cc of libopkit_framework.so, as a leaked object (static initializers of
// other libraries may use it at any time, before or after the framework's
// own).
template <typename T>
class PendingRegistrations {
 public:
  PendingRegistrations() = default;
  PendingRegistrations(const PendingRegistrations&) = delete;
  PendingRegistrations& operator=(const PendingRegistrations&) = delete;

  // Appends `item`.
  void Add(T item) {
    mutex_lock lock(mu_);
    items_.push_back(std::move(item));
  }

  // Removes and returns every item, oldest first.
  std::vector<T> TakeAll() {
    mutex_lock lock(mu_);
    std::vector<T> out;
    out.swap(items_);
    return out;
  }

  // Removes and returns the items for which `select` is true, oldest first;
  // the others stay in their order. An empty `select` takes nothing.
  std::vector<T> Take(const std::function<bool(const T&)>& select) {
    if (!select) return {};
    mutex_lock lock(mu_);
    std::vector<T> taken;
    std::vector<T> kept;
    for (T& item : items_) {
      (select(item) ? taken : kept).push_back(std::move(item));
    }
    items_.swap(kept);
    return taken;
  }

  // How many items are pending.
  size_t size() const {
    mutex_lock lock(mu_);
    return items_.size();
  }

 private:
  mutable mutex mu_;
  std::vector<T> items_ OPKIT_GUARDED_BY(mu_);
};

// What one committed batch registered (phase 3 of Note [Registration
// batches]). Remove() or the destructor removes exactly those registrations;
// Detach() keeps them for good. Must not outlive the registries it refers
// to (the global ones are never destroyed). Move-only; not thread-safe (one
// owner), though removing is safe against concurrent use of the registries.
//
//   {
//     OPKIT_ASSIGN_OR_RETURN(RegistrationHandle h, registry.CommitBatch(...));
//     ... the batch's kernels are selectable ...
//   }  // ... and gone again here
class [[nodiscard]] OPKIT_EXPORT RegistrationHandle {
 public:
  // Removes what one registration step registered; OK when it is gone
  // already.
  using Undo = std::function<Status()>;

  // An empty handle (removes nothing).
  RegistrationHandle() = default;
  // A handle whose removal runs `undo` once.
  explicit RegistrationHandle(Undo undo);
  RegistrationHandle(RegistrationHandle&& other) noexcept;
  // Removes what this handle held, then takes over `other`'s.
  RegistrationHandle& operator=(RegistrationHandle&& other) noexcept;
  RegistrationHandle(const RegistrationHandle&) = delete;
  RegistrationHandle& operator=(const RegistrationHandle&) = delete;
  // Remove(); a failure is logged with LOG(ERROR).
  ~RegistrationHandle();

  // Removes the registrations, the most recently merged first; every step
  // is attempted and the first failure returned. The handle is empty
  // afterwards either way.
  Status Remove();
  // Adds `other`'s registrations to this handle's; Remove() removes them
  // before this handle's own. `other` is left empty.
  void Merge(RegistrationHandle other);
  // Keeps the registrations for good: the handle forgets them.
  void Detach() { undo_.clear(); }

  bool empty() const { return undo_.empty(); }

 private:
  std::vector<Undo> undo_;
};

}  // namespace opkit

#endif  // OPKIT_CORE_REGISTRATION_BATCH_H_

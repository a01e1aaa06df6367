// Replacing kernels at run time: KernelFilter picks registered kernels,
// KernelRegistry::Unregister() hides them and returns a
// KernelRegistrationHandle that shows them again, and ScopedKernelOverride
// registers a kernel that wins for as long as it lives.
//
//   // Hide the built-in CPU MatMul kernels, and bring them back:
//   OPKIT_ASSIGN_OR_RETURN(KernelRegistrationHandle hidden,
//       registry.Unregister(KernelFilter().Op("MatMul").Device(DEVICE_CPU)));
//   ...
//   OPKIT_RETURN_IF_ERROR(hidden.Restore());
//
//   // Swap the float CPU kernel for a faster one while `fast` lives:
//   auto fast = ScopedKernelOverride::Create(&registry, std::move(fast_reg));
//
// Note [Kernel replacement]
// Unregister(filter) hides the matching kernels and returns a handle whose
// Restore() shows them again; ScopedKernelOverride registers a kernel that
// wins and removes it on destruction. Every change of the registered set
// bumps KernelRegistry::generation(), which caches of selected kernels
// compare so that they re-select; and every change that makes a different
// kernel win is logged once with LOG(INFO), naming the kernel that now wins
// and the one it displaced (the kernel that was actually winning for those
// nodes, not merely the previous registration of the op; cf.
// pytorch/pytorch#65825).
#ifndef OPKIT_KERNEL_KERNEL_REPLACEMENT_H_
#define OPKIT_KERNEL_KERNEL_REPLACEMENT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/core/statusor.h"
#include "opkit/kernel/kernel_registration.h"
#include "opkit/tensor/types.h"
#include "opkit/kernel_def.pb.h"

namespace opkit {

class KernelRegistry;

// Which kernels Unregister() acts on. Every field left empty matches all.
struct OPKIT_EXPORT KernelFilter {
  // Op name.
  std::string op;
  // Device type ("CPU").
  std::string device_type;
  // Label: unset matches every label; "" matches only unlabelled kernels.
  std::optional<std::string> label;
  // The kernel class name as registered.
  std::string kernel_class_name;
  // origin.library of the registration ("" matches all; code linked into the
  // program has an empty library and cannot be singled out this way).
  std::string library;
  // Kernels that would accept a node whose attr `first` is `second`: the
  // kernel has no constraint on that attr, or its constraint allows it.
  std::vector<std::pair<std::string, DataType>> types;

  // Chainable setters: KernelFilter().Op("MatMul").Device(DEVICE_CPU)
  //                        .Type("T", DT_FLOAT).
  KernelFilter& Op(std::string v) { op = std::move(v); return *this; }
  KernelFilter& Device(std::string v) { device_type = std::move(v); return *this; }
  KernelFilter& Label(std::string v) { label = std::move(v); return *this; }
  KernelFilter& KernelClass(std::string v) { kernel_class_name = std::move(v); return *this; }
  KernelFilter& Library(std::string v) { library = std::move(v); return *this; }
  KernelFilter& Type(std::string attr, DataType dt) {
    types.emplace_back(std::move(attr), dt);
    return *this;
  }

  // Whether `registration` passes the filter.
  bool Matches(const KernelRegistration& registration) const;
  // "op='MatMul' device='CPU' T=DT_FLOAT", or "<all kernels>".
  std::string DebugString() const;
};

// What Unregister() returns: the kernels it hid, and the way to show them
// again. Destroying the handle does NOT restore them (an unregistration is
// permanent unless restored); use ScopedKernelOverride for a change that
// undoes itself. Must not outlive its registry. Move-only; not thread-safe
// (one owner), though Restore() is safe against concurrent registry use.
class [[nodiscard]] OPKIT_EXPORT KernelRegistrationHandle {
 public:
  // An empty handle (restores nothing).
  KernelRegistrationHandle() = default;
  KernelRegistrationHandle(KernelRegistrationHandle&& other) noexcept;
  KernelRegistrationHandle& operator=(KernelRegistrationHandle&& other) noexcept;
  KernelRegistrationHandle(const KernelRegistrationHandle&) = delete;
  KernelRegistrationHandle& operator=(const KernelRegistrationHandle&) = delete;
  ~KernelRegistrationHandle();

  // Puts the hidden kernels back (those since removed for good, e.g. by
  // unloading their library, stay removed). FailedPrecondition if already
  // restored or empty.
  Status Restore();

  // The kernels this handle hid (valid for the registry's lifetime).
  const std::vector<const KernelDef*>& kernels() const { return defs_; }
  size_t size() const { return defs_.size(); }
  // True until Restore() succeeds.
  bool pending_restore() const { return registry_ != nullptr; }

 private:
  friend class KernelRegistry;
  KernelRegistry* registry_ = nullptr;
  uint64_t token_ = 0;
  std::vector<const KernelDef*> defs_;
};

// Registers a kernel that wins wherever it matches, for the lifetime of this
// object; destruction removes it, so the previously selected kernels win
// again. The kernel's priority is raised, if needed, to one above every
// registered kernel of the same op, device and label whose constraints
// overlap its own (the registered KernelDef shows the raised priority).
// Must not outlive its registry. Not copyable or movable (own it through the
// unique_ptr).
//
//   OPKIT_ASSIGN_OR_RETURN(auto scoped,
//       ScopedKernelOverride::Create(&registry, std::move(fast_matmul)));
//   ... every MatMul float CPU node selects fast_matmul here ...
//   scoped.reset();   // the built-in kernel wins again
class OPKIT_EXPORT ScopedKernelOverride {
 public:
  // Validates `registration` as KernelRegistry::RegisterBatch() does.
  // FailedPrecondition if a kernel it would have to outrank already has the
  // highest priority.
  static StatusOr<std::unique_ptr<ScopedKernelOverride>> Create(
      KernelRegistry* registry, KernelRegistration registration);

  ~ScopedKernelOverride();
  ScopedKernelOverride(const ScopedKernelOverride&) = delete;
  ScopedKernelOverride& operator=(const ScopedKernelOverride&) = delete;

  // The registered KernelDef (with its possibly raised priority).
  const KernelDef& kernel_def() const { return *def_; }

 private:
  ScopedKernelOverride(KernelRegistry* registry, KernelBatchId id,
                       const KernelDef* def)
      : registry_(registry), id_(id), def_(def) {}
  KernelRegistry* registry_;
  KernelBatchId id_;
  const KernelDef* def_;
};

}  // namespace opkit

#endif  // OPKIT_KERNEL_KERNEL_REPLACEMENT_H_

// KernelRegistry: the registered kernels (one KernelDef, class name, factory
// and origin each), how a node on a device selects one, and how kernels are
// replaced at run time. The concepts have headers of their own, which this
// one includes because the registry's methods use their types:
//   kernel_registration.h  KernelRegistration and the pending list that
//                          REGISTER_KERNEL_BUILDER feeds;
//   kernel_selection.h     KernelSelection, ExplainKernelSelection's answer,
//                          TensorFlow's FindKernelDef and friends;
//   kernel_replacement.h   KernelFilter, KernelRegistrationHandle,
//                          ScopedKernelOverride.
//
//   OpRegistry ops;                              // a test builds its own
//   KernelRegistry kernels(&ops);
//   KernelRegistration reg;
//   reg.def = KernelDefBuilder("MatMul").Device(DEVICE_CPU)
//                 .TypeConstraint<float>("T").BuildDef();
//   reg.kernel_class_name = "MatMulOp<float>";
//   reg.factory = &CreateMatMulFloat;
//   OPKIT_RETURN_IF_ERROR(kernels.Register(std::move(reg)));
//
//   const KernelDef* def = nullptr;
//   std::string class_name;
//   OPKIT_RETURN_IF_ERROR(kernels.FindKernelDef(DeviceType(DEVICE_CPU), node,
//                                               &def, &class_name));
//
//   // Swap the float CPU kernel for a faster one while `fast` lives:
//   auto fast = ScopedKernelOverride::Create(&kernels, std::move(fast_reg));
//
// The process-wide registry is KernelRegistry::Global(); the free functions
// of kernel_selection.h (FindKernelDef, KernelsRegisteredForOp, ...) have
// TensorFlow's signatures and use it.
//
// Note [Kernel registry concurrency]
// Thread-safe. Lookups never take the registry's mutex: they read an
// immutable index published atomically (a reader sees the registry entirely
// before or entirely after a change; internal/published_snapshot.h) and,
// when a kernel is found, allocate nothing unless they copy a class name
// out. Changes are serialized by a mutex, build a new index, publish it and
// wait for lookups still reading the old index before freeing it.
// Registration records are never freed before the registry is destroyed, so
// every `const KernelDef*` and class name pointer handed out stays valid for
// the registry's lifetime, also after the kernel is unregistered or removed.
// The price: memory grows with every registration ever made (a few hundred
// bytes each, ScopedKernelOverride included), and a change costs time
// linear in that count; a program should not create overrides in an
// unbounded loop.
//
// Note [Kernel ambiguity]
// Two kernels of one op, device and label with the same priority whose
// constraints overlap (KernelConstraintsOverlap) would both match some node,
// and selection could not choose between them. TensorFlow accepts such a
// registration and fails every later run of those nodes ("Multiple OpKernel
// registrations match NodeDef"); opkit refuses it when it is committed, as
// the one policy of every commit (Note [Registration batches] in
// core/registration_batch.h): RegisterBatch, CommitPending, CommitBatch and
// the library loader fail with InvalidArgument in TensorFlow's wording,
// naming both kernels with their origins and the three ways out (a higher
// Priority(), Unregister() first, a distinct Label()), and leave the
// registry unchanged. Code linked into the program is committed by the
// first use of Global(), which skips a failing registration instead of
// failing them all: the later of two tied kernels is skipped and that error
// logged with LOG(ERROR), so the program runs with the first. Restoring unregistered kernels (Restore()) puts back
// what was accepted before and is not refused; if a kernel registered in
// the meantime ties with one of them, a LOG(WARNING) says so and selecting
// for the nodes both match is the ambiguity error of Note [Kernel
// selection].
#ifndef OPKIT_KERNEL_KERNEL_REGISTRY_H_
#define OPKIT_KERNEL_KERNEL_REGISTRY_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/registration_batch.h"
#include "opkit/core/status.h"
#include "opkit/core/statusor.h"
#include "opkit/device/device_type.h"
#include "opkit/kernel/kernel_registration.h"
#include "opkit/kernel/kernel_replacement.h"
#include "opkit/kernel/kernel_selection.h"
#include "opkit/kernel_def.pb.h"
#include "opkit/node_def.pb.h"

namespace opkit {

class OpRegistryInterface;

// The kernel registry. See the file comment and its Notes.
class OPKIT_EXPORT KernelRegistry {
 public:
  // `op_registry` (borrowed; must outlive this registry) is where ops are
  // looked up at commit (to check constraints) and at selection (for attr
  // defaults).
  explicit KernelRegistry(const OpRegistryInterface* op_registry);
  ~KernelRegistry();
  KernelRegistry(const KernelRegistry&) = delete;
  KernelRegistry& operator=(const KernelRegistry&) = delete;

  // The process-wide registry over OpRegistry::Global(). Its first use
  // commits the pending registrations of code linked into the program (see
  // Note [Pending kernel registrations] in kernel_registration.h). Never
  // destroyed.
  static KernelRegistry* Global();

  const OpRegistryInterface* op_registry() const { return op_registry_; }

  // --- Registering -------------------------------------------------------

  // Registers every element or none. A registration is rejected (the Status
  // names its kernel class, origin and op) when: its op is unknown to the op
  // registry (NotFound); it has no device, no factory, or a HostMemory arg
  // the op does not have; a constraint names an attr the op does not have,
  // constrains types of an attr that is not `type` or `list(type)`, or
  // values of an attr of another kind, or mixes kinds of values
  // (InvalidArgument); it would make selection ambiguous with a registered
  // kernel or an earlier one of the batch (InvalidArgument naming both; Note
  // [Kernel ambiguity]). On success `*id` (if not null) identifies the batch
  // for RemoveBatch().
  Status RegisterBatch(std::vector<KernelRegistration> batch,
                       KernelBatchId* id = nullptr);
  // A batch of one.
  Status Register(KernelRegistration registration, KernelBatchId* id = nullptr);

  // Commits `pending` as one batch (all or nothing), setting each origin's
  // library to `library` (empty: linked into the program). A builder error
  // recorded in a pending registration fails the batch.
  Status CommitPending(std::vector<PendingKernelRegistration> pending,
                       const std::string& library, KernelBatchId* id = nullptr);
  // TakePendingKernelRegistrations() then the above. The taken
  // registrations are consumed even when the commit fails.
  Status CommitPending(const std::string& library, KernelBatchId* id = nullptr);
  // CommitPending(pending, library) as a batch that a handle removes again:
  // Remove() on the handle, or destroying it, removes exactly what the
  // batch registered (Note [Registration batches] in
  // core/registration_batch.h). The handle must not outlive this registry.
  StatusOr<RegistrationHandle> CommitBatch(
      std::vector<PendingKernelRegistration> pending,
      const std::string& library);

  // Removes for good what batch `id` registered (hidden kernels of it
  // included, so no handle can restore them). NotFound for an unknown id or
  // a batch already removed.
  Status RemoveBatch(KernelBatchId id);
  // Removes for good every kernel whose origin.library is `library`;
  // `*removed` (if not null) receives how many. Removing nothing is OK. An
  // empty `library` is InvalidArgument.
  Status RemoveLibrary(const std::string& library, size_t* removed = nullptr);

  // --- Replacing ----------------------------------------------------------

  // Hides every registered kernel that passes `filter` (see Note [Kernel
  // replacement] in kernel_replacement.h). NotFound, listing the op's
  // kernels, if none does.
  StatusOr<KernelRegistrationHandle> Unregister(const KernelFilter& filter);

  // --- Selecting (Note [Kernel selection] in kernel_selection.h) ----------

  // TensorFlow's FindKernelDef: sets *def (if not null) and
  // *kernel_class_name (if not null) to the selected kernel's. With no
  // kernel, NotFound with TensorFlow's FindKernelDef text (Note
  // [FindKernelDef message] in kernel_explanation.cc) followed by why each
  // kernel was rejected.
  Status FindKernelDef(const DeviceType& device_type, const NodeDef& node_def,
                       const KernelDef** def,
                       std::string* kernel_class_name) const;
  // The same selection, yielding the factory and owner as well. Allocates
  // nothing when a kernel is found. With no kernel, NotFound with kernel
  // creation's text ("No OpKernel was registered to support Op ..."), as
  // CreateOpKernel reports it.
  Status FindKernel(const DeviceType& device_type, const NodeDef& node_def,
                    KernelSelection* selection) const;
  // Whether some kernel would be selected (no message built).
  bool KernelDefAvailable(const DeviceType& device_type,
                          const NodeDef& node_def) const;

  // TensorFlow's SupportedDeviceTypesForNode: the device types of
  // `prioritized_types` on which a kernel is selected for `def`, each with
  // that kernel's priority, stably sorted by decreasing priority. For an op
  // unknown to the op registry, every type with priority 0. An ambiguity on
  // some device is returned as an error.
  Status SupportedDeviceTypesForNode(
      const std::vector<DeviceType>& prioritized_types, const NodeDef& def,
      PrioritizedDeviceTypeVector* device_types) const;

  // TensorFlow's format, one line per registered kernel of the op:
  //   "  device='CPU'; label='eigen'; T in [DT_FLOAT, DT_DOUBLE]\n"
  // or "  <no registered kernels>\n".
  std::string KernelsRegisteredForOp(std::string_view op_name) const;
  // KernelDefs of every registered kernel, in registration order.
  KernelList GetAllRegisteredKernels() const;
  KernelList GetRegisteredKernelsForOp(std::string_view op_name) const;
  // Copies of the registrations of the op's kernels, in registration order.
  std::vector<KernelRegistration> GetRegistrationsForOp(
      std::string_view op_name) const;

  // Every kernel of the node's op, whether it matched and why not, and the
  // winner.
  KernelSelectionExplanation ExplainKernelSelection(
      const DeviceType& device_type, const NodeDef& node_def) const;

  // Number of registered (not hidden, not removed) kernels.
  size_t size() const;

  // Bumped by every change of the registered set (register, unregister,
  // restore, remove, override); starts at 0. Readable without a lock.
  uint64_t generation() const {
    return generation_.load(std::memory_order_acquire);
  }

 private:
  friend class KernelRegistrationHandle;
  friend class ScopedKernelOverride;
  struct Impl;

  // FindKernel, with FindKernelDef's no-kernel text when
  // `find_kernel_def_text`.
  Status Find(const DeviceType& device_type, const NodeDef& node_def,
              KernelSelection* selection, bool find_kernel_def_text) const;
  // The op registry's error for unknown op `op`.
  Status UnknownOpStatus(const std::string& op) const;
  Status Restore(uint64_t token);
  Status AddOverride(KernelRegistration registration, KernelBatchId* id,
                     const KernelDef** def);
  Status CommitForGlobal(std::vector<PendingKernelRegistration> pending);

  const OpRegistryInterface* op_registry_;
  std::unique_ptr<Impl> impl_;
  std::atomic<uint64_t> generation_{0};
};

// TensorFlow's accessor of the process-wide kernel registry, which returns
// it as `void*`: here it is KernelRegistry::Global(), so
//   auto* registry = static_cast<KernelRegistry*>(GlobalKernelRegistry());
// gives the registry with its lookups (GetRegisteredKernelsForOp,
// FindKernelDef, ...) and Unregister() to remove a kernel. Code that casts
// it to TensorFlow's private multimap cannot work (compat/README.md).
OPKIT_EXPORT void* GlobalKernelRegistry();

}  // namespace opkit

#endif  // OPKIT_KERNEL_KERNEL_REGISTRY_H_

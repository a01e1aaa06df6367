// KernelRegistry: the registered kernels (one KernelDef, class name, factory
// and origin each), how a node on a device selects one, and how kernels are
// replaced at run time.
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
// at the end (FindKernelDef, KernelsRegisteredForOp, ...) have TensorFlow's
// signatures and use it.
//
// Note [Pending kernel registrations]
// As for ops (Note [Pending op registrations] in op.h), registration happens
// in two phases. REGISTER_KERNEL_BUILDER (op_kernel.h) defines one static
// object whose initializer calls internal::AddPendingKernelRegistration(),
// which only appends to a process-wide pending list; with selective
// registration, kernels whose class fails SHOULD_REGISTER_OP_KERNEL("Class")
// (selective_registration.h) are not even recorded. Committing that list
// (KernelRegistry::CommitPending) checks every registration against the op
// registry and lands them all or none. The first use of Global() commits what
// code linked into the program registered, skipping (and logging with
// LOG(ERROR)) the invalid ones; the library loader commits a library's
// kernels as one batch right after dlopen().
//
// Note [Kernel selection]
// For a node on a device: the op's attr defaults fill attrs the node does not
// set; an op unknown to the op registry is NotFound (with the op registry's
// message). The op is looked up only when needed (a constrained attr the
// node does not set, or no kernel matching), which keeps the common lookup
// to one index probe; since kernels are only committed for known ops this
// is the same answer, unless an op is deregistered while its kernels stay
// registered (the library loader removes both together);
// a kernel is a candidate when its device equals the device, its label
// equals the node's `_kernel` attr (empty when absent), and every constraint
// holds: the node's type attr (or, for a list(type) attr, every element) is
// in the allowed types; a string/int/bool attr equals one allowed value.
// Among candidates the highest priority wins; two at the top priority are an
// ambiguity error (InvalidArgument) naming both and how to resolve it; no
// candidate is NotFound listing every kernel of the op and why each was
// rejected.
//
// Note [Kernel priority]
// Priority (KernelDefBuilder::Priority, default 0) is how one kernel replaces
// another without unregistering it: a plugin registering the same op, device
// and types with a higher priority wins from then on; unregistering it (or
// unloading its library) lets the lower one win again.
//
// Note [Kernel replacement]
// Unregister(filter) hides the matching kernels and returns a handle whose
// Restore() shows them again; ScopedKernelOverride registers a kernel that
// wins and removes it on destruction. Every change of the registered set
// bumps generation(), which caches of selected kernels compare so that they
// re-select; and every change that makes a different kernel win is logged
// once with LOG(INFO), naming the kernel that now wins and the one it
// displaced (the kernel that was actually winning for those nodes, not
// merely the previous registration of the op; cf. pytorch/pytorch#65825).
//
// Note [Kernel registry concurrency]
// Thread-safe. Lookups never take the registry's mutex: they read an
// immutable index published atomically (a reader sees the registry entirely
// before or entirely after a change) and, when a kernel is found, allocate
// nothing unless they copy a class name out. Changes are serialized by a
// mutex, build a new index, publish it and wait for lookups still reading
// the old index before freeing it. Registration records are never freed
// before the registry is destroyed, so every `const KernelDef*` and class
// name pointer handed out stays valid for the registry's lifetime, also
// after the kernel is unregistered or removed. The price: memory grows with
// every registration ever made (a few hundred bytes each, ScopedKernelOverride
// included), and a change costs time linear in that count; a program should
// not create overrides in an unbounded loop.
#ifndef OPKIT_KERNEL_KERNEL_REGISTRY_H_
#define OPKIT_KERNEL_KERNEL_REGISTRY_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/core/statusor.h"
#include "opkit/device/device_type.h"
#include "opkit/kernel/kernel_def_builder.h"
#include "opkit/core/registration_origin.h"
#include "opkit/tensor/types.h"
#include "opkit/kernel_def.pb.h"
#include "opkit/node_def.pb.h"

namespace opkit {

class OpKernel;
class OpKernelConstruction;
class OpRegistryInterface;

// Creates a kernel instance for a node; returns a new object the caller owns
// (null, with an error set on the construction context, on failure).
using KernelFactory = OpKernel* (*)(OpKernelConstruction*);

// Device types in the order a placer prefers them, each with the priority of
// the kernel that would run there.
using PrioritizedDeviceTypeVector = std::vector<std::pair<DeviceType, int32_t>>;

// Everything the registry keeps about one kernel.
struct KernelRegistration {
  // Op, device, constraints, host-memory args, label, priority.
  KernelDef def;
  // The C++ class, as REGISTER_KERNEL_BUILDER spells it ("MatMulOp<float>").
  std::string kernel_class_name;
  // Must not be null.
  KernelFactory factory = nullptr;
  // Where REGISTER_KERNEL_BUILDER was written and which library ran it.
  RegistrationOrigin origin;
  // Keeps a loaded library alive while anything can still call `factory`
  // (set by the library loader; null for code linked into the program).
  std::shared_ptr<const void> owner;
};

// One registration waiting in the pending list (Note [Pending kernel
// registrations]).
struct PendingKernelRegistration {
  KernelRegistration registration;
  // KernelDefBuilder::Finalize()'s verdict; an error fails the commit.
  Status build_status;
};

namespace internal {

// What REGISTER_KERNEL_BUILDER's static object calls: appends the built
// kernel to the process-wide pending list. Never fails; mistakes in the
// builder are reported when the list is committed. `origin` is normally
// {__FILE__, __LINE__, ""}; the library is filled in at commit.
OPKIT_EXPORT void AddPendingKernelRegistration(const KernelDefBuilder& builder,
                                               std::string kernel_class_name,
                                               KernelFactory factory,
                                               RegistrationOrigin origin);
// The same for an already built KernelDef.
OPKIT_EXPORT void AddPendingKernelRegistration(KernelDef def,
                                               std::string kernel_class_name,
                                               KernelFactory factory,
                                               RegistrationOrigin origin);

}  // namespace internal

// Removes and returns every pending kernel registration, oldest first.
OPKIT_EXPORT std::vector<PendingKernelRegistration>
TakePendingKernelRegistrations();
// How many kernel registrations are pending.
OPKIT_EXPORT size_t NumPendingKernelRegistrations();

// Identifies one committed batch (RegisterBatch, CommitPending) for
// RemoveBatch(). Never 0 for a real batch.
using KernelBatchId = uint64_t;

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

class KernelRegistry;

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

// What a successful lookup yields, for CreateOpKernel. The pointers stay
// valid for the registry's lifetime; `owner` keeps the kernel's library
// loaded while the caller holds it.
struct KernelSelection {
  const KernelDef* def = nullptr;
  const std::string* kernel_class_name = nullptr;
  KernelFactory factory = nullptr;
  const RegistrationOrigin* origin = nullptr;
  std::shared_ptr<const void> owner;
  // The registry's generation() read before selecting: if generation() has
  // moved on since, a cache holding this selection should select again.
  uint64_t generation = 0;
};

// One registered kernel of the op, as ExplainKernelSelection() judged it.
struct KernelCandidate {
  KernelDef def;
  std::string kernel_class_name;
  RegistrationOrigin origin;
  // Device, label and every constraint hold.
  bool matched = false;
  // Why it was rejected, or for a match that did not win why not
  // ("lower priority 0 < 1", "ambiguous with ..."); empty for the winner.
  std::string reason;
};

// ExplainKernelSelection()'s answer.
struct OPKIT_EXPORT KernelSelectionExplanation {
  std::string node_name;
  std::string op;
  std::string device_type;
  // The node's `_kernel` attr ("" when absent).
  std::string label;
  // Every registered kernel of the op (all devices), in registration order.
  std::vector<KernelCandidate> candidates;
  // Index of the selected kernel in `candidates`, -1 when none.
  int winner = -1;
  // What FindKernelDef() returns for the node.
  Status status;

  // A readable multi-line report: one line per candidate with its verdict,
  // then the selected kernel or the error.
  std::string ToString() const;
};

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
  // Note [Pending kernel registrations]). Never destroyed.
  static KernelRegistry* Global();

  const OpRegistryInterface* op_registry() const { return op_registry_; }

  // --- Registering -------------------------------------------------------

  // Registers every element or none. A registration is rejected (the Status
  // names its kernel class, origin and op) when: its op is unknown to the op
  // registry (NotFound); it has no device, no factory, or a HostMemory arg
  // the op does not have; a constraint names an attr the op does not have,
  // constrains types of an attr that is not `type` or `list(type)`, or
  // values of an attr of another kind, or mixes kinds of values
  // (InvalidArgument). A registration identical to a registered one (or to
  // another of the batch) in op, device, label, constraints and priority is
  // accepted with a LOG(WARNING) naming both origins, since selection will
  // find them ambiguous. On success `*id` (if not null) identifies the batch
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
  // replacement]). NotFound, listing the op's kernels, if none does.
  StatusOr<KernelRegistrationHandle> Unregister(const KernelFilter& filter);

  // --- Selecting (Note [Kernel selection]) --------------------------------

  // TensorFlow's FindKernelDef: sets *def (if not null) and
  // *kernel_class_name (if not null) to the selected kernel's.
  Status FindKernelDef(const DeviceType& device_type, const NodeDef& node_def,
                       const KernelDef** def,
                       std::string* kernel_class_name) const;
  // The same selection, yielding the factory and owner as well. Allocates
  // nothing when a kernel is found.
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

  Status Restore(uint64_t token);
  Status AddOverride(KernelRegistration registration, KernelBatchId* id,
                     const KernelDef** def);
  Status CommitForGlobal(std::vector<PendingKernelRegistration> pending);

  const OpRegistryInterface* op_registry_;
  std::unique_ptr<Impl> impl_;
  std::atomic<uint64_t> generation_{0};
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
  // Validates `registration` as RegisterBatch() does. FailedPrecondition if a
  // kernel it would have to outrank already has the highest priority.
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

// --- TensorFlow's free functions, over KernelRegistry::Global() ------------

OPKIT_EXPORT Status FindKernelDef(const DeviceType& device_type,
                                  const NodeDef& node_def,
                                  const KernelDef** def,
                                  std::string* kernel_class_name);
OPKIT_EXPORT bool KernelDefAvailable(const DeviceType& device_type,
                                     const NodeDef& node_def);
OPKIT_EXPORT Status SupportedDeviceTypesForNode(
    const std::vector<DeviceType>& prioritized_types, const NodeDef& def,
    PrioritizedDeviceTypeVector* device_types);
OPKIT_EXPORT std::string KernelsRegisteredForOp(std::string_view op_name);
OPKIT_EXPORT KernelList GetAllRegisteredKernels();
OPKIT_EXPORT KernelList GetRegisteredKernelsForOp(std::string_view op_name);
OPKIT_EXPORT KernelSelectionExplanation
ExplainKernelSelection(const DeviceType& device_type, const NodeDef& node_def);

}  // namespace opkit

#endif  // OPKIT_KERNEL_KERNEL_REGISTRY_H_

// What a kernel registration is (KernelRegistration: KernelDef, class name,
// factory, origin) and the process-wide pending list that
// REGISTER_KERNEL_BUILDER (op_kernel.h) appends to until a KernelRegistry
// (kernel_registry.h) commits it. This is all a kernel author's header needs
// of the registry.
//
//   internal::AddPendingKernelRegistration(
//       KernelDefBuilder("ZeroOut").Device(DEVICE_CPU), "ZeroOutOp",
//       &CreateZeroOut, RegistrationOrigin{__FILE__, __LINE__, ""});
//   ...
//   std::vector<PendingKernelRegistration> batch =
//       TakePendingKernelRegistrations();
//
// Note [Pending kernel registrations]
// As for ops (Note [Pending op registrations] in op.h), registration happens
// in two phases, through the mechanism of Note [Registration batches]
// (core/registration_batch.h). REGISTER_KERNEL_BUILDER defines one static
// object whose initializer calls internal::AddPendingKernelRegistration(),
// which only appends to a process-wide pending list; with selective
// registration, kernels whose class fails SHOULD_REGISTER_OP_KERNEL("Class")
// (selective_registration.h) are not even recorded. Committing that list
// (KernelRegistry::CommitPending, or CommitBatch for a batch a handle can
// remove again) checks every registration against the op registry and lands
// them all or none, refusing one that would make selection ambiguous (Note
// [Kernel ambiguity] in kernel_registry.h). The first use of
// KernelRegistry::Global() commits what code linked into the program
// registered, skipping (and logging with LOG(ERROR)) the invalid ones; the
// library loader commits a library's kernels as one batch right after
// dlopen().
#ifndef OPKIT_KERNEL_KERNEL_REGISTRATION_H_
#define OPKIT_KERNEL_KERNEL_REGISTRATION_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/registration_origin.h"
#include "opkit/core/status.h"
#include "opkit/kernel/kernel_def_builder.h"
#include "opkit/kernel_def.pb.h"

namespace opkit {

class OpKernel;
class OpKernelConstruction;

// Creates a kernel instance for a node; returns a new object the caller owns
// (null, with an error set on the construction context, on failure).
using KernelFactory = OpKernel* (*)(OpKernelConstruction*);

// TensorFlow's factory object, for a registration that needs state to create
// its kernels (kernel_factory::OpKernelRegistrar takes one). Create() has
// KernelFactory's contract. Create() may be called from several threads at
// once.
//
//   class MyFactory : public OpKernelFactory {
//     OpKernel* Create(OpKernelConstruction* c) override {
//       return new MyKernel(c, options_);
//     }
//   };
class OpKernelFactory {
 public:
  virtual ~OpKernelFactory() = default;
  virtual OpKernel* Create(OpKernelConstruction* context) = 0;
};

// Everything the registry keeps about one kernel.
struct KernelRegistration {
  // Op, device, constraints, host-memory args, label, priority.
  KernelDef def;
  // The C++ class, as REGISTER_KERNEL_BUILDER spells it ("MatMulOp<float>").
  std::string kernel_class_name;
  // Creates the kernel; exactly one of `factory` and `factory_object` is
  // set (factory_object is used when both are).
  KernelFactory factory = nullptr;
  std::shared_ptr<OpKernelFactory> factory_object;
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

// Identifies one committed batch (KernelRegistry::RegisterBatch,
// CommitPending) for KernelRegistry::RemoveBatch(). Never 0 for a real
// batch.
using KernelBatchId = uint64_t;

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
// Appends a registration as it is (a factory object, a builder error and
// all); what the library loader uses to put back registrations that were
// not its library's.
OPKIT_EXPORT void AddPendingKernelRegistration(
    PendingKernelRegistration registration);

}  // namespace internal

// Removes and returns every pending kernel registration, oldest first.
OPKIT_EXPORT std::vector<PendingKernelRegistration>
TakePendingKernelRegistrations();
// How many kernel registrations are pending.
OPKIT_EXPORT size_t NumPendingKernelRegistrations();

}  // namespace opkit

#endif  // OPKIT_KERNEL_KERNEL_REGISTRATION_H_

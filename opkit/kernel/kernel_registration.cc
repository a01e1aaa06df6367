// The process-wide list of pending kernel registrations (Note [Pending
// kernel registrations] in kernel_registration.h).
#include "opkit/kernel/kernel_registration.h"

#include <utility>
#include <vector>

#include "opkit/core/registration_batch.h"

namespace opkit {
namespace {

// The list REGISTER_KERNEL_BUILDER appends to. Never destroyed: static
// initializers of other libraries may append to it at any time, and it must
// outlive every static destructor.
PendingRegistrations<PendingKernelRegistration>& PendingKernels() {
  static auto* const list = new PendingRegistrations<PendingKernelRegistration>;
  return *list;
}

}  // namespace

namespace internal {

void AddPendingKernelRegistration(const KernelDefBuilder& builder,
                                  std::string kernel_class_name,
                                  KernelFactory factory,
                                  RegistrationOrigin origin) {
  PendingKernelRegistration p;
  p.build_status = builder.Finalize(&p.registration.def);
  p.registration.kernel_class_name = std::move(kernel_class_name);
  p.registration.factory = factory;
  p.registration.origin = std::move(origin);
  PendingKernels().Add(std::move(p));
}

void AddPendingKernelRegistration(KernelDef def, std::string kernel_class_name,
                                  KernelFactory factory,
                                  RegistrationOrigin origin) {
  PendingKernelRegistration p;
  p.registration.def = std::move(def);
  p.registration.kernel_class_name = std::move(kernel_class_name);
  p.registration.factory = factory;
  p.registration.origin = std::move(origin);
  PendingKernels().Add(std::move(p));
}

void AddPendingKernelRegistration(PendingKernelRegistration registration) {
  PendingKernels().Add(std::move(registration));
}

}  // namespace internal

std::vector<PendingKernelRegistration> TakePendingKernelRegistrations() {
  return PendingKernels().TakeAll();
}

size_t NumPendingKernelRegistrations() { return PendingKernels().size(); }

}  // namespace opkit

// The process-wide list of pending kernel registrations (Note [Pending
// kernel registrations] in kernel_registration.h).
#include "opkit/kernel/kernel_registration.h"

#include <utility>
#include <vector>

#include "opkit/core/mutex.h"

namespace opkit {
namespace {

struct PendingList {
  mutex mu;
  std::vector<PendingKernelRegistration> items OPKIT_GUARDED_BY(mu);
};

PendingList& Pending() {
  // Never destroyed: static initializers of other libraries may append to it
  // at any time, and it must outlive every static destructor.
  static PendingList* const list = new PendingList;
  return *list;
}

void AppendPending(PendingKernelRegistration p) {
  PendingList& list = Pending();
  mutex_lock lock(list.mu);
  list.items.push_back(std::move(p));
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
  AppendPending(std::move(p));
}

void AddPendingKernelRegistration(KernelDef def, std::string kernel_class_name,
                                  KernelFactory factory,
                                  RegistrationOrigin origin) {
  PendingKernelRegistration p;
  p.registration.def = std::move(def);
  p.registration.kernel_class_name = std::move(kernel_class_name);
  p.registration.factory = factory;
  p.registration.origin = std::move(origin);
  AppendPending(std::move(p));
}

}  // namespace internal

std::vector<PendingKernelRegistration> TakePendingKernelRegistrations() {
  PendingList& list = Pending();
  mutex_lock lock(list.mu);
  std::vector<PendingKernelRegistration> out;
  out.swap(list.items);
  return out;
}

size_t NumPendingKernelRegistrations() {
  PendingList& list = Pending();
  mutex_lock lock(list.mu);
  return list.items.size();
}

}  // namespace opkit

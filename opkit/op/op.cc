// The process-wide pending list behind REGISTER_OP and committing it into an
// OpRegistry (Note [Pending op registrations] in op.h).
#include "opkit/op/op.h"

#include <utility>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/core/registration_batch.h"

namespace opkit {
namespace {

// The list REGISTER_OP appends to. Leaked on purpose: static initializers of
// other libraries may use it before or after ours run.
PendingRegistrations<PendingOpRegistration>& PendingOps() {
  static auto* const list = new PendingRegistrations<PendingOpRegistration>;
  return *list;
}

Status CheckRegistry(const OpRegistry* registry, size_t count) {
  if (registry != nullptr) return OkStatus();
  return errors::InvalidArgument(
      "CommitOpRegistrations needs a registry to commit ", count,
      " op registration(s) into; got null");
}

// The registry's factories for `registrations`: each runs the pending
// factory and gives the result its origin, with library `library` unless
// that is empty.
std::vector<OpRegistrationDataFactory> CommitFactories(
    PendingOpRegistrations registrations, const std::string& library) {
  std::vector<OpRegistrationDataFactory> factories;
  factories.reserve(registrations.size());
  for (PendingOpRegistration& registration : registrations) {
    factories.push_back(
        [registration = std::move(registration), library](
            OpRegistrationData* data) -> Status {
          Status s = registration.factory
                         ? registration.factory(data)
                         : errors::InvalidArgument(
                               "Pending op registration has no factory");
          // Whatever the factory did, messages should name the op and the
          // place REGISTER_OP was written.
          if (data->op_def.name().empty()) {
            data->op_def.set_name(registration.op_name);
          }
          if (data->origin.file.empty()) {
            data->origin.file = registration.origin.file;
            data->origin.line = registration.origin.line;
          }
          data->origin.library =
              library.empty() ? registration.origin.library : library;
          return s;
        });
  }
  return factories;
}

}  // namespace

void AddPendingOpRegistration(OpDefBuilder builder, RegistrationOrigin origin) {
  PendingOpRegistration registration;
  registration.op_name = builder.op_name();
  builder.SetOrigin(origin);
  registration.origin = std::move(origin);
  registration.factory = [builder = std::move(builder)](
                             OpRegistrationData* data) {
    return builder.Finalize(data);
  };
  AddPendingOpRegistration(std::move(registration));
}

void AddPendingOpRegistration(PendingOpRegistration registration) {
  PendingOps().Add(std::move(registration));
}

PendingOpRegistrations TakePendingOpRegistrations() {
  return PendingOps().TakeAll();
}

PendingOpRegistrations TakePendingOpRegistrations(
    const std::function<bool(const PendingOpRegistration&)>& select) {
  return PendingOps().Take(select);
}

size_t NumPendingOpRegistrations() { return PendingOps().size(); }

Status CommitOpRegistrations(PendingOpRegistrations registrations,
                             OpRegistry* registry, const std::string& library) {
  OPKIT_RETURN_IF_ERROR(CheckRegistry(registry, registrations.size()));
  return registry->RegisterBatch(
      CommitFactories(std::move(registrations), library));
}

StatusOr<CommittedOpBatch> CommitOpBatch(PendingOpRegistrations registrations,
                                         OpRegistry* registry,
                                         const std::string& library) {
  OPKIT_RETURN_IF_ERROR(CheckRegistry(registry, registrations.size()));
  CommittedOpBatch committed;
  OPKIT_RETURN_IF_ERROR(registry->RegisterBatch(
      CommitFactories(std::move(registrations), library), &committed));
  return committed;
}

Status CommitPendingOpRegistrations(OpRegistry* registry,
                                    const std::string& library) {
  return CommitOpRegistrations(TakePendingOpRegistrations(), registry,
                               library);
}

namespace register_op {

OpDefBuilderReceiver::OpDefBuilderReceiver(
    const OpDefBuilderWrapper<true>& wrapper) {
  AddPendingOpRegistration(wrapper.builder(), wrapper.origin());
}

}  // namespace register_op
}  // namespace opkit

// RegistrationHandle: removing what a committed registration batch
// registered (Note [Registration batches] in registration_batch.h).
#include "opkit/core/registration_batch.h"

#include <utility>

#include "opkit/core/logging.h"

namespace opkit {

RegistrationHandle::RegistrationHandle(Undo undo) {
  if (undo) undo_.push_back(std::move(undo));
}

RegistrationHandle::RegistrationHandle(RegistrationHandle&& other) noexcept
    : undo_(std::exchange(other.undo_, {})) {}

RegistrationHandle& RegistrationHandle::operator=(
    RegistrationHandle&& other) noexcept {
  if (this != &other) {
    Status s = Remove();
    if (!s.ok()) LOG(ERROR) << "Removing a registration batch failed: " << s;
    undo_ = std::exchange(other.undo_, {});
  }
  return *this;
}

RegistrationHandle::~RegistrationHandle() {
  Status s = Remove();
  if (!s.ok()) LOG(ERROR) << "Removing a registration batch failed: " << s;
}

Status RegistrationHandle::Remove() {
  std::vector<Undo> undo = std::exchange(undo_, {});
  Status first;
  for (auto it = undo.rbegin(); it != undo.rend(); ++it) {
    Status s = (*it)();
    if (first.ok() && !s.ok()) first = s;
  }
  return first;
}

void RegistrationHandle::Merge(RegistrationHandle other) {
  for (Undo& u : other.undo_) undo_.push_back(std::move(u));
  other.undo_.clear();
}

}  // namespace opkit

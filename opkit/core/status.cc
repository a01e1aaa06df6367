// Status: code names and descriptions, the message, ToString and Update.
#include "opkit/core/status.h"

#include "absl/status/status.h"

namespace opkit {
namespace error {

std::string CodeName(Code code) {
  switch (code) {
    case OK: return "OK";
    case CANCELLED: return "CANCELLED";
    case UNKNOWN: return "UNKNOWN";
    case INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case NOT_FOUND: return "NOT_FOUND";
    case ALREADY_EXISTS: return "ALREADY_EXISTS";
    case PERMISSION_DENIED: return "PERMISSION_DENIED";
    case RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case ABORTED: return "ABORTED";
    case OUT_OF_RANGE: return "OUT_OF_RANGE";
    case UNIMPLEMENTED: return "UNIMPLEMENTED";
    case INTERNAL: return "INTERNAL";
    case UNAVAILABLE: return "UNAVAILABLE";
    case DATA_LOSS: return "DATA_LOSS";
    case UNAUTHENTICATED: return "UNAUTHENTICATED";
  }
  return "UNKNOWN_CODE(" + std::to_string(static_cast<int>(code)) + ")";
}

std::string CodeDescription(Code code) {
  switch (code) {
    case OK: return "OK";
    case CANCELLED: return "Cancelled";
    case UNKNOWN: return "Unknown";
    case INVALID_ARGUMENT: return "Invalid argument";
    case DEADLINE_EXCEEDED: return "Deadline exceeded";
    case NOT_FOUND: return "Not found";
    case ALREADY_EXISTS: return "Already exists";
    case PERMISSION_DENIED: return "Permission denied";
    case RESOURCE_EXHAUSTED: return "Resource exhausted";
    case FAILED_PRECONDITION: return "Failed precondition";
    case ABORTED: return "Aborted";
    case OUT_OF_RANGE: return "Out of range";
    case UNIMPLEMENTED: return "Unimplemented";
    case INTERNAL: return "Internal";
    case UNAVAILABLE: return "Unavailable";
    case DATA_LOSS: return "Data loss";
    case UNAUTHENTICATED: return "Unauthenticated";
  }
  return "Unknown code " + std::to_string(static_cast<int>(code));
}

}  // namespace error

Status::Status(error::Code code, std::string_view message) {
  if (code != error::OK) {
    state_ = std::make_unique<State>(State{code, std::string(message)});
  }
}

Status::Status(const Status& other)
    : state_(other.state_ ? std::make_unique<State>(*other.state_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) {
    state_ = other.state_ ? std::make_unique<State>(*other.state_) : nullptr;
  }
  return *this;
}

const std::string& Status::message() const {
  static const std::string* const kEmpty = new std::string();
  return ok() ? *kEmpty : state_->message;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return error::CodeDescription(state_->code) + ": " + state_->message;
}

void Status::Update(const Status& new_status) {
  if (ok() && !new_status.ok()) *this = new_status;
}

bool Status::operator==(const Status& other) const {
  if (ok() || other.ok()) return ok() == other.ok();
  return state_->code == other.state_->code &&
         state_->message == other.state_->message;
}

// Note [absl::Status interop] in status.h.
// Debian's abseil has its own absl::string_view, not std::string_view.
Status::Status(const absl::Status& status)
    : Status(static_cast<error::Code>(status.code()),
             std::string_view(status.message().data(),
                              status.message().size())) {}

Status::operator absl::Status() const {
  if (ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(state_->code),
                      absl::string_view(state_->message));
}

bool operator==(const Status& a, const absl::Status& b) {
  return a.code() == b.code() &&
         absl::string_view(a.message()) == b.message();
}

bool operator==(const absl::Status& a, const Status& b) { return b == a; }

std::ostream& operator<<(std::ostream& os, const Status& s) {
  return os << s.ToString();
}

}  // namespace opkit

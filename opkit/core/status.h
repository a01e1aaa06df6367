// Status: the outcome of a fallible call, a canonical code and a message.
//
// Every recoverable error in opkit is a Status; nothing throws across the
// public API. A message says what was wrong, with the offending value, and
// what to do about it.
//
//   Status s = registry.Register(op_data);
//   if (!s.ok()) {
//     std::cerr << s.ToString() << "\n";  // "Invalid argument: ..."
//     return s;
//   }
//
// Thread-compatible: const methods may be called concurrently.
#ifndef OPKIT_CORE_STATUS_H_
#define OPKIT_CORE_STATUS_H_

#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "absl/base/config.h"
#include "opkit/core/export.h"

// absl::Status is only named here (Note [absl::Status interop]); a caller
// that converts includes "absl/status/status.h" itself.
namespace absl {
ABSL_NAMESPACE_BEGIN
class Status;
enum class StatusCode : int;
ABSL_NAMESPACE_END
}  // namespace absl

namespace opkit {
namespace error {

// The canonical error codes (same numbers as absl, gRPC and TensorFlow).
enum Code : int {
  OK = 0,
  CANCELLED = 1,
  UNKNOWN = 2,
  INVALID_ARGUMENT = 3,
  DEADLINE_EXCEEDED = 4,
  NOT_FOUND = 5,
  ALREADY_EXISTS = 6,
  PERMISSION_DENIED = 7,
  RESOURCE_EXHAUSTED = 8,
  FAILED_PRECONDITION = 9,
  ABORTED = 10,
  OUT_OF_RANGE = 11,
  UNIMPLEMENTED = 12,
  INTERNAL = 13,
  UNAVAILABLE = 14,
  DATA_LOSS = 15,
  UNAUTHENTICATED = 16,
};

// absl::StatusCode has the same numbers: the two compare equal for the same
// canonical code (`absl_status.code() == error::NOT_FOUND`).
constexpr bool operator==(Code a, absl::StatusCode b) {
  return static_cast<int>(a) == static_cast<int>(b);
}
constexpr bool operator==(absl::StatusCode a, Code b) { return b == a; }
constexpr bool operator!=(Code a, absl::StatusCode b) { return !(a == b); }
constexpr bool operator!=(absl::StatusCode a, Code b) { return !(b == a); }

// "INVALID_ARGUMENT" for INVALID_ARGUMENT; "UNKNOWN_CODE(n)" for others.
OPKIT_EXPORT std::string CodeName(Code code);
// "Invalid argument" for INVALID_ARGUMENT: the prefix of Status::ToString().
OPKIT_EXPORT std::string CodeDescription(Code code);

}  // namespace error

class [[nodiscard]] OPKIT_EXPORT Status {
 public:
  // An OK status. Costs one null pointer.
  Status() = default;
  // `code` OK ignores `message` and yields an OK status.
  Status(error::Code code, std::string_view message);
  // The same from absl's code enum (same numbers), as TensorFlow writes
  // `Status(absl::StatusCode::kInternal, msg)`.
  Status(absl::StatusCode code, std::string_view message)
      : Status(static_cast<error::Code>(code), message) {}

  // Note [absl::Status interop]
  // opkit::Status and absl::Status convert into each other implicitly,
  // keeping code and message (absl payloads are dropped), so code written
  // against either compiles against the other: a function returning one
  // may `return` the other, TF_RETURN_IF_ERROR and OP_REQUIRES_OK take
  // both, a shape function may return absl::Status. opkit keeps its own
  // class (its layout is part of the plugin ABI, and Status::OK() /
  // error_message() must stay); the conversions are out of line, so this
  // header needs only absl's config, and libopkit_framework carries the
  // absl_status dependency.
  Status(const absl::Status& status);  // NOLINT: implicit by design
  operator absl::Status() const;       // NOLINT: implicit by design

  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  // TensorFlow's spelling of an OK status.
  static Status OK() { return Status(); }

  bool ok() const { return state_ == nullptr; }
  error::Code code() const { return ok() ? error::OK : state_->code; }
  // Empty for an OK status.
  const std::string& message() const;
  // TensorFlow's name for message().
  const std::string& error_message() const { return message(); }

  // "OK", or "<code description>: <message>".
  std::string ToString() const;

  // Keeps the first error: if this is OK, becomes `new_status`.
  void Update(const Status& new_status);

  // Explicitly ignores the status (for cleanup paths that cannot report).
  void IgnoreError() const {}

  bool operator==(const Status& other) const;
  bool operator!=(const Status& other) const { return !(*this == other); }

 private:
  struct State {
    error::Code code;
    std::string message;
  };
  std::unique_ptr<State> state_;
};

OPKIT_EXPORT std::ostream& operator<<(std::ostream& os, const Status& s);

// Mixed comparisons: exact matches, so neither side's implicit conversion
// makes `opkit_status == absl::OkStatus()` ambiguous. Equal when code and
// message are.
OPKIT_EXPORT bool operator==(const Status& a, const absl::Status& b);
OPKIT_EXPORT bool operator==(const absl::Status& a, const Status& b);
inline bool operator!=(const Status& a, const absl::Status& b) {
  return !(a == b);
}
inline bool operator!=(const absl::Status& a, const Status& b) {
  return !(a == b);
}

// An OK status (a free function, as absl spells it).
inline Status OkStatus() { return Status(); }

}  // namespace opkit

// Returns from the enclosing function if `expr` (a Status) is not OK.
#define OPKIT_RETURN_IF_ERROR(expr)                       \
  do {                                                    \
    ::opkit::Status _opkit_status = (expr);               \
    if (!_opkit_status.ok()) return _opkit_status;        \
  } while (0)

// TensorFlow's name for OPKIT_RETURN_IF_ERROR; variadic as TensorFlow's, so
// an expression with a comma (`F<a, b>(x)`) needs no extra parentheses.
// Takes opkit::Status or absl::Status (Note [absl::Status interop]).
#ifndef TF_RETURN_IF_ERROR
#define TF_RETURN_IF_ERROR(...) OPKIT_RETURN_IF_ERROR((__VA_ARGS__))
#endif

#endif  // OPKIT_CORE_STATUS_H_

// StatusOr<T>: a value of T, or the Status saying why there is none.
//
//   StatusOr<OpLibrary> lib = LoadOpLibrary(path);
//   if (!lib.ok()) return lib.status();
//   Use(*lib);
//
//   OPKIT_ASSIGN_OR_RETURN(OpLibrary lib, LoadOpLibrary(path));
//
// Accessing the value of an error StatusOr is a bug in the caller and
// aborts with the status printed.
#ifndef OPKIT_CORE_STATUSOR_H_
#define OPKIT_CORE_STATUSOR_H_

#include <optional>
#include <type_traits>
#include <utility>

#include "absl/status/statusor.h"
#include "opkit/core/status.h"

namespace opkit {
namespace internal {
// Aborts naming the misuse; defined in statusor.cc.
[[noreturn]] OPKIT_EXPORT void StatusOrValueOfError(const Status& status);
// The status that an OK status passed to StatusOr becomes.
OPKIT_EXPORT Status StatusOrFromOkStatus();
}  // namespace internal

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  // An error. `status` must not be OK; an OK status becomes an Internal error.
  StatusOr(const Status& status)  // NOLINT: implicit, as absl's
      : status_(status.ok() ? internal::StatusOrFromOkStatus() : status) {}
  StatusOr(Status&& status)  // NOLINT
      : status_(status.ok() ? internal::StatusOrFromOkStatus()
                            : std::move(status)) {}
  // An error given as another status type that converts to Status
  // (absl::Status: Note [absl::Status interop]), as `return absl_status;`.
  template <typename U,
            typename = std::enable_if_t<
                !std::is_constructible_v<T, U&&> &&
                !std::is_same_v<std::decay_t<U>, Status> &&
                !std::is_same_v<std::decay_t<U>, StatusOr> &&
                std::is_convertible_v<U&&, Status>>,
            typename = void>
  StatusOr(U&& status)  // NOLINT: implicit, as absl's
      : StatusOr(Status(std::forward<U>(status))) {}
  // From absl::StatusOr, keeping the value or the error (Note [absl::Status
  // interop]); and back below.
  StatusOr(const absl::StatusOr<T>& other)  // NOLINT: implicit by design
      : status_(other.ok() ? Status() : Status(other.status())) {
    if (other.ok()) value_.emplace(*other);
  }
  StatusOr(absl::StatusOr<T>&& other)  // NOLINT: implicit by design
      : status_(other.ok() ? Status() : Status(other.status())) {
    if (other.ok()) value_.emplace(*std::move(other));
  }
  operator absl::StatusOr<T>() const& {  // NOLINT: implicit by design
    if (!ok()) return absl::Status(status_);
    return *value_;
  }
  operator absl::StatusOr<T>() && {  // NOLINT: implicit by design
    if (!ok()) return absl::Status(std::move(status_));
    return std::move(*value_);
  }
  // A value.
  template <typename U = T,
            typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                        !std::is_same_v<std::decay_t<U>, Status> &&
                                        !std::is_same_v<std::decay_t<U>, StatusOr> &&
                                        !std::is_same_v<std::decay_t<U>, absl::StatusOr<T>>>>
  StatusOr(U&& value)  // NOLINT
      : value_(std::forward<U>(value)) {}

  bool ok() const { return status_.ok(); }
  const Status& status() const& { return status_; }
  Status status() && { return std::move(status_); }

  const T& value() const& { Check(); return *value_; }
  T& value() & { Check(); return *value_; }
  T&& value() && { Check(); return std::move(*value_); }
  // TensorFlow's older spelling.
  const T& ValueOrDie() const& { return value(); }
  T& ValueOrDie() & { return value(); }

  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  template <typename U>
  T value_or(U&& fallback) const& {
    return ok() ? *value_ : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  void Check() const {
    if (!ok()) internal::StatusOrValueOfError(status_);
  }
  Status status_;
  std::optional<T> value_;
};

}  // namespace opkit

#define OPKIT_STATUS_CONCAT_INNER(a, b) a##b
#define OPKIT_STATUS_CONCAT(a, b) OPKIT_STATUS_CONCAT_INNER(a, b)

// Evaluates `expr` (a StatusOr); on error returns its status, else moves the
// value into `lhs` (which may declare a variable: `auto x`).
#define OPKIT_ASSIGN_OR_RETURN(lhs, expr) \
  OPKIT_ASSIGN_OR_RETURN_IMPL(OPKIT_STATUS_CONCAT(_opkit_statusor_, __LINE__), lhs, expr)
#define OPKIT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return std::move(tmp).status();    \
  lhs = std::move(tmp).value()

#endif  // OPKIT_CORE_STATUSOR_H_

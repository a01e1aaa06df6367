// TensorFlow compatibility: LOG, VLOG and the CHECK family, as TensorFlow's
// platform/logging.h spells them, over opkit's logging (opkit/core/logging.h).
//
//   LOG(INFO) << "Remove kernel: " << name;        // INFO WARNING ERROR FATAL
//   VLOG(2) << "details";                           // when OPKIT_VLOG >= 2
//   CHECK(ptr != nullptr) << "why";                 // aborts the process
//   CHECK_EQ(a.dims(), 2);  // "Check failed: a.dims() == 2 (3 vs. 2)"
//   DCHECK_LT(i, n);        // CHECK_LT unless NDEBUG, else compiled out
//   TF_CHECK_OK(status);
//   LOG_EVERY_N(WARNING, 100) << "slow path";
//   LOG_FIRST_N(INFO, 1) << "once";
//
// CHECK and LOG(FATAL) abort, as in TensorFlow: they are for the op
// author's invariants. A kernel reports bad inputs with OP_REQUIRES, which
// returns a Status to the caller instead. Each macro is defined only if no
// other library (glog, absl) defined it first.
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_LOGGING_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_LOGGING_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>

#include "opkit/core/logging.h"
#include "opkit/core/status.h"
#include "tensorflow/core/platform/macros.h"
#include "tensorflow/core/platform/types.h"

namespace tensorflow {
namespace opkit_compat_internal {

// The message of a failed CHECK_op: "a == b (1 vs. 2)"; null when it holds.
template <typename A, typename B>
std::unique_ptr<std::string> CheckOpMessage(const A& a, const B& b,
                                            const char* expr_text) {
  std::ostringstream os;
  os << expr_text << " (" << a << " vs. " << b << ")";
  return std::make_unique<std::string>(os.str());
}

#define OPKIT_COMPAT_DEFINE_CHECK_OP(name, op)                            \
  template <typename A, typename B>                                       \
  std::unique_ptr<std::string> Check##name##Impl(const A& a, const B& b,  \
                                                 const char* expr_text) { \
    if (TF_PREDICT_TRUE(a op b)) return nullptr;                          \
    return CheckOpMessage(a, b, expr_text);                               \
  }
OPKIT_COMPAT_DEFINE_CHECK_OP(EQ, ==)
OPKIT_COMPAT_DEFINE_CHECK_OP(NE, !=)
OPKIT_COMPAT_DEFINE_CHECK_OP(LE, <=)
OPKIT_COMPAT_DEFINE_CHECK_OP(LT, <)
OPKIT_COMPAT_DEFINE_CHECK_OP(GE, >=)
OPKIT_COMPAT_DEFINE_CHECK_OP(GT, >)
#undef OPKIT_COMPAT_DEFINE_CHECK_OP

// TF_CHECK_OK's message: "<expr> status: <status>"; null for an OK status.
inline std::unique_ptr<std::string> CheckOkImpl(const ::opkit::Status& s,
                                                const char* expr_text) {
  if (TF_PREDICT_TRUE(s.ok())) return nullptr;
  return std::make_unique<std::string>(std::string(expr_text) +
                                       " status: " + s.ToString());
}

// CHECK_NOTNULL: returns `value` unchanged when it is not null.
template <typename T>
T&& CheckNotNull(const char* file, int line, const char* message, T&& value) {
  if (TF_PREDICT_FALSE(value == nullptr)) {
    ::opkit::internal::LogMessageFatal(file, line).stream() << message;
  }
  return std::forward<T>(value);
}

// For LOG_EVERY_N / LOG_FIRST_N: one counter per call site (the macros
// give each site its own static through a lambda).
inline bool LogEveryN(std::atomic<uint64_t>& counter, int n) {
  const uint64_t seen = counter.fetch_add(1, std::memory_order_relaxed);
  return n > 0 && seen % static_cast<uint64_t>(n) == 0;
}
inline bool LogFirstN(std::atomic<uint64_t>& counter, int n) {
  const uint64_t seen = counter.fetch_add(1, std::memory_order_relaxed);
  return n > 0 && seen < static_cast<uint64_t>(n);
}

}  // namespace opkit_compat_internal
}  // namespace tensorflow

// LOG(severity) and VLOG(level) come from opkit/core/logging.h.
#ifndef VLOG_IS_ON
#define VLOG_IS_ON(level) (::opkit::VlogIsOn(level))
#endif

// CHECK(condition) << "...": aborts with "Check failed: condition ...".
#ifndef CHECK
#define CHECK(condition) OPKIT_CHECK(condition)
#endif

// The value-printing CHECKs evaluate each operand once. The `while` never
// loops: the fatal message aborts.
#define OPKIT_COMPAT_CHECK_OP(name, op, val1, val2)                          \
  while (::std::unique_ptr<::std::string> _opkit_compat_check_result =      \
             ::tensorflow::opkit_compat_internal::Check##name##Impl(        \
                 (val1), (val2), #val1 " " #op " " #val2))                  \
  ::opkit::internal::LogMessageFatal(__FILE__, __LINE__).stream()           \
      << "Check failed: " << *_opkit_compat_check_result << " "

#ifndef CHECK_EQ
#define CHECK_EQ(val1, val2) OPKIT_COMPAT_CHECK_OP(EQ, ==, val1, val2)
#define CHECK_NE(val1, val2) OPKIT_COMPAT_CHECK_OP(NE, !=, val1, val2)
#define CHECK_LE(val1, val2) OPKIT_COMPAT_CHECK_OP(LE, <=, val1, val2)
#define CHECK_LT(val1, val2) OPKIT_COMPAT_CHECK_OP(LT, <, val1, val2)
#define CHECK_GE(val1, val2) OPKIT_COMPAT_CHECK_OP(GE, >=, val1, val2)
#define CHECK_GT(val1, val2) OPKIT_COMPAT_CHECK_OP(GT, >, val1, val2)
#endif

#ifndef CHECK_NOTNULL
#define CHECK_NOTNULL(val)                                      \
  ::tensorflow::opkit_compat_internal::CheckNotNull(            \
      __FILE__, __LINE__, "'" #val "' Must be non NULL", (val))
#endif

// TF_CHECK_OK(status): aborts, printing the status, unless it is OK.
#ifndef TF_CHECK_OK
#define TF_CHECK_OK(val)                                                   \
  while (::std::unique_ptr<::std::string> _opkit_compat_check_result =    \
             ::tensorflow::opkit_compat_internal::CheckOkImpl((val), #val)) \
  ::opkit::internal::LogMessageFatal(__FILE__, __LINE__).stream()         \
      << *_opkit_compat_check_result
#endif

// The D forms are the checks in a debug build and compiled out (their
// operands still type-checked, never evaluated) under NDEBUG.
#ifndef NDEBUG
#ifndef DCHECK
#define DCHECK(condition) CHECK(condition)
#define DCHECK_EQ(val1, val2) CHECK_EQ(val1, val2)
#define DCHECK_NE(val1, val2) CHECK_NE(val1, val2)
#define DCHECK_LE(val1, val2) CHECK_LE(val1, val2)
#define DCHECK_LT(val1, val2) CHECK_LT(val1, val2)
#define DCHECK_GE(val1, val2) CHECK_GE(val1, val2)
#define DCHECK_GT(val1, val2) CHECK_GT(val1, val2)
#endif
#ifndef TF_DCHECK_OK
#define TF_DCHECK_OK(val) TF_CHECK_OK(val)
#endif
#ifndef DVLOG
#define DVLOG(level) VLOG(level)
#endif
#else  // NDEBUG
#ifndef DCHECK
#define DCHECK(condition) \
  while (false && (condition)) ::opkit::internal::LogVoidify() & LOG(FATAL)
#define OPKIT_COMPAT_DCHECK_NOP(val1, op, val2) \
  while (false && ((val1)op(val2)))             \
  ::opkit::internal::LogVoidify() & LOG(FATAL)
#define DCHECK_EQ(val1, val2) OPKIT_COMPAT_DCHECK_NOP(val1, ==, val2)
#define DCHECK_NE(val1, val2) OPKIT_COMPAT_DCHECK_NOP(val1, !=, val2)
#define DCHECK_LE(val1, val2) OPKIT_COMPAT_DCHECK_NOP(val1, <=, val2)
#define DCHECK_LT(val1, val2) OPKIT_COMPAT_DCHECK_NOP(val1, <, val2)
#define DCHECK_GE(val1, val2) OPKIT_COMPAT_DCHECK_NOP(val1, >=, val2)
#define DCHECK_GT(val1, val2) OPKIT_COMPAT_DCHECK_NOP(val1, >, val2)
#endif
#ifndef TF_DCHECK_OK
#define TF_DCHECK_OK(val) \
  while (false && (val).ok()) ::opkit::internal::LogVoidify() & LOG(FATAL)
#endif
#ifndef DVLOG
#define DVLOG(level) \
  while (false && (level) > 0) ::opkit::internal::LogVoidify() & LOG(INFO)
#endif
#endif  // NDEBUG

// LOG_EVERY_N(severity, n): logs the 1st, (n+1)th, (2n+1)th ... time the
// statement runs. LOG_FIRST_N(severity, n): the first n times. Counted per
// call site, thread-safe.
#ifndef LOG_EVERY_N
#define LOG_EVERY_N(severity, n)                                           \
  if (!::tensorflow::opkit_compat_internal::LogEveryN(                     \
          []() -> ::std::atomic<::std::uint64_t>& {                        \
            static ::std::atomic<::std::uint64_t> counter{0};              \
            return counter;                                                \
          }(),                                                             \
          (n))) {                                                          \
  } else                                                                   \
    LOG(severity)
#endif
#ifndef LOG_FIRST_N
#define LOG_FIRST_N(severity, n)                                           \
  if (!::tensorflow::opkit_compat_internal::LogFirstN(                     \
          []() -> ::std::atomic<::std::uint64_t>& {                        \
            static ::std::atomic<::std::uint64_t> counter{0};              \
            return counter;                                                \
          }(),                                                             \
          (n))) {                                                          \
  } else                                                                   \
    LOG(severity)
#endif

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_PLATFORM_LOGGING_H_

// Logging with severities, and OPKIT_CHECK for opkit's own invariants.
//
//   LOG(INFO) << "Loaded " << path;
//   VLOG(1) << "Selected " << kernel_class;
//   OPKIT_CHECK(slot < slots_.size()) << "slot table corrupt";
//
// Messages go to stderr as "I 05:02:11.123 file.cc:42] text" unless sinks
// are added. The least severity printed comes from OPKIT_MIN_LOG_LEVEL
// (0 INFO, 1 WARNING, 2 ERROR, 3 FATAL; default 0), the most verbose VLOG
// level from OPKIT_MAX_VLOG_LEVEL (default 0). LOG(FATAL) and a failed
// OPKIT_CHECK abort: use them only for bugs in opkit, never for anything a
// user, a file or a plugin supplies.
//
// Thread-safe.
#ifndef OPKIT_CORE_LOGGING_H_
#define OPKIT_CORE_LOGGING_H_

#include <sstream>
#include <string>

#include "opkit/core/export.h"

namespace opkit {

enum class LogSeverity : int { kInfo = 0, kWarning = 1, kError = 2, kFatal = 3 };

// One finished log message.
struct LogEntry {
  LogSeverity severity;
  const char* file;
  int line;
  std::string message;
};

// Receives every message at or above the minimum level. Called on the
// logging thread; must be thread-safe.
class OPKIT_EXPORT LogSink {
 public:
  virtual ~LogSink() = default;
  virtual void Send(const LogEntry& entry) = 0;
};

// Adds or removes a sink (borrowed; must outlive its registration). While any
// sink is registered, messages go to the sinks and still to stderr.
OPKIT_EXPORT void AddLogSink(LogSink* sink);
OPKIT_EXPORT void RemoveLogSink(LogSink* sink);

// Whether messages of `severity` are printed (OPKIT_MIN_LOG_LEVEL).
OPKIT_EXPORT bool LogSeverityEnabled(LogSeverity severity);
// Whether VLOG(level) is printed (OPKIT_MAX_VLOG_LEVEL).
OPKIT_EXPORT bool VlogIsOn(int level);
// Overrides the environment for this process (tests, embedding programs).
OPKIT_EXPORT void SetMinLogLevel(int level);
OPKIT_EXPORT void SetMaxVlogLevel(int level);

namespace internal {

// The level in an environment variable's text; `fallback` when it is unset,
// empty or not a number.
OPKIT_EXPORT int ParseLogLevel(const char* text, int fallback);

class OPKIT_EXPORT LogMessage {
 public:
  LogMessage(const char* file, int line, LogSeverity severity);
  ~LogMessage();
  std::ostream& stream() { return stream_; }

 protected:
  void Flush();
  const char* file_;
  int line_;
  LogSeverity severity_;
  std::ostringstream stream_;
};

// Logs, then aborts.
class OPKIT_EXPORT LogMessageFatal : public LogMessage {
 public:
  LogMessageFatal(const char* file, int line);
  [[noreturn]] ~LogMessageFatal();
};

// Turns a stream expression into void, so a macro can be a ternary arm.
struct LogVoidify {
  void operator&(std::ostream&) {}
};

}  // namespace internal
}  // namespace opkit

#define OPKIT_LOG_INFO \
  ::opkit::internal::LogMessage(__FILE__, __LINE__, ::opkit::LogSeverity::kInfo)
#define OPKIT_LOG_WARNING \
  ::opkit::internal::LogMessage(__FILE__, __LINE__, ::opkit::LogSeverity::kWarning)
#define OPKIT_LOG_ERROR \
  ::opkit::internal::LogMessage(__FILE__, __LINE__, ::opkit::LogSeverity::kError)
#define OPKIT_LOG_FATAL ::opkit::internal::LogMessageFatal(__FILE__, __LINE__)

#define OPKIT_LOG(severity) OPKIT_LOG_##severity.stream()
#define OPKIT_VLOG(level)                          \
  !::opkit::VlogIsOn(level)                        \
      ? (void)0                                    \
      : ::opkit::internal::LogVoidify() & OPKIT_LOG(INFO)

// Aborts with the condition's text when `condition` is false. Only for
// invariants of opkit itself; active in release builds.
#define OPKIT_CHECK(condition)                                      \
  (condition) ? (void)0                                             \
              : ::opkit::internal::LogVoidify() &                   \
                    OPKIT_LOG(FATAL) << "Check failed: " #condition " "

// The short names TensorFlow code uses, unless something defined them first.
#ifndef LOG
#define LOG(severity) OPKIT_LOG(severity)
#endif
#ifndef VLOG
#define VLOG(level) OPKIT_VLOG(level)
#endif

#endif  // OPKIT_CORE_LOGGING_H_

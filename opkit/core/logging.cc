// LOG/VLOG streams, the log sinks, levels from OPKIT_MIN_LOG_LEVEL and
// OPKIT_MAX_VLOG_LEVEL, and OPKIT_CHECK failures.
#include "opkit/core/logging.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <vector>

namespace opkit {
namespace {

int ReadEnvLevel(const char* name, int fallback) {
  return internal::ParseLogLevel(std::getenv(name), fallback);
}

std::atomic<int>& MinLogLevel() {
  static std::atomic<int> level(ReadEnvLevel("OPKIT_MIN_LOG_LEVEL", 0));
  return level;
}

std::atomic<int>& MaxVlogLevel() {
  static std::atomic<int> level(ReadEnvLevel("OPKIT_MAX_VLOG_LEVEL", 0));
  return level;
}

struct Sinks {
  std::mutex mu;
  std::vector<LogSink*> sinks;
};

Sinks& GetSinks() {
  static Sinks* sinks = new Sinks();
  return *sinks;
}

const char kSeverityLetter[] = {'I', 'W', 'E', 'F'};

}  // namespace

void AddLogSink(LogSink* sink) {
  Sinks& s = GetSinks();
  std::lock_guard<std::mutex> lock(s.mu);
  s.sinks.push_back(sink);
}

void RemoveLogSink(LogSink* sink) {
  Sinks& s = GetSinks();
  std::lock_guard<std::mutex> lock(s.mu);
  s.sinks.erase(std::remove(s.sinks.begin(), s.sinks.end(), sink),
                s.sinks.end());
}

bool LogSeverityEnabled(LogSeverity severity) {
  return static_cast<int>(severity) >= MinLogLevel().load(std::memory_order_relaxed);
}

bool VlogIsOn(int level) {
  return level <= MaxVlogLevel().load(std::memory_order_relaxed);
}

void SetMinLogLevel(int level) { MinLogLevel().store(level); }
void SetMaxVlogLevel(int level) { MaxVlogLevel().store(level); }

namespace internal {

int ParseLogLevel(const char* text, int fallback) {
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  long n = std::strtol(text, &end, 10);
  if (end == text) return fallback;
  return static_cast<int>(n);
}

LogMessage::LogMessage(const char* file, int line, LogSeverity severity)
    : file_(file), line_(line), severity_(severity) {}

LogMessage::~LogMessage() { Flush(); }

void LogMessage::Flush() {
  if (!LogSeverityEnabled(severity_) && severity_ != LogSeverity::kFatal) return;
  const char* base = file_;
  for (const char* p = file_; *p; ++p) {
    if (*p == '/') base = p + 1;
  }
  LogEntry entry{severity_, base, line_, stream_.str()};
  {
    Sinks& s = GetSinks();
    std::lock_guard<std::mutex> lock(s.mu);
    for (LogSink* sink : s.sinks) sink->Send(entry);
  }
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  int ms = static_cast<int>(
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000);
  std::tm tm{};
  localtime_r(&t, &tm);
  std::fprintf(stderr, "%c %02d:%02d:%02d.%03d %s:%d] %s\n",
               kSeverityLetter[static_cast<int>(severity_)], tm.tm_hour,
               tm.tm_min, tm.tm_sec, ms, base, line_, entry.message.c_str());
}

LogMessageFatal::LogMessageFatal(const char* file, int line)
    : LogMessage(file, line, LogSeverity::kFatal) {}

LogMessageFatal::~LogMessageFatal() {
  Flush();
  std::fflush(stderr);
  std::abort();
}

}  // namespace internal
}  // namespace opkit

// Tests of LOG/VLOG, log sinks, levels and OPKIT_CHECK.
#include "opkit/core/logging.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/mutex.h"

namespace opkit {
namespace {

using ::testing::HasSubstr;

class CapturingSink : public LogSink {
 public:
  void Send(const LogEntry& entry) override {
    mutex_lock l(mu_);
    entries_.push_back(entry);
  }
  std::vector<LogEntry> entries() {
    mutex_lock l(mu_);
    return entries_;
  }

 private:
  mutex mu_;
  std::vector<LogEntry> entries_;
};

class LoggingTest : public ::testing::Test {
 protected:
  void SetUp() override { AddLogSink(&sink_); }
  void TearDown() override {
    RemoveLogSink(&sink_);
    SetMinLogLevel(0);
    SetMaxVlogLevel(0);
  }
  CapturingSink sink_;
};

TEST_F(LoggingTest, SeveritiesReachSinks) {
  SetMinLogLevel(0);
  LOG(INFO) << "hello " << 42;
  LOG(WARNING) << "careful";
  OPKIT_LOG(ERROR) << "bad";
  auto e = sink_.entries();
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].severity, LogSeverity::kInfo);
  EXPECT_EQ(e[0].message, "hello 42");
  EXPECT_STREQ(e[0].file, "logging_test.cc");
  EXPECT_GT(e[0].line, 0);
  EXPECT_EQ(e[1].severity, LogSeverity::kWarning);
  EXPECT_EQ(e[2].severity, LogSeverity::kError);
}

TEST_F(LoggingTest, MinLevelFilters) {
  SetMinLogLevel(2);
  LOG(INFO) << "dropped";
  LOG(WARNING) << "dropped";
  LOG(ERROR) << "kept";
  auto e = sink_.entries();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].message, "kept");
  EXPECT_FALSE(LogSeverityEnabled(LogSeverity::kInfo));
  EXPECT_TRUE(LogSeverityEnabled(LogSeverity::kError));
}

TEST_F(LoggingTest, VlogHonoursMaxLevel) {
  int evaluated = 0;
  auto count = [&] { return ++evaluated; };
  SetMaxVlogLevel(1);
  VLOG(1) << "one " << count();
  VLOG(2) << "two " << count();
  auto e = sink_.entries();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].message, "one 1");
  EXPECT_EQ(evaluated, 1) << "a disabled VLOG must not evaluate its stream";
}

TEST(LoggingDeathTest, FatalAndCheckAbort) {
  EXPECT_DEATH(LOG(FATAL) << "the end", "the end");
  int x = 1;
  EXPECT_DEATH(OPKIT_CHECK(x == 2) << "x was " << x, "Check failed: x == 2 x was 1");
  OPKIT_CHECK(x == 1) << "not reached";
}

TEST(LoggingEnvTest, LevelTextParsing) {
  EXPECT_EQ(internal::ParseLogLevel("2", 0), 2);
  EXPECT_EQ(internal::ParseLogLevel("", 0), 0);
  EXPECT_EQ(internal::ParseLogLevel(nullptr, 1), 1);
  EXPECT_EQ(internal::ParseLogLevel("loud", 0), 0);
}

}  // namespace
}  // namespace opkit

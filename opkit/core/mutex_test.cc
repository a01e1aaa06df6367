// Tests of mutex, mutex_lock, shared_lock and condition_variable.
#include "opkit/core/mutex.h"

#include <atomic>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace opkit {
namespace {

TEST(MutexTest, ExclusiveLockSerializesWriters) {
  mutex mu;
  int64_t counter = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        mutex_lock l(mu);
        ++counter;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(counter, 40000);
}

TEST(MutexTest, SharedLocksAdmitSeveralReaders) {
  mutex mu;
  std::atomic<int> inside{0};
  std::atomic<int> max_inside{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      while (!go) std::this_thread::yield();
      shared_lock l(mu);
      int now = ++inside;
      int prev = max_inside.load();
      while (now > prev && !max_inside.compare_exchange_weak(prev, now)) {
      }
      // Hold the shared lock until every reader got in.
      while (max_inside.load() < 3) std::this_thread::yield();
      --inside;
    });
  }
  go = true;
  for (auto& t : threads) t.join();
  EXPECT_EQ(max_inside.load(), 3);
}

TEST(MutexTest, TryLockFailsWhileHeld) {
  mutex mu;
  mutex_lock l(mu);
  std::thread t([&] { EXPECT_FALSE(mu.try_lock()); });
  t.join();
}

TEST(ConditionVariableTest, WaitsForPredicate) {
  mutex mu;
  condition_variable cv;
  bool ready = false;
  int seen = 0;
  std::thread consumer([&] {
    mutex_lock l(mu);
    cv.wait(l, [&] { return ready; });
    seen = 1;
  });
  {
    mutex_lock l(mu);
    ready = true;
  }
  cv.notify_all();
  consumer.join();
  EXPECT_EQ(seen, 1);
}

TEST(ConditionVariableTest, WaitForTimesOut) {
  mutex mu;
  condition_variable cv;
  mutex_lock l(mu);
  EXPECT_FALSE(cv.wait_for(l, std::chrono::milliseconds(1), [] { return false; }));
  EXPECT_TRUE(cv.wait_for(l, std::chrono::milliseconds(1), [] { return true; }));
}

}  // namespace
}  // namespace opkit

// Tests of ThreadPool: scheduling, parallelism and its Eigen device.
#include "opkit/core/threadpool.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "opkit/core/env.h"
#include "opkit/core/mutex.h"

namespace opkit {
namespace {

TEST(ThreadPoolTest, RunsScheduledWorkBeforeDestruction) {
  std::atomic<int> done{0};
  {
    ThreadPool pool("test", 2);
    EXPECT_EQ(pool.NumThreads(), 2);
    EXPECT_EQ(pool.name(), "test");
    for (int i = 0; i < 100; ++i) pool.Schedule([&] { ++done; });
  }
  EXPECT_EQ(done.load(), 100);
}

TEST(ThreadPoolTest, NonPositiveSizeMeansOneThread) {
  ThreadPool pool("one", 0);
  EXPECT_EQ(pool.NumThreads(), 1);
}

TEST(ThreadPoolTest, TensorFlowConstructorTakesAnEnv) {
  std::atomic<int> done{0};
  {
    ThreadPool pool(Env::Default(), "tf_style", 3);
    EXPECT_EQ(pool.NumThreads(), 3);
    EXPECT_EQ(pool.name(), "tf_style");
    pool.Schedule([&] { ++done; });
  }
  EXPECT_EQ(done.load(), 1);
}

TEST(ThreadPoolTest, CurrentThreadId) {
  ThreadPool pool("ids", 2);
  EXPECT_EQ(pool.CurrentThreadId(), -1);
  std::atomic<int> id{-2};
  mutex mu;
  condition_variable cv;
  bool set = false;
  pool.Schedule([&] {
    id = pool.CurrentThreadId();
    mutex_lock l(mu);
    set = true;
    cv.notify_all();
  });
  mutex_lock l(mu);
  cv.wait(l, [&] { return set; });
  EXPECT_GE(id.load(), 0);
  EXPECT_LT(id.load(), 2);
}

TEST(ThreadPoolTest, ParallelForCoversRangeExactlyOnce) {
  ThreadPool pool("pf", 3);
  for (int64_t total : {0, 1, 2, 7, 1000, 100003}) {
    std::vector<std::atomic<int>> hits(total);
    pool.ParallelFor(total, 1000, [&](int64_t b, int64_t e) {
      ASSERT_LE(0, b);
      ASSERT_LE(b, e);
      ASSERT_LE(e, total);
      for (int64_t i = b; i < e; ++i) ++hits[i];
    });
    for (int64_t i = 0; i < total; ++i) ASSERT_EQ(hits[i].load(), 1) << i;
  }
}

TEST(ThreadPoolTest, IdleSpinComesFromTheConstructorOrTheDefault) {
  EXPECT_EQ(ThreadPool("default", 1).idle_spin_us(),
            ThreadPool::DefaultIdleSpinMicros());
  EXPECT_EQ(ThreadPool("none", 1, 0).idle_spin_us(), 0);
  EXPECT_EQ(ThreadPool("negative", 1, -5).idle_spin_us(), 0);
  EXPECT_EQ(ThreadPool("long", 1, 250).idle_spin_us(), 250);
}

// The scheduler state of thread `tid` of this process ('R' running or
// runnable, 'S' sleeping, ...), from /proc; '?' when it cannot be read.
char ThreadState(long tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return '?';
  // "tid (comm) S ...": the state follows the last ')'.
  const size_t paren = line.rfind(')');
  if (paren == std::string::npos || paren + 2 >= line.size()) return '?';
  return line[paren + 2];
}

// Runs one task on `pool` and returns the id of the worker that ran it,
// once the task has returned.
long RunOnceAndGetWorkerTid(ThreadPool* pool) {
  std::atomic<long> tid{0};
  pool->Schedule([&] { tid = static_cast<long>(syscall(SYS_gettid)); });
  while (tid.load() == 0) std::this_thread::yield();
  return tid.load();
}

// Waits (up to a minute) for thread `tid` to reach scheduler state `want`.
bool WaitForThreadState(long tid, char want) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (std::chrono::steady_clock::now() < give_up) {
    if (ThreadState(tid) == want) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

TEST(ThreadPoolTest, WithoutIdleSpinAWorkerSleepsAfterItsTask) {
  ThreadPool pool("no_spin", 1, 0);
  const long tid = RunOnceAndGetWorkerTid(&pool);
  EXPECT_TRUE(WaitForThreadState(tid, 'S')) << "state " << ThreadState(tid);
}

TEST(ThreadPoolTest, AnIdleWorkerPollsUntilNewWorkOrItsSpinTimeRunsOut) {
  // Note [Idle spinning]: with an hour of spin, the worker that ran the
  // task is still running (polling, not asleep) well after the task.
  auto pool = std::make_unique<ThreadPool>("spin", 1, int64_t{3600} * 1000000);
  const long tid = RunOnceAndGetWorkerTid(pool.get());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(ThreadState(tid), 'R');
  // A task scheduled meanwhile is taken by the polling worker; it spins
  // again after it.
  EXPECT_EQ(RunOnceAndGetWorkerTid(pool.get()), tid);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(ThreadState(tid), 'R');
  // Destruction stops the polling at once rather than after the hour.
  const auto start = std::chrono::steady_clock::now();
  pool.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_EQ(ThreadState(tid), '?');  // the thread is gone
}

TEST(ThreadPoolTest, AShortSpinEndsInSleep) {
  ThreadPool pool("short_spin", 2, 2000);
  const long tid = RunOnceAndGetWorkerTid(&pool);
  EXPECT_TRUE(WaitForThreadState(tid, 'S')) << "state " << ThreadState(tid);
}

}  // namespace
}  // namespace opkit

// Tests of ThreadPool: scheduling, parallelism and its Eigen device.
#include "opkit/core/threadpool.h"

#include <atomic>
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

}  // namespace
}  // namespace opkit

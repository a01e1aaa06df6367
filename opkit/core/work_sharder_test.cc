// Tests of Shard: every index covered once, inline when there is no pool or
// parallelism 1, cheap work kept whole, expensive work split over threads.

#include "opkit/core/work_sharder.h"

#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "opkit/core/mutex.h"

namespace opkit {
namespace {

// Runs Shard and checks [0, total) is covered exactly once; returns the
// number of pieces.
int RunShard(int max_parallelism, ThreadPool* pool, int64_t total, int64_t cost) {
  std::vector<std::atomic<int>> hits(total > 0 ? total : 0);
  std::atomic<int> pieces{0};
  Shard(max_parallelism, pool, total, cost, [&](int64_t b, int64_t e) {
    ++pieces;
    for (int64_t i = b; i < e; ++i) ++hits[i];
  });
  for (int64_t i = 0; i < total; ++i) EXPECT_EQ(hits[i].load(), 1) << i;
  return pieces.load();
}

TEST(ShardTest, CoversEveryIndexOnce) {
  ThreadPool pool("shard", 4);
  for (int par : {1, 2, 3, 5, 64}) {
    for (int64_t total : {0, 1, 3, 100, 12345}) {
      for (int64_t cost : {1, 100, 100000}) RunShard(par, &pool, total, cost);
    }
  }
}

TEST(ShardTest, InlineWhenParallelismIsOneOrNoPool) {
  ThreadPool pool("shard", 2);
  EXPECT_EQ(RunShard(1, &pool, 1000, 1000000), 1);
  EXPECT_EQ(RunShard(8, nullptr, 1000, 1000000), 1);
}

TEST(ShardTest, CheapWorkIsNotSplit) {
  ThreadPool pool("shard", 4);
  EXPECT_EQ(RunShard(4, &pool, 10, 1), 1);
}

TEST(ShardTest, ExpensiveWorkIsSplitWithinParallelism) {
  ThreadPool pool("shard", 4);
  int pieces = RunShard(3, &pool, 3000, 100000);
  EXPECT_GT(pieces, 1);
  EXPECT_LE(pieces, 3);
}

TEST(ShardTest, UsesSeveralThreadsForBigWork) {
  ThreadPool pool("shard", 4);
  mutex mu;
  std::set<std::thread::id> ids;
  Shard(5, &pool, 64, 1000000, [&](int64_t, int64_t) {
    {
      mutex_lock l(mu);
      ids.insert(std::this_thread::get_id());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  });
  EXPECT_GT(ids.size(), 1u);
}

// Limited parallelism (fewer shards than pool threads + 1) waits for its
// shards by polling, then sleeping; either way Shard returns only when every
// shard has run, and shards finishing after the caller stopped waiting touch
// nothing of the caller's (the sanitizer builds check the latter).
TEST(ShardTest, ReturnsOnlyAfterEveryShardPollingOrSleeping) {
  for (int64_t spin_us : {int64_t{0}, int64_t{1}, int64_t{100000}}) {
    SCOPED_TRACE(spin_us);
    ThreadPool pool("shard_wait", 3, spin_us);
    for (int round = 0; round < 300; ++round) {
      std::atomic<int64_t> covered{0};
      Shard(3, &pool, 3, kMinCostPerShard, [&](int64_t begin, int64_t end) {
        if (begin > 0 && round % 3 == 0) {
          std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        covered.fetch_add(end - begin);
      });
      ASSERT_EQ(covered.load(), 3) << "round " << round;
    }
  }
}

TEST(SpinUntilTest, ReturnsWhenDoneOrWhenTimeRunsOut) {
  int polls = 0;
  EXPECT_TRUE(SpinUntil(1000000, [&] { return ++polls == 5; }));
  EXPECT_EQ(polls, 5);
  EXPECT_FALSE(SpinUntil(0, [] { return false; }));
  EXPECT_FALSE(SpinUntil(-3, [] { return false; }));
  std::atomic<bool> flag{false};
  std::thread setter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    flag = true;
  });
  EXPECT_TRUE(SpinUntil(int64_t{60} * 1000000, [&] { return flag.load(); }));
  setter.join();
}

}  // namespace
}  // namespace opkit

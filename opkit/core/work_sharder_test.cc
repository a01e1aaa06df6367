// Tests of Shard: every index covered once, inline when there is no pool or
// parallelism 1, cheap work kept whole, expensive work split over threads.

#include "opkit/core/work_sharder.h"

#include <atomic>
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

}  // namespace
}  // namespace opkit

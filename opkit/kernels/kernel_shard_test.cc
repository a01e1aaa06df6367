// Shard(ctx, ...): covers the range once, inline without a pool or for
// little work, across the device's pool for much.
#include "opkit/kernels/kernel_shard.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "opkit/core/mutex.h"
#include "opkit/device/device.h"

namespace opkit {
namespace {

class KernelShardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto device = CpuDevice::Create("/device:CPU:0", 4);
    ASSERT_TRUE(device.ok()) << device.status();
    device_ = std::move(device).value();
    params_.device = device_.get();
    ctx_ = std::make_unique<OpKernelContext>(&params_);
  }

  // Runs Shard on `ctx` and checks that [0, total) is covered exactly once;
  // returns the number of pieces and the threads that ran them.
  int Run(OpKernelContext* ctx, int64_t total, double cost,
          std::set<std::thread::id>* threads = nullptr) {
    std::vector<std::atomic<int>> hits(total > 0 ? total : 0);
    std::atomic<int> pieces{0};
    mutex mu;
    Shard(ctx, total, cost, [&](int64_t b, int64_t e) {
      ++pieces;
      for (int64_t i = b; i < e; ++i) ++hits[i];
      if (threads != nullptr) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        mutex_lock l(mu);
        threads->insert(std::this_thread::get_id());
      }
    });
    for (int64_t i = 0; i < total; ++i) EXPECT_EQ(hits[i].load(), 1) << i;
    return pieces.load();
  }

  std::unique_ptr<Device> device_;
  OpKernelContext::Params params_;
  std::unique_ptr<OpKernelContext> ctx_;
};

TEST_F(KernelShardTest, WithoutAContextRunsInlineInOnePiece) {
  std::set<std::thread::id> threads;
  EXPECT_EQ(Run(nullptr, 1000, 1e6, &threads), 1);
  EXPECT_EQ(threads, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST_F(KernelShardTest, LittleWorkRunsInline) {
  std::set<std::thread::id> threads;
  EXPECT_EQ(Run(ctx_.get(), 100, 10, &threads), 1);
  EXPECT_EQ(threads, std::set<std::thread::id>{std::this_thread::get_id()});
  EXPECT_EQ(Run(ctx_.get(), 0, 1e6), 0);
  EXPECT_EQ(Run(ctx_.get(), 1, 1e6), 1);
}

TEST_F(KernelShardTest, MuchWorkIsSplitAcrossTheDevicePool) {
  std::set<std::thread::id> threads;
  const int pieces = Run(ctx_.get(), 64, 1e6, &threads);
  EXPECT_GT(pieces, 1);
  EXPECT_LE(pieces, 4);
  EXPECT_GT(threads.size(), 1u);
}

TEST_F(KernelShardTest, HugeCostsSaturate) {
  EXPECT_GE(Run(ctx_.get(), 1000, 1e300), 1);
  EXPECT_EQ(Run(ctx_.get(), 10, -5), 1);
}

}  // namespace
}  // namespace opkit

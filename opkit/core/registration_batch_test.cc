// PendingRegistrations and RegistrationHandle: the generic part of Note
// [Registration batches], against a stand-in registry.
#include "opkit/core/registration_batch.h"

#include <algorithm>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/errors.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(PendingRegistrationsTest, AddTakeAndSelect) {
  PendingRegistrations<std::string> pending;
  pending.Add("a");
  pending.Add("bb");
  pending.Add("c");
  EXPECT_EQ(pending.size(), 3u);
  EXPECT_THAT(pending.Take([](const std::string& s) { return s.size() == 1; }),
              ElementsAre("a", "c"));
  EXPECT_THAT(pending.Take(nullptr), IsEmpty());
  pending.Add("d");
  EXPECT_THAT(pending.TakeAll(), ElementsAre("bb", "d"));
  EXPECT_EQ(pending.size(), 0u);
}

TEST(PendingRegistrationsTest, ConcurrentAddsAreAllKept) {
  PendingRegistrations<int> pending;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&pending] {
      for (int i = 0; i < 1000; ++i) pending.Add(i);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(pending.TakeAll().size(), 4000u);
}

// A stand-in registry: the names registered, each batch undone by name.
struct Names {
  std::vector<std::string> registered;
  RegistrationHandle Commit(std::vector<std::string> batch) {
    for (const std::string& n : batch) registered.push_back(n);
    return RegistrationHandle([this, batch] {
      for (const std::string& n : batch) {
        auto it = std::find(registered.begin(), registered.end(), n);
        if (it == registered.end()) {
          return errors::NotFound("'", n, "' is not registered");
        }
        registered.erase(it);
      }
      return OkStatus();
    });
  }
};

TEST(RegistrationHandleTest, RemoveTakesAwayExactlyItsBatch) {
  Names names;
  RegistrationHandle first = names.Commit({"a", "b"});
  RegistrationHandle second = names.Commit({"c"});
  EXPECT_FALSE(first.empty());
  EXPECT_THAT(first.Remove(), IsOk());
  EXPECT_THAT(names.registered, ElementsAre("c"));
  EXPECT_TRUE(first.empty());
  EXPECT_THAT(first.Remove(), IsOk());  // Nothing left.
  EXPECT_THAT(names.registered, ElementsAre("c"));
}

TEST(RegistrationHandleTest, DestroyingRemovesAndDetachingKeeps) {
  Names names;
  { RegistrationHandle scoped = names.Commit({"gone"}); }
  EXPECT_THAT(names.registered, IsEmpty());
  {
    RegistrationHandle kept = names.Commit({"kept"});
    kept.Detach();
  }
  EXPECT_THAT(names.registered, ElementsAre("kept"));
}

TEST(RegistrationHandleTest, MovingTransfersAndAssigningRemovesTheOld) {
  Names names;
  RegistrationHandle a = names.Commit({"a"});
  RegistrationHandle moved(std::move(a));
  EXPECT_TRUE(a.empty());  // NOLINT: checking the moved-from state.
  moved = names.Commit({"b"});  // "a" is removed here.
  EXPECT_THAT(names.registered, ElementsAre("b"));
  EXPECT_THAT(moved.Remove(), IsOk());
  EXPECT_THAT(names.registered, IsEmpty());
}

TEST(RegistrationHandleTest, MergedBatchesAreRemovedLatestFirst) {
  std::vector<std::string> order;
  RegistrationHandle ops([&order] {
    order.push_back("ops");
    return OkStatus();
  });
  ops.Merge(RegistrationHandle([&order] {
    order.push_back("kernels");
    return OkStatus();
  }));
  EXPECT_THAT(ops.Remove(), IsOk());
  EXPECT_THAT(order, ElementsAre("kernels", "ops"));
}

TEST(RegistrationHandleTest, EveryStepRunsAndTheFirstFailureIsReturned) {
  std::vector<std::string> order;
  RegistrationHandle handle([&order] {
    order.push_back("first");
    return OkStatus();
  });
  handle.Merge(RegistrationHandle([&order] {
    order.push_back("failing");
    return errors::Internal("cannot remove");
  }));
  EXPECT_THAT(handle.Remove(),
              StatusIs(error::INTERNAL, ::testing::HasSubstr("cannot remove")));
  EXPECT_THAT(order, ElementsAre("failing", "first"));
  EXPECT_TRUE(handle.empty());
}

}  // namespace
}  // namespace opkit

// Tests of ResourceMgr, ResourceBase and core::ScopedUnref.
#include "opkit/resource/resource_mgr.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/errors.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

std::atomic<int> g_live{0};

class Counter : public ResourceBase {
 public:
  explicit Counter(int v = 0) : value(v) { ++g_live; }
  ~Counter() override { --g_live; }
  std::string DebugString() const override {
    return "Counter " + std::to_string(value.load());
  }
  std::atomic<int> value;
};

class Other : public ResourceBase {
 public:
  Other() { ++g_live; }
  ~Other() override { --g_live; }
  std::string DebugString() const override { return "Other"; }
};

class ResourceMgrTest : public ::testing::Test {
 protected:
  void SetUp() override { g_live = 0; }
  void TearDown() override { EXPECT_EQ(g_live.load(), 0) << "leaked resources"; }
};

TEST_F(ResourceMgrTest, CreateLookupDelete) {
  ResourceMgr rm;
  EXPECT_EQ(rm.default_container(), "localhost");
  ASSERT_THAT(rm.Create("c", "n", new Counter(5)), IsOk());
  Counter* found = nullptr;
  ASSERT_THAT(rm.Lookup("c", "n", &found), IsOk());
  ASSERT_NE(found, nullptr);
  {
    core::ScopedUnref unref(found);
    EXPECT_EQ(found->value.load(), 5);
    EXPECT_FALSE(found->RefCountIsOne());  // The manager holds one too.
  }
  ASSERT_THAT(rm.Delete<Counter>("c", "n"), IsOk());
  EXPECT_EQ(g_live.load(), 0);
  EXPECT_THAT(rm.Lookup("c", "n", &found),
              StatusIs(error::NOT_FOUND, HasSubstr("Container c does not exist")));
  EXPECT_EQ(found, nullptr);
}

TEST_F(ResourceMgrTest, ErrorsUseTensorFlowsWording) {
  ResourceMgr rm("my_container");
  EXPECT_EQ(rm.default_container(), "my_container");
  ASSERT_THAT(rm.Create("c", "n", new Counter), IsOk());
  EXPECT_THAT(rm.Create("c", "n", new Counter),
              StatusIs(error::ALREADY_EXISTS, HasSubstr("Resource c/n/")));
  EXPECT_THAT(rm.Create("c", "n", new Other),
              StatusIs(error::ALREADY_EXISTS, HasSubstr("taken by a resource of type")));
  EXPECT_EQ(g_live.load(), 1);  // The rejected ones were released.

  Counter* c = nullptr;
  EXPECT_THAT(rm.Lookup("c", "missing", &c),
              StatusIs(error::NOT_FOUND,
                       HasSubstr("Resource c/missing/opkit::(anonymous "
                                 "namespace)::Counter does not exist.")));
  EXPECT_THAT(rm.Lookup("nope", "n", &c),
              StatusIs(error::NOT_FOUND,
                       HasSubstr("Container nope does not exist. (Could not "
                                 "find resource: nope/n)")));
  Other* o = nullptr;
  EXPECT_THAT(rm.Lookup("c", "n", &o),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("using the wrong type")));
  EXPECT_EQ(o, nullptr);
  EXPECT_THAT(rm.Delete<Other>("c", "n"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("wrong type")));
  EXPECT_THAT(rm.Delete<Counter>("c", "missing"),
              StatusIs(error::NOT_FOUND, HasSubstr("does not exist")));
  EXPECT_THAT(rm.Delete<Counter>("zz", "n"),
              StatusIs(error::NOT_FOUND, HasSubstr("Container zz")));
  EXPECT_THAT(rm.Create<Counter>("c", "null", nullptr),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("null")));
}

TEST_F(ResourceMgrTest, LookupOrCreate) {
  ResourceMgr rm;
  int calls = 0;
  auto creator = [&calls](Counter** c) {
    ++calls;
    *c = new Counter(7);
    return OkStatus();
  };
  Counter* first = nullptr;
  ASSERT_THAT(rm.LookupOrCreate<Counter>("c", "n", &first, creator), IsOk());
  core::ScopedUnref u1(first);
  Counter* second = nullptr;
  ASSERT_THAT(rm.LookupOrCreate<Counter>("c", "n", &second, creator), IsOk());
  core::ScopedUnref u2(second);
  EXPECT_EQ(first, second);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(first->value.load(), 7);

  // The creator's error is returned as it is; nothing is created.
  Counter* failed = nullptr;
  EXPECT_THAT(rm.LookupOrCreate<Counter>(
                  "c", "bad", &failed,
                  [](Counter**) { return errors::Unavailable("no memory"); }),
              StatusIs(error::UNAVAILABLE, HasSubstr("no memory")));
  EXPECT_EQ(failed, nullptr);
  EXPECT_THAT(rm.LookupOrCreate<Counter>("c", "empty", &failed,
                                         [](Counter**) { return OkStatus(); }),
              StatusIs(error::INTERNAL, HasSubstr("returned OK but no resource")));
  EXPECT_THAT(rm.LookupOrCreate<Counter>("c", "empty", &failed, nullptr),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("empty creator")));

  // A resource of another type under the name is not replaced.
  Other* other = nullptr;
  EXPECT_THAT(rm.LookupOrCreate<Other>("c", "n", &other,
                                       [](Other** o) {
                                         *o = new Other;
                                         return OkStatus();
                                       }),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("wrong type")));
  EXPECT_EQ(other, nullptr);
}

TEST_F(ResourceMgrTest, LookupOrCreateFromManyThreadsCreatesOnce) {
  ResourceMgr rm;
  std::atomic<int> calls{0};
  std::vector<Counter*> seen(8, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        Counter* c = nullptr;
        Status s = rm.LookupOrCreate<Counter>(
            "c", "shared", &c, [&calls](Counter** out) {
              ++calls;
              *out = new Counter;
              return OkStatus();
            });
        if (!s.ok()) continue;
        c->value++;
        seen[t] = c;
        c->Unref();
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(calls.load(), 1);
  Counter* c = nullptr;
  ASSERT_THAT(rm.Lookup("c", "shared", &c), IsOk());
  core::ScopedUnref unref(c);
  EXPECT_EQ(c->value.load(), 800);
  for (Counter* s : seen) EXPECT_EQ(s, c);
}

TEST_F(ResourceMgrTest, ReferencesOutliveDeletion) {
  ResourceMgr rm;
  ASSERT_THAT(rm.Create("c", "n", new Counter(3)), IsOk());
  Counter* held = nullptr;
  ASSERT_THAT(rm.Lookup("c", "n", &held), IsOk());
  ASSERT_THAT(rm.Delete<Counter>("c", "n"), IsOk());
  EXPECT_EQ(g_live.load(), 1);
  EXPECT_TRUE(held->RefCountIsOne());
  EXPECT_EQ(held->value.load(), 3);
  EXPECT_TRUE(held->Unref());
  EXPECT_EQ(g_live.load(), 0);
}

TEST_F(ResourceMgrTest, CleanupClearAndDebugString) {
  ResourceMgr rm;
  ASSERT_THAT(rm.Create("a", "x", new Counter(1)), IsOk());
  ASSERT_THAT(rm.Create("a", "y", new Other), IsOk());
  ASSERT_THAT(rm.Create("b", "z", new Counter(2)), IsOk());
  EXPECT_EQ(rm.DebugString(),
            "a | opkit::(anonymous namespace)::Counter | x | Counter 1\n"
            "a | opkit::(anonymous namespace)::Other | y | Other\n"
            "b | opkit::(anonymous namespace)::Counter | z | Counter 2");
  ASSERT_THAT(rm.Cleanup("a"), IsOk());
  EXPECT_EQ(g_live.load(), 1);
  EXPECT_THAT(rm.Cleanup("a"), IsOk());  // Nothing left: still OK.
  Counter* c = nullptr;
  EXPECT_THAT(rm.Lookup("a", "x", &c), StatusIs(error::NOT_FOUND, ::testing::_));
  rm.Clear();
  EXPECT_EQ(g_live.load(), 0);
  EXPECT_EQ(rm.DebugString(), "");
}

TEST_F(ResourceMgrTest, DestructorReleasesEverything) {
  {
    ResourceMgr rm;
    ASSERT_THAT(rm.Create("a", "x", new Counter), IsOk());
    ASSERT_THAT(rm.Create("b", "y", new Other), IsOk());
    EXPECT_EQ(g_live.load(), 2);
  }
  EXPECT_EQ(g_live.load(), 0);
}

TEST(ScopedUnrefTest, NullIsIgnored) {
  core::ScopedUnref unref(nullptr);
}

}  // namespace
}  // namespace opkit

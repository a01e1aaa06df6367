// GuardedPhiloxRandom: seeding from attrs and values, reservations that
// partition the stream, and random seeds when both are 0.
#include "opkit/kernel/guarded_philox_random.h"

#include <memory>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "opkit/kernel/op_kernel_construction.h"
#include "opkit/op/node_def_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

void ExpectSame(random::PhiloxRandom a, random::PhiloxRandom b, int calls) {
  for (int i = 0; i < calls; ++i) {
    random::PhiloxRandom::ResultType x = a(), y = b();
    for (int j = 0; j < 4; ++j) ASSERT_EQ(x[j], y[j]) << i;
  }
}

TEST(GuardedPhiloxRandomTest, SeedsArePhiloxSeeds) {
  GuardedPhiloxRandom guarded;
  guarded.Init(150, 10);
  ExpectSame(guarded.ReserveSamples128(4), random::PhiloxRandom(150, 10), 4);
}

TEST(GuardedPhiloxRandomTest, ReservationsFollowEachOther) {
  GuardedPhiloxRandom guarded;
  guarded.Init(7, 8);
  random::PhiloxRandom first = guarded.ReserveSamples128(3);
  random::PhiloxRandom second = guarded.ReserveSamples32(9);  // 3 calls
  random::PhiloxRandom third = guarded.ReserveRandomOutputs(2, 5);
  random::PhiloxRandom reference(7, 8);
  ExpectSame(first, reference, 3);
  reference.Skip(3);
  ExpectSame(second, reference, 3);
  reference.Skip(3);
  ExpectSame(third, reference, 10);
}

TEST(GuardedPhiloxRandomTest, CounterAndKey) {
  random::PhiloxRandom::ResultType counter;
  counter[0] = 5;
  random::PhiloxRandom::Key key;
  key[1] = 9;
  GuardedPhiloxRandom guarded;
  guarded.Init(counter, key);
  ExpectSame(guarded.ReserveSamples128(1), random::PhiloxRandom(counter, key), 1);
}

TEST(GuardedPhiloxRandomTest, ZeroSeedsAreRandom) {
  GuardedPhiloxRandom a, b;
  a.Init(0, 0);
  b.Init(0, 0);
  random::PhiloxRandom ga = a.ReserveSamples128(1), gb = b.ReserveSamples128(1);
  // Two New64 draws each: the streams differ (and are not the 0, 0 stream).
  EXPECT_NE(ga()[0], gb()[0]);
  EXPECT_FALSE(ga.key()[0] == 0 && ga.key()[1] == 0);
}

TEST(GuardedPhiloxRandomTest, SecondInitIsIgnored) {
  GuardedPhiloxRandom guarded;
  guarded.Init(1, 2);
  guarded.Init(3, 4);
  ExpectSame(guarded.ReserveSamples128(2), random::PhiloxRandom(1, 2), 2);
}

TEST(GuardedPhiloxRandomTest, UseBeforeInitSeedsRandomly) {
  GuardedPhiloxRandom guarded;
  random::PhiloxRandom g = guarded.ReserveSamples128(1);
  EXPECT_FALSE(g.key()[0] == 0 && g.key()[1] == 0 && g.counter()[2] == 0 &&
               g.counter()[3] == 0);
}

std::shared_ptr<const NodeProperties> Node(bool with_seed2) {
  NodeDef node;
  node.set_name("n");
  node.set_op("RandomThing");
  AddNodeAttr("seed", int64_t{150}, &node);
  if (with_seed2) AddNodeAttr("seed2", int64_t{10}, &node);
  return std::make_shared<NodeProperties>(OpDef(), node, DataTypeVector{}, DataTypeVector{});
}

TEST(GuardedPhiloxRandomTest, InitFromAttrs) {
  Status status;
  OpKernelConstruction ctx(DeviceType(DEVICE_CPU), nullptr, nullptr, Node(true), 0, &status);
  GuardedPhiloxRandom guarded;
  ASSERT_THAT(guarded.Init(&ctx), IsOk());
  ExpectSame(guarded.ReserveSamples128(2), random::PhiloxRandom(150, 10), 2);
}

TEST(GuardedPhiloxRandomTest, InitWithoutSeed2AttrIsNotFound) {
  Status status;
  OpKernelConstruction ctx(DeviceType(DEVICE_CPU), nullptr, nullptr, Node(false), 0, &status);
  GuardedPhiloxRandom guarded;
  EXPECT_THAT(guarded.Init(&ctx), StatusIs(error::NOT_FOUND, HasSubstr("seed2")));
}

}  // namespace
}  // namespace opkit

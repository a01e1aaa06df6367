// Tests of the TensorArray kernels, in a Session: a v1 while loop (as
// tf.while_loop emits it) writing one element per iteration, gathered after
// the loop; the array lives for one run; bad indices and dtypes are errors.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/device/device.h"
#include "opkit/graph/graph.h"
#include "opkit/resource/resource_mgr.h"
#include "opkit/runtime/session.h"
#include "opkit/tensor/allocation_limit.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using test::AsScalar;
using test::AsTensor;
using test::Values;


// for i in range(limit): ta = ta.write(i, float(i * i)); then ta.gather and
// ta.size after the loop, and ta.read(read_index) of a second array written
// outside the loop.
constexpr char kLoopGraph[] = R"pb(
  node { name: "limit" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
  node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
  node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
  node { name: "ta" op: "TensorArrayV3" input: "limit"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "element_shape" value { shape {} } } }
  node { name: "enter_i" op: "Enter" input: "zero"
         attr { key: "T" value { type: DT_INT32 } } attr { key: "frame_name" value { s: "loop" } } }
  node { name: "enter_flow" op: "Enter" input: "ta:1"
         attr { key: "T" value { type: DT_FLOAT } } attr { key: "frame_name" value { s: "loop" } } }
  node { name: "enter_ta" op: "Enter" input: "ta"
         attr { key: "T" value { type: DT_RESOURCE } } attr { key: "frame_name" value { s: "loop" } }
         attr { key: "is_constant" value { b: true } } }
  node { name: "enter_limit" op: "Enter" input: "limit"
         attr { key: "T" value { type: DT_INT32 } } attr { key: "frame_name" value { s: "loop" } }
         attr { key: "is_constant" value { b: true } } }
  node { name: "enter_one" op: "Enter" input: "one"
         attr { key: "T" value { type: DT_INT32 } } attr { key: "frame_name" value { s: "loop" } }
         attr { key: "is_constant" value { b: true } } }
  node { name: "merge_i" op: "Merge" input: "enter_i" input: "next_i"
         attr { key: "T" value { type: DT_INT32 } } attr { key: "N" value { i: 2 } } }
  node { name: "merge_flow" op: "Merge" input: "enter_flow" input: "next_flow"
         attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
  node { name: "less" op: "Less" input: "merge_i" input: "enter_limit"
         attr { key: "T" value { type: DT_INT32 } } }
  node { name: "cond" op: "LoopCond" input: "less" }
  node { name: "switch_i" op: "Switch" input: "merge_i" input: "cond"
         attr { key: "T" value { type: DT_INT32 } } }
  node { name: "switch_flow" op: "Switch" input: "merge_flow" input: "cond"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "i" op: "Identity" input: "switch_i:1" attr { key: "T" value { type: DT_INT32 } } }
  node { name: "square" op: "Mul" input: "i" input: "i" attr { key: "T" value { type: DT_INT32 } } }
  node { name: "value" op: "Cast" input: "square"
         attr { key: "SrcT" value { type: DT_INT32 } } attr { key: "DstT" value { type: DT_FLOAT } } }
  node { name: "write" op: "TensorArrayWriteV3" input: "enter_ta" input: "i" input: "value"
         input: "switch_flow:1" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "add" op: "AddV2" input: "i" input: "enter_one" attr { key: "T" value { type: DT_INT32 } } }
  node { name: "next_i" op: "NextIteration" input: "add" attr { key: "T" value { type: DT_INT32 } } }
  node { name: "next_flow" op: "NextIteration" input: "write" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "exit_flow" op: "Exit" input: "switch_flow" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "range" op: "Range" input: "zero" input: "limit" input: "one"
         attr { key: "Tidx" value { type: DT_INT32 } } }
  node { name: "gather" op: "TensorArrayGatherV3" input: "ta" input: "range" input: "exit_flow"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "element_shape" value { shape {} } } }
  node { name: "size" op: "TensorArraySizeV3" input: "ta" input: "exit_flow" }
)pb";

std::unique_ptr<Session> MakeSession(const char* text) {
  GraphDef def;
  EXPECT_THAT(ParseGraphDefText(text, &def), IsOk());
  auto session = Session::New();
  EXPECT_THAT(session, IsOk());
  if (!session.ok()) return nullptr;
  std::unique_ptr<Session> s = std::move(session).value();
  EXPECT_THAT(s->Create(def), IsOk());
  return s;
}

TEST(TensorArrayTest, WhileLoopWritesOneElementPerIteration) {
  std::unique_ptr<Session> session = MakeSession(kLoopGraph);
  ASSERT_NE(session, nullptr);
  for (int32 limit : {4, 2}) {
    std::vector<Tensor> out;
    ASSERT_THAT(session->Run({{"limit", AsScalar<int32>(limit)}}, {"gather", "size"}, {},
                             &out),
                IsOk());
    if (limit == 4) {
      EXPECT_THAT(Values<float>(out[0]), ElementsAre(0, 1, 4, 9));
    } else {
      EXPECT_THAT(Values<float>(out[0]), ElementsAre(0, 1));
    }
    EXPECT_EQ(out[1].scalar<int32>()(), limit);
  }
  // Each run's array went with its step.
  EXPECT_THAT(session->device()->resource_manager()->DebugString(),
              Not(HasSubstr("__per_step_")));
}

TEST(TensorArrayTest, ZeroIterationsGatherAnEmptyArray) {
  std::unique_ptr<Session> session = MakeSession(kLoopGraph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_THAT(session->Run({{"limit", AsScalar<int32>(0)}}, {"gather"}, {}, &out),
              IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({0}));
}

// A graph with one write and one read, both outside a loop.
constexpr char kReadWriteGraph[] = R"pb(
  node { name: "size" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
  node { name: "index" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
  node { name: "read_index" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
  node { name: "value" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "ta" op: "TensorArrayV3" input: "size"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "element_shape" value { shape { dim { size: 2 } } } } }
  node { name: "write" op: "TensorArrayWriteV3" input: "ta" input: "index" input: "value"
         input: "ta:1" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "read" op: "TensorArrayReadV3" input: "ta" input: "read_index" input: "write"
         attr { key: "dtype" value { type: DT_FLOAT } } }
)pb";

TEST(TensorArrayTest, ReadsWritesAndTheirErrors) {
  std::unique_ptr<Session> session = MakeSession(kReadWriteGraph);
  ASSERT_NE(session, nullptr);
  auto run = [&](int32 size, int32 index, int32 read_index, Tensor value,
                 std::vector<Tensor>* out) {
    return session->Run({{"size", AsScalar<int32>(size)}, {"index", AsScalar<int32>(index)},
                         {"read_index", AsScalar<int32>(read_index)}, {"value", value}},
                        {"read"}, {}, out);
  };
  std::vector<Tensor> out;
  ASSERT_THAT(run(3, 1, 1, AsTensor<float>({5, 6}), &out), IsOk());
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(5, 6));
  ASSERT_THAT(run(3, 1, 2, AsTensor<float>({5, 6}), &out), IsOk());
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(0, 0))
      << "an element never written reads as zeros of the element shape";
  EXPECT_THAT(run(3, 3, 0, AsTensor<float>({5, 6}), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Tried to write to index 3 but array is not "
                                 "resizeable and size is: 3")));
  EXPECT_THAT(run(3, 0, 7, AsTensor<float>({5, 6}), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Tried to read from index 7 but array size "
                                 "is: 3")));
  EXPECT_THAT(run(3, 0, 0, AsTensor<float>({5, 6, 7}), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("incompatible with the TensorArray's inferred "
                                 "element shape: [2]")));
  EXPECT_THAT(run(-1, 0, 0, AsTensor<float>({5, 6}), &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Size should be >= 0")));
  // Slots beyond the allocation limit (found by the op fuzzer: a
  // std::bad_alloc that aborted the process).
  ScopedAllocationLimit limit(1 << 20);
  EXPECT_THAT(run(1 << 30, 0, 0, AsTensor<float>({5, 6}), &out),
              StatusIs(error::RESOURCE_EXHAUSTED,
                       HasSubstr("TensorArray of 1073741824 elements")));
}

}  // namespace
}  // namespace opkit

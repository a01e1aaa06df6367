// Test-only: the InferenceContextTest fixture (a context for an op
// "Foo(a: float, b: float) -> o: float") and the helpers the
// shape_inference*_test.cc files share.
#ifndef OPKIT_SHAPE_TESTING_INFERENCE_CONTEXT_TEST_FIXTURE_H_
#define OPKIT_SHAPE_TESTING_INFERENCE_CONTEXT_TEST_FIXTURE_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/shape/shape_inference.h"
#include "opkit/tensor/tensor.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace shape_inference {
namespace shape_test {

using ::opkit::testing::IsOk;

inline constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

// The OpDef `b` finalizes to; a failure fails the test.
inline OpDef BuildOpDef(OpDefBuilder b) {
  OpRegistrationData data;
  Status s = b.Finalize(&data);
  EXPECT_TRUE(s.ok()) << s.message();
  return data.op_def;
}

// An op "Foo(a: float, b: float) -> o: float".
inline OpDef TwoInOneOutOp() {
  return BuildOpDef(
      OpDefBuilder("Foo").Input("a: float").Input("b: float").Output("o: float"));
}

// A node of Foo with inputs "p" and "q".
inline NodeDef FooNode() {
  NodeDef n;
  n.set_name("foo");
  n.set_op("Foo");
  n.add_input("p");
  n.add_input("q");
  return n;
}

// A vector tensor holding `values`.
inline Tensor Int32Vector(std::vector<int32> values) {
  Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.flat<int32>()(i) = values[i];
  return t;
}

// A context for Foo with two inputs of the given shapes (and no tensors).
class InferenceContextTest : public ::testing::Test {
 protected:
  InferenceContextTest() : op_def_(TwoInOneOutOp()), node_(FooNode()) {}

  std::unique_ptr<InferenceContext> Make(std::vector<PartialTensorShape> shapes,
                                         std::vector<const Tensor*> tensors = {}) {
    auto c = std::make_unique<InferenceContext>(0, node_, op_def_, shapes, tensors,
                                                std::vector<PartialTensorShape>{});
    EXPECT_THAT(c->construction_status(), IsOk());
    return c;
  }

  OpDef op_def_;
  NodeDef node_;
};

}  // namespace shape_test
}  // namespace shape_inference
}  // namespace opkit

#endif  // OPKIT_SHAPE_TESTING_INFERENCE_CONTEXT_TEST_FIXTURE_H_

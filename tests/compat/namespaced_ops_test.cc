// Namespaced op names ("Addons>Gelu", "Examples>MinMax", as TensorFlow Addons
// and TensorFlow's examples name ops) from C++: a library of them
// (plugins/namespaced_ops.cc) loads, its ops run eagerly and as graph nodes
// with TensorFlow's values, and the name rule is TensorFlow's.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/tensor.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/graph/graph.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/op_def_util.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/runtime/library.h"
#include "opkit/runtime/session.h"
#include "opkit/testing/status_matchers.h"

using namespace tensorflow;

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

class NamespacedOpsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    StatusOr<opkit::OpLibrary> lib = opkit::LoadOpLibrary(OPKIT_NAMESPACED_OPS_LIB);
    ASSERT_THAT(lib.status(), IsOk());
    std::vector<std::string> names;
    for (const OpDef& op : lib->op_list().op()) names.push_back(op.name());
    EXPECT_THAT(names, ::testing::UnorderedElementsAre("Addons>Gelu", "Examples>MinMax"));
  }
};

Tensor Floats(const std::vector<float>& values) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.flat<float>()(i) = values[i];
  return t;
}

TEST_F(NamespacedOpsTest, RunEagerlyWithTensorFlowsValues) {
  auto ctx = opkit::EagerContext::Create();
  ASSERT_THAT(ctx.status(), IsOk());
  std::vector<Tensor> out;
  // tfa.activations.gelu([-1, 0, 1]) with approximate=True.
  ASSERT_THAT((*ctx)->Run("Addons>Gelu", {Floats({-1.f, 0.f, 1.f})}, &out), IsOk());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(out[0].flat<float>()(0), -0.15880796f, 1e-6);
  EXPECT_NEAR(out[0].flat<float>()(1), 0.f, 1e-6);
  EXPECT_NEAR(out[0].flat<float>()(2), 0.841192f, 1e-6);
  AttrValue exact;
  exact.set_b(false);
  ASSERT_THAT((*ctx)->Run("Addons>Gelu", {Floats({1.f})}, {{"approximate", exact}}, &out),
              IsOk());
  EXPECT_NEAR(out[0].flat<float>()(0), 0.8413447f, 1e-6);

  ASSERT_THAT((*ctx)->Run("Examples>MinMax", {Floats({3.f, -2.f, 7.f})}, &out), IsOk());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].scalar<float>()(), -2.f);
  EXPECT_EQ(out[1].scalar<float>()(), 7.f);
}

TEST_F(NamespacedOpsTest, RunAsGraphNodes) {
  GraphDef graph;
  ASSERT_THAT(opkit::ParseGraphDefText(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "gelu" op: "Addons>Gelu" input: "x"
           attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "range" op: "Examples>MinMax" input: "gelu"
           attr { key: "T" value { type: DT_FLOAT } } }
  )pb", &graph), IsOk());
  auto session = opkit::Session::New();
  ASSERT_THAT(session.status(), IsOk());
  ASSERT_THAT((*session)->Create(graph), IsOk());
  std::vector<Tensor> out;
  ASSERT_THAT((*session)->Run({{"x", Floats({-1.f, 1.f})}}, {"range:0", "range:1"}, {}, &out),
              IsOk());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_NEAR(out[0].scalar<float>()(), -0.15880796f, 1e-6);
  EXPECT_NEAR(out[1].scalar<float>()(), 0.841192f, 1e-6);
}

TEST_F(NamespacedOpsTest, NamesFollowTensorFlowsRule) {
  // TensorFlow's op name rule (IsValidOpName in op_def_util.cc): segments
  // starting with an upper-case letter, joined by single '>'; checked when
  // an OpDef is validated for registration.
  EXPECT_THAT(OpRegistry::Global()->LookUp("Addons>Gelu"), ::testing::NotNull());
  for (const char* bad : {"Addons>", ">Gelu", "Addons>>Gelu", "Addons>gelu"}) {
    SCOPED_TRACE(bad);
    OpRegistrationData data;
    ASSERT_THAT(OpDefBuilder(bad).Output("y: float").Finalize(&data), IsOk());
    EXPECT_THAT(opkit::ValidateOpDef(data.op_def),
                StatusIs(opkit::error::INVALID_ARGUMENT, HasSubstr(bad)));
  }
  OpRegistrationData data;
  ASSERT_THAT(OpDefBuilder("Addons>Sub_Namespace>Op2").Output("y: float").Finalize(&data),
              IsOk());
  EXPECT_THAT(opkit::ValidateOpDef(data.op_def), IsOk());
}

}  // namespace

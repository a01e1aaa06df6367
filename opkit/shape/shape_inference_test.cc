#include "opkit/shape/shape_inference.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/op/op_registry.h"
#include "opkit/testing/shape_inference_testutil.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace shape_inference {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

OpDef BuildOpDef(OpDefBuilder b) {
  OpRegistrationData data;
  Status s = b.Finalize(&data);
  EXPECT_TRUE(s.ok()) << s.message();
  return data.op_def;
}

// An op "Foo(a: float, b: float) -> o: float".
OpDef TwoInOneOutOp() {
  return BuildOpDef(
      OpDefBuilder("Foo").Input("a: float").Input("b: float").Output("o: float"));
}

// An op with list inputs and outputs: "ins: N * float, x: float -> outs: M * float, y: float".
OpDef ListOp() {
  return BuildOpDef(OpDefBuilder("ListOp")
                        .Input("ins: N * float")
                        .Input("x: float")
                        .Output("outs: M * float")
                        .Output("y: float")
                        .Attr("N: int >= 0")
                        .Attr("M: int >= 0")
                        .Attr("s: string = 'hi'")
                        .Attr("f: float = 1.5")
                        .Attr("li: list(int) = [1, 2]"));
}

NodeDef FooNode() {
  NodeDef n;
  n.set_name("foo");
  n.set_op("Foo");
  n.add_input("p");
  n.add_input("q");
  return n;
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

TEST_F(InferenceContextTest, InputsOutputsAndDebugString) {
  auto c = Make({PartialTensorShape({2, -1}), PartialTensorShape()});
  EXPECT_EQ(2, c->num_inputs());
  EXPECT_EQ(1, c->num_outputs());
  EXPECT_EQ("[2,?]", c->DebugString(c->input(0)));
  EXPECT_EQ("?", c->DebugString(c->input(1)));
  EXPECT_EQ("2", c->DebugString(c->Dim(c->input(0), 0)));
  EXPECT_EQ("?", c->DebugString(c->Dim(c->input(0), 1)));
  EXPECT_FALSE(c->output(0).IsSet());
  c->set_output(0, c->input(1));
  EXPECT_TRUE(c->output(0).SameHandle(c->input(1)));
  EXPECT_EQ("Foo", c->op());
  EXPECT_EQ(0, c->graph_def_version());
  EXPECT_EQ("?", c->DebugString(ShapeHandle()));
  EXPECT_EQ("?", c->DebugString(DimensionHandle()));
  EXPECT_EQ("[]", c->DebugString(c->Scalar()));
  EXPECT_EQ("[2,?]:float", c->DebugString(ShapeAndType(c->input(0), DT_FLOAT)));
  EXPECT_EQ("[[2,?]:float]", c->DebugString(std::vector<ShapeAndType>{
                                  ShapeAndType(c->input(0), DT_FLOAT)}));
}

TEST_F(InferenceContextTest, RankAndDims) {
  auto c = Make({PartialTensorShape({2, -1, 4}), PartialTensorShape()});
  ShapeHandle s = c->input(0);
  EXPECT_EQ(3, c->Rank(s));
  EXPECT_TRUE(c->RankKnown(s));
  EXPECT_EQ(InferenceContext::kUnknownRank, c->Rank(c->input(1)));
  EXPECT_FALSE(c->RankKnown(c->input(1)));
  EXPECT_EQ(2, c->Value(c->Dim(s, 0)));
  EXPECT_EQ(4, c->Value(c->Dim(s, -1)));
  EXPECT_TRUE(c->Dim(s, -3).SameHandle(c->Dim(s, 0)));
  EXPECT_FALSE(c->ValueKnown(c->Dim(s, 1)));
  EXPECT_TRUE(c->ValueKnown(c->Dim(s, 2)));
  // Out of range and unknown rank: a fresh unknown dimension, never a crash.
  EXPECT_FALSE(c->ValueKnown(c->Dim(s, 3)));
  EXPECT_FALSE(c->ValueKnown(c->Dim(s, -4)));
  EXPECT_FALSE(c->ValueKnown(c->Dim(s, kI64Max)));
  EXPECT_FALSE(c->ValueKnown(c->Dim(s, std::numeric_limits<int64_t>::min())));
  EXPECT_TRUE(c->Dim(c->input(1), 0).IsSet());
  EXPECT_FALSE(c->ValueKnown(c->Dim(c->input(1), 0)));
  EXPECT_TRUE(InferenceContext::DimKnownRank(s, 2).SameHandle(c->Dim(s, 2)));
  EXPECT_FALSE(InferenceContext::DimKnownRank(s, 7).IsSet());
  EXPECT_FALSE(InferenceContext::DimKnownRank(c->input(1), 0).IsSet());
  // Unset handles read as unknown.
  EXPECT_EQ(InferenceContext::kUnknownRank, InferenceContext::Rank(ShapeHandle()));
  EXPECT_EQ(InferenceContext::kUnknownDim, InferenceContext::Value(DimensionHandle()));
  EXPECT_EQ(5, InferenceContext::Value(5));
}

TEST_F(InferenceContextTest, FullyDefinedAndNumElements) {
  auto c = Make({PartialTensorShape({2, 3, 4}), PartialTensorShape({2, -1})});
  EXPECT_TRUE(c->FullyDefined(c->input(0)));
  EXPECT_FALSE(c->FullyDefined(c->input(1)));
  EXPECT_FALSE(c->FullyDefined(c->UnknownShape()));
  EXPECT_TRUE(c->FullyDefined(c->Scalar()));
  EXPECT_EQ(24, c->Value(c->NumElements(c->input(0))));
  EXPECT_EQ(1, c->Value(c->NumElements(c->Scalar())));
  EXPECT_FALSE(c->ValueKnown(c->NumElements(c->input(1))));
  EXPECT_FALSE(c->ValueKnown(c->NumElements(c->UnknownShape())));
  // An element count that overflows int64 is unknown, not wrapped.
  ShapeHandle huge = c->MakeShape({kI64Max, 4});
  EXPECT_FALSE(c->ValueKnown(c->NumElements(huge)));
}

TEST_F(InferenceContextTest, NamedInputsAndOutputs) {
  OpDef op = ListOp();
  NodeDef n;
  n.set_name("l");
  n.set_op("ListOp");
  AddNodeAttr("N", 2, &n);
  AddNodeAttr("M", 3, &n);
  InferenceContext c(0, n, op,
                     std::vector<PartialTensorShape>{PartialTensorShape({1}),
                                                     PartialTensorShape({2}),
                                                     PartialTensorShape({3})},
                     {});
  ASSERT_THAT(c.construction_status(), IsOk());
  EXPECT_EQ(3, c.num_inputs());
  EXPECT_EQ(4, c.num_outputs());
  std::vector<ShapeHandle> ins;
  OPKIT_ASSERT_OK(c.input("ins", &ins));
  ASSERT_EQ(2u, ins.size());
  EXPECT_TRUE(ins[1].SameHandle(c.input(1)));
  OPKIT_ASSERT_OK(c.input("x", &ins));
  ASSERT_EQ(1u, ins.size());
  EXPECT_TRUE(ins[0].SameHandle(c.input(2)));
  EXPECT_THAT(c.input("nope", &ins),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Unknown input name: nope")));

  OPKIT_EXPECT_OK(c.set_output("outs", {c.Scalar(), c.Vector(1), c.Vector(2)}));
  OPKIT_EXPECT_OK(c.set_output("y", {c.input(0)}));
  EXPECT_EQ("[2]", c.DebugString(c.output(2)));
  EXPECT_TRUE(c.output(3).SameHandle(c.input(0)));
  EXPECT_THAT(c.set_output("outs", {c.Scalar()}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Must have exactly 3 shapes")));
  EXPECT_THAT(c.set_output("zz", {}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Unknown output name: zz")));
  std::vector<ShapeHandle> outs;
  OPKIT_ASSERT_OK(c.output("outs", &outs));
  EXPECT_EQ(3u, outs.size());
  EXPECT_THAT(c.output("zz", &outs), StatusIs(error::INVALID_ARGUMENT));

  OPKIT_EXPECT_OK(c.ExpandOutputs(6));
  EXPECT_EQ(6, c.num_outputs());
  EXPECT_FALSE(c.output(5).IsSet());
  EXPECT_THAT(c.ExpandOutputs(2), StatusIs(error::INVALID_ARGUMENT, HasSubstr("reduce")));
  EXPECT_THAT(c.ExpandOutputs(std::numeric_limits<int>::max()),
              StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(InferenceContextTest, GetAttrEveryKind) {
  OpDef op = ListOp();
  NodeDef n;
  n.set_name("l");
  n.set_op("ListOp");
  AddNodeAttr("N", 0, &n);
  AddNodeAttr("M", 0, &n);
  AddNodeAttr("shape", PartialTensorShape({2, -1}), &n);
  AddNodeAttr("dt", DT_INT64, &n);
  AddNodeAttr("b", true, &n);
  AddDefaultsToNodeDef(op, &n);
  InferenceContext c(0, n, op, std::vector<PartialTensorShape>{PartialTensorShape()}, {});
  ASSERT_THAT(c.construction_status(), IsOk());
  int64_t m = -1;
  OPKIT_EXPECT_OK(c.GetAttr("M", &m));
  EXPECT_EQ(0, m);
  int32 n32 = -1;
  OPKIT_EXPECT_OK(c.GetAttr("N", &n32));
  EXPECT_EQ(0, n32);
  std::string s;
  OPKIT_EXPECT_OK(c.GetAttr("s", &s));
  EXPECT_EQ("hi", s);
  float f = 0;
  OPKIT_EXPECT_OK(c.GetAttr("f", &f));
  EXPECT_FLOAT_EQ(1.5f, f);
  std::vector<int64> li;
  OPKIT_EXPECT_OK(c.GetAttr("li", &li));
  EXPECT_EQ((std::vector<int64>{1, 2}), li);
  PartialTensorShape p;
  OPKIT_EXPECT_OK(c.GetAttr("shape", &p));
  EXPECT_EQ("[2,?]", p.DebugString());
  DataType dt = DT_INVALID;
  OPKIT_EXPECT_OK(c.GetAttr("dt", &dt));
  EXPECT_EQ(DT_INT64, dt);
  bool b = false;
  OPKIT_EXPECT_OK(c.GetAttr("b", &b));
  EXPECT_TRUE(b);
  EXPECT_THAT(c.GetAttr("missing", &b), StatusIs(error::NOT_FOUND, HasSubstr("missing")));
  EXPECT_THAT(c.GetAttr("s", &b), StatusIs(error::INVALID_ARGUMENT));
  EXPECT_NE(nullptr, c.attrs().Find("s"));
}

TEST_F(InferenceContextTest, ConstructionErrors) {
  // Wrong number of inputs.
  InferenceContext c1(0, node_, op_def_, std::vector<PartialTensorShape>{PartialTensorShape()},
                      {});
  EXPECT_THAT(c1.construction_status(),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Wrong number of inputs passed: 1 while 2 expected")));
  // Run reports it without calling the function.
  bool called = false;
  EXPECT_THAT(c1.Run([&](InferenceContext*) {
    called = true;
    return Status::OK();
  }),
              StatusIs(error::INVALID_ARGUMENT));
  EXPECT_FALSE(called);
  // Accessors stay safe after a construction error.
  EXPECT_FALSE(c1.input(5).IsSet());
  EXPECT_EQ(nullptr, c1.input_tensor(9));

  // More tensors than inputs.
  Tensor t(DT_INT32, TensorShape({}));
  InferenceContext c2(0, node_, op_def_,
                      std::vector<PartialTensorShape>{PartialTensorShape(), PartialTensorShape()},
                      {&t, &t, &t});
  EXPECT_THAT(c2.construction_status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("3 input tensors for 2 inputs")));

  // An invalid proto shape.
  TensorShapeProto bad;
  bad.add_dim()->set_size(-7);
  InferenceContext c3(0, node_, op_def_, std::vector<TensorShapeProto>{bad, bad}, {});
  EXPECT_THAT(c3.construction_status(), StatusIs(error::INVALID_ARGUMENT));

  // Missing attrs needed to count inputs.
  NodeDef n;
  n.set_name("l");
  n.set_op("ListOp");
  InferenceContext c4(0, n, ListOp(), std::vector<PartialTensorShape>{}, {});
  EXPECT_FALSE(c4.construction_status().ok());

  // Wrong number of handle data entries.
  std::vector<std::unique_ptr<std::vector<std::pair<PartialTensorShape, DataType>>>> hd;
  hd.emplace_back();
  InferenceContext c5(0, node_, op_def_,
                      std::vector<PartialTensorShape>{PartialTensorShape(), PartialTensorShape()},
                      {}, {}, hd);
  EXPECT_THAT(c5.construction_status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Wrong number of handle shapes")));
}

TEST_F(InferenceContextTest, ProtoAndHandleConstructors) {
  TensorShapeProto p0;
  p0.add_dim()->set_size(2);
  p0.add_dim()->set_size(-1);
  TensorShapeProto p1;
  p1.set_unknown_rank(true);
  InferenceContext c(0, node_, op_def_, std::vector<TensorShapeProto>{p0, p1}, {});
  ASSERT_THAT(c.construction_status(), IsOk());
  EXPECT_EQ("[2,?]", c.DebugString(c.input(0)));
  EXPECT_EQ("?", c.DebugString(c.input(1)));

  // Handles from another context keep their identity.
  InferenceContext c2(0, node_, op_def_, std::vector<ShapeHandle>{c.input(0), c.input(1)}, {});
  ASSERT_THAT(c2.construction_status(), IsOk());
  EXPECT_TRUE(c2.input(0).SameHandle(c.input(0)));
  EXPECT_TRUE(c2.Dim(c2.input(0), 1).SameHandle(c.Dim(c.input(0), 1)));
}

TEST_F(InferenceContextTest, WithRank) {
  auto c = Make({PartialTensorShape({1, 2}), PartialTensorShape()});
  ShapeHandle out;
  OPKIT_EXPECT_OK(c->WithRank(c->input(0), 2, &out));
  EXPECT_TRUE(out.SameHandle(c->input(0)));
  EXPECT_THAT(c->WithRank(c->input(0), 3, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Shape must be rank 3 but is rank 2")));
  EXPECT_FALSE(out.IsSet());
  OPKIT_EXPECT_OK(c->WithRank(c->input(1), 3, &out));
  EXPECT_EQ("[?,?,?]", c->DebugString(out));
  EXPECT_THAT(c->WithRank(c->input(1), -1, &out), StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(c->WithRank(c->input(1), kI64Max, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Rank must be between 0 and 254")));

  OPKIT_EXPECT_OK(c->WithRankAtLeast(c->input(0), 2, &out));
  EXPECT_TRUE(out.SameHandle(c->input(0)));
  OPKIT_EXPECT_OK(c->WithRankAtLeast(c->input(0), 0, &out));
  EXPECT_THAT(c->WithRankAtLeast(c->input(0), 3, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Shape must be at least rank 3 but is rank 2")));
  OPKIT_EXPECT_OK(c->WithRankAtLeast(c->input(1), 5, &out));
  EXPECT_TRUE(out.SameHandle(c->input(1)));
  EXPECT_THAT(c->WithRankAtLeast(c->input(1), 1000, &out), StatusIs(error::INVALID_ARGUMENT));

  OPKIT_EXPECT_OK(c->WithRankAtMost(c->input(0), 2, &out));
  EXPECT_TRUE(out.SameHandle(c->input(0)));
  EXPECT_THAT(c->WithRankAtMost(c->input(0), 1, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Shape must be at most rank 1 but is rank 2")));
  OPKIT_EXPECT_OK(c->WithRankAtMost(c->input(1), 1, &out));
  EXPECT_TRUE(out.SameHandle(c->input(1)));
  EXPECT_THAT(c->WithRankAtMost(c->input(1), -3, &out), StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(InferenceContextTest, WithValue) {
  auto c = Make({PartialTensorShape({2, -1}), PartialTensorShape()});
  DimensionHandle d0 = c->Dim(c->input(0), 0);
  DimensionHandle d1 = c->Dim(c->input(0), 1);
  DimensionHandle out;
  OPKIT_EXPECT_OK(c->WithValue(d0, 2, &out));
  EXPECT_TRUE(out.SameHandle(d0));
  EXPECT_THAT(c->WithValue(d0, 3, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Dimension must be 3 but is 2")));
  EXPECT_FALSE(out.IsSet());
  OPKIT_EXPECT_OK(c->WithValue(d1, 5, &out));
  EXPECT_EQ(5, c->Value(out));
  EXPECT_FALSE(out.SameHandle(d1));
  EXPECT_THAT(c->WithValue(d1, -2, &out), StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(InferenceContextTest, MergeDims) {
  auto c = Make({PartialTensorShape({2, -1, 2, -1, 3}), PartialTensorShape()});
  ShapeHandle s = c->input(0);
  DimensionHandle out;
  // known + unknown -> the known one.
  OPKIT_EXPECT_OK(c->Merge(c->Dim(s, 0), c->Dim(s, 1), &out));
  EXPECT_TRUE(out.SameHandle(c->Dim(s, 0)));
  OPKIT_EXPECT_OK(c->Merge(c->Dim(s, 1), c->Dim(s, 0), &out));
  EXPECT_TRUE(out.SameHandle(c->Dim(s, 0)));
  // two unknowns -> the first.
  OPKIT_EXPECT_OK(c->Merge(c->Dim(s, 1), c->Dim(s, 3), &out));
  EXPECT_TRUE(out.SameHandle(c->Dim(s, 1)));
  // equal values -> the first.
  OPKIT_EXPECT_OK(c->Merge(c->Dim(s, 2), c->Dim(s, 0), &out));
  EXPECT_TRUE(out.SameHandle(c->Dim(s, 2)));
  EXPECT_THAT(c->Merge(c->Dim(s, 0), c->Dim(s, 4), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Dimensions must be equal, but are 2 and 3")));
  EXPECT_FALSE(out.IsSet());
  // Unset handles merge as unknowns.
  OPKIT_EXPECT_OK(c->Merge(DimensionHandle(), DimensionHandle(), &out));
  EXPECT_TRUE(out.IsSet());
  EXPECT_FALSE(c->ValueKnown(out));
}

TEST_F(InferenceContextTest, MergeShapes) {
  auto c = Make({PartialTensorShape({2, -1}), PartialTensorShape()});
  ShapeHandle a = c->input(0);
  ShapeHandle unknown = c->input(1);
  ShapeHandle out;
  OPKIT_EXPECT_OK(c->Merge(a, unknown, &out));
  EXPECT_TRUE(out.SameHandle(a));
  OPKIT_EXPECT_OK(c->Merge(unknown, a, &out));
  EXPECT_TRUE(out.SameHandle(a));
  OPKIT_EXPECT_OK(c->Merge(a, a, &out));
  EXPECT_TRUE(out.SameHandle(a));

  // s1 more specific in every dim -> s1 itself.
  ShapeHandle b = c->MakeShape({c->Dim(a, 0), 3});
  OPKIT_EXPECT_OK(c->Merge(a, b, &out));
  EXPECT_TRUE(out.SameHandle(b));
  // Each more specific somewhere -> a new shape reusing the known dims.
  ShapeHandle d = c->MakeShape({-1, 3});
  OPKIT_EXPECT_OK(c->Merge(a, d, &out));
  EXPECT_EQ("[2,3]", c->DebugString(out));
  EXPECT_TRUE(c->Dim(out, 0).SameHandle(c->Dim(a, 0)));
  EXPECT_TRUE(c->Dim(out, 1).SameHandle(c->Dim(d, 1)));

  EXPECT_THAT(c->Merge(a, c->Vector(2), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Shapes must be equal rank, but are 2 and 1")));
  EXPECT_FALSE(out.IsSet());
  EXPECT_THAT(c->Merge(a, c->Matrix(4, 3), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Dimension 0 in both shapes must be equal, but are 2 and 4. "
                                 "Shapes are [2,?] and [4,3].")));
}

TEST_F(InferenceContextTest, MergePrefix) {
  auto c = Make({PartialTensorShape({2, -1, 4}), PartialTensorShape()});
  ShapeHandle s = c->input(0);
  ShapeHandle s_out, p_out;
  ShapeHandle prefix = c->MakeShape({-1, 3});
  OPKIT_EXPECT_OK(c->MergePrefix(s, prefix, &s_out, &p_out));
  EXPECT_EQ("[2,3,4]", c->DebugString(s_out));
  EXPECT_EQ("[2,3]", c->DebugString(p_out));
  EXPECT_TRUE(c->Dim(s_out, 0).SameHandle(c->Dim(s, 0)));
  EXPECT_TRUE(c->Dim(s_out, 2).SameHandle(c->Dim(s, 2)));

  OPKIT_EXPECT_OK(c->MergePrefix(c->input(1), prefix, &s_out, &p_out));
  EXPECT_TRUE(s_out.SameHandle(c->input(1)));
  EXPECT_TRUE(p_out.SameHandle(prefix));

  EXPECT_THAT(c->MergePrefix(s, c->MakeShape({1, 2, 3, 4}), &s_out, &p_out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Shape must be at least rank 4")));
  EXPECT_THAT(c->MergePrefix(s, c->MakeShape({5}), &s_out, &p_out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Dimensions must be equal")));
}

TEST_F(InferenceContextTest, Relax) {
  auto c = Make({PartialTensorShape({2, -1}), PartialTensorShape()});
  ShapeHandle a = c->input(0);
  ShapeHandle out;
  c->Relax(a, a, &out);
  EXPECT_TRUE(out.SameHandle(a));
  c->Relax(a, c->input(1), &out);
  EXPECT_TRUE(out.SameHandle(c->input(1)));
  c->Relax(c->input(1), a, &out);
  EXPECT_FALSE(c->RankKnown(out));
  c->Relax(a, c->Vector(2), &out);
  EXPECT_FALSE(c->RankKnown(out));
  c->Relax(a, c->MakeShape({2, 7}), &out);
  EXPECT_EQ("[2,?]", c->DebugString(out));
  c->Relax(a, c->MakeShape({3, -1}), &out);
  EXPECT_EQ("[?,?]", c->DebugString(out));
  EXPECT_FALSE(c->Dim(out, 0).SameHandle(c->Dim(a, 0)));

  DimensionHandle d;
  c->Relax(c->Dim(a, 0), c->MakeDim(2), &d);
  EXPECT_TRUE(d.SameHandle(c->Dim(a, 0)));
  c->Relax(c->Dim(a, 0), c->MakeDim(3), &d);
  EXPECT_FALSE(c->ValueKnown(d));
  c->Relax(c->Dim(a, 1), c->UnknownDim(), &d);
  EXPECT_TRUE(d.SameHandle(c->Dim(a, 1)));
}

TEST_F(InferenceContextTest, Builders) {
  auto c = Make({PartialTensorShape({2}), PartialTensorShape()});
  EXPECT_EQ("[]", c->DebugString(c->Scalar()));
  EXPECT_EQ("[3]", c->DebugString(c->Vector(3)));
  EXPECT_EQ("[?]", c->DebugString(c->Vector(InferenceContext::kUnknownDim)));
  EXPECT_EQ("[2,?]", c->DebugString(c->Matrix(2, c->UnknownDim())));
  DimensionHandle d = c->Dim(c->input(0), 0);
  EXPECT_TRUE(c->Dim(c->Vector(d), 0).SameHandle(d));
  EXPECT_TRUE(c->MakeDim(d).SameHandle(d));
  EXPECT_EQ(7, c->Value(c->MakeDim(7)));
  // Negative sizes other than -1 become unknown rather than invalid dims.
  EXPECT_FALSE(c->ValueKnown(c->MakeDim(-9)));
  EXPECT_EQ("[?,4]", c->DebugString(c->MakeShape({-5, 4})));
  EXPECT_EQ("[?,?]", c->DebugString(c->MakeShape(std::vector<DimensionHandle>(2))));
  EXPECT_EQ("?", c->DebugString(c->UnknownShape()));
  EXPECT_FALSE(c->UnknownShape().SameHandle(c->UnknownShape()));
  EXPECT_EQ("[?,?,?]", c->DebugString(c->UnknownShapeOfRank(3)));
  EXPECT_EQ("?", c->DebugString(c->UnknownShapeOfRank(-1)));
  EXPECT_EQ("?", c->DebugString(c->UnknownShapeOfRank(kI64Max)));
  EXPECT_FALSE(c->UnknownDim().SameHandle(c->UnknownDim()));
}

TEST_F(InferenceContextTest, Subshape) {
  auto c = Make({PartialTensorShape({1, 2, 3, 4}), PartialTensorShape()});
  ShapeHandle s = c->input(0);
  ShapeHandle out;
  OPKIT_EXPECT_OK(c->Subshape(s, 0, &out));
  EXPECT_TRUE(out.SameHandle(s));
  OPKIT_EXPECT_OK(c->Subshape(s, 1, &out));
  EXPECT_EQ("[2,3,4]", c->DebugString(out));
  EXPECT_TRUE(c->Dim(out, 0).SameHandle(c->Dim(s, 1)));
  OPKIT_EXPECT_OK(c->Subshape(s, -2, &out));
  EXPECT_EQ("[3,4]", c->DebugString(out));
  OPKIT_EXPECT_OK(c->Subshape(s, 1, 3, &out));
  EXPECT_EQ("[2,3]", c->DebugString(out));
  OPKIT_EXPECT_OK(c->Subshape(s, 1, -1, &out));
  EXPECT_EQ("[2,3]", c->DebugString(out));
  OPKIT_EXPECT_OK(c->Subshape(s, 10, &out));
  EXPECT_EQ("[]", c->DebugString(out));
  OPKIT_EXPECT_OK(c->Subshape(s, 0, 100, &out));
  EXPECT_TRUE(out.SameHandle(s));
  OPKIT_EXPECT_OK(c->Subshape(s, 0, 4, 2, &out));
  EXPECT_EQ("[1,3]", c->DebugString(out));
  OPKIT_EXPECT_OK(c->Subshape(s, -1, -5, -1, &out));
  EXPECT_EQ("[4,3,2,1]", c->DebugString(out));
  OPKIT_EXPECT_OK(c->Subshape(s, 3, 0, -2, &out));
  EXPECT_EQ("[4,2]", c->DebugString(out));
  OPKIT_EXPECT_OK(c->Subshape(s, 0, 4, kI64Max, &out));
  EXPECT_EQ("[1]", c->DebugString(out));
  OPKIT_EXPECT_OK(c->Subshape(c->input(1), 2, &out));
  EXPECT_FALSE(c->RankKnown(out));
  OPKIT_EXPECT_OK(c->Subshape(c->input(1), 0, &out));
  EXPECT_TRUE(out.SameHandle(c->input(1)));

  EXPECT_THAT(c->Subshape(s, -5, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Subshape start out of bounds: -5, for shape with rank 4")));
  EXPECT_FALSE(out.IsSet());
  EXPECT_THAT(c->Subshape(s, 0, -6, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Subshape end out of bounds: -6, for shape with rank 4")));
  EXPECT_THAT(c->Subshape(s, 3, 1, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Subshape must have computed start <= end, but is 3 and 1")));
  EXPECT_THAT(c->Subshape(s, 1, 3, -1, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("stride is negative")));
  EXPECT_THAT(c->Subshape(s, 0, 2, 0, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("stride must not be 0")));
  EXPECT_THAT(c->Subshape(s, std::numeric_limits<int64_t>::min(), &out),
              StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(InferenceContextTest, ConcatenateAndReplaceDim) {
  auto c = Make({PartialTensorShape({1, 2}), PartialTensorShape()});
  ShapeHandle s = c->input(0);
  ShapeHandle out;
  OPKIT_EXPECT_OK(c->Concatenate(s, c->Vector(3), &out));
  EXPECT_EQ("[1,2,3]", c->DebugString(out));
  EXPECT_TRUE(c->Dim(out, 1).SameHandle(c->Dim(s, 1)));
  OPKIT_EXPECT_OK(c->Concatenate(s, c->input(1), &out));
  EXPECT_FALSE(c->RankKnown(out));
  OPKIT_EXPECT_OK(c->Concatenate(c->input(1), s, &out));
  EXPECT_FALSE(c->RankKnown(out));
  ShapeHandle big = c->UnknownShapeOfRank(200);
  EXPECT_THAT(c->Concatenate(big, big, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("more than the maximum")));

  OPKIT_EXPECT_OK(c->ReplaceDim(s, 0, c->MakeDim(9), &out));
  EXPECT_EQ("[9,2]", c->DebugString(out));
  EXPECT_TRUE(c->Dim(out, 1).SameHandle(c->Dim(s, 1)));
  OPKIT_EXPECT_OK(c->ReplaceDim(s, -1, c->UnknownDim(), &out));
  EXPECT_EQ("[1,?]", c->DebugString(out));
  OPKIT_EXPECT_OK(c->ReplaceDim(c->input(1), 5, c->MakeDim(9), &out));
  EXPECT_FALSE(c->RankKnown(out));
  EXPECT_THAT(c->ReplaceDim(s, 2, c->MakeDim(9), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Out of range dim_index 2 for shape with 2 dimensions")));
  EXPECT_THAT(c->ReplaceDim(s, -3, c->MakeDim(9), &out), StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(c->ReplaceDim(s, std::numeric_limits<int64_t>::min(), c->MakeDim(9), &out),
              StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(InferenceContextTest, ShapesFromValues) {
  auto c = Make({PartialTensorShape(), PartialTensorShape()});
  ShapeHandle out;
  TensorShapeProto proto;
  proto.add_dim()->set_size(3);
  proto.add_dim()->set_size(-1);
  OPKIT_EXPECT_OK(c->MakeShapeFromShapeProto(proto, &out));
  EXPECT_EQ("[3,?]", c->DebugString(out));
  TensorShapeProto unknown;
  unknown.set_unknown_rank(true);
  OPKIT_EXPECT_OK(c->MakeShapeFromShapeProto(unknown, &out));
  EXPECT_FALSE(c->RankKnown(out));
  TensorShapeProto bad;
  bad.add_dim()->set_size(-2);
  EXPECT_THAT(c->MakeShapeFromShapeProto(bad, &out), StatusIs(error::INVALID_ARGUMENT));
  bad.Clear();
  bad.set_unknown_rank(true);
  bad.add_dim()->set_size(2);
  EXPECT_THAT(c->MakeShapeFromShapeProto(bad, &out), StatusIs(error::INVALID_ARGUMENT));

  OPKIT_EXPECT_OK(c->MakeShapeFromPartialTensorShape(PartialTensorShape({-1, 5}), &out));
  EXPECT_EQ("[?,5]", c->DebugString(out));
  OPKIT_EXPECT_OK(c->MakeShapeFromPartialTensorShape(PartialTensorShape(), &out));
  EXPECT_FALSE(c->RankKnown(out));
  OPKIT_EXPECT_OK(c->MakeShapeFromTensorShape(TensorShape({4, 5}), &out));
  EXPECT_EQ("[4,5]", c->DebugString(out));

  TensorShapeProto back;
  c->ShapeHandleToProto(c->MakeShape({2, -1}), &back);
  ASSERT_EQ(2, back.dim_size());
  EXPECT_EQ(2, back.dim(0).size());
  EXPECT_EQ(-1, back.dim(1).size());
  c->ShapeHandleToProto(c->UnknownShape(), &back);
  EXPECT_TRUE(back.unknown_rank());
  EXPECT_EQ("[2,?]", c->ShapeHandleToPartialTensorShape(c->MakeShape({2, -1})).DebugString());
  EXPECT_TRUE(c->ShapeHandleToPartialTensorShape(ShapeHandle()).unknown_rank());
}

Tensor Int32Vector(std::vector<int32> values) {
  Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.flat<int32>()(i) = values[i];
  return t;
}

TEST_F(InferenceContextTest, MakeShapeFromShapeTensor) {
  Tensor shape_tensor = Int32Vector({2, -1, 0});
  auto c = Make({PartialTensorShape({3}), PartialTensorShape({2})}, {&shape_tensor});
  ShapeHandle out;
  OPKIT_EXPECT_OK(c->MakeShapeFromShapeTensor(0, &out));
  EXPECT_EQ("[2,?,0]", c->DebugString(out));
  EXPECT_TRUE(c->requested_input_tensor(0));
  EXPECT_TRUE(c->requested_input_tensor_as_partial_shape(0));
  // Not known: as many unknown dims as the vector is long.
  OPKIT_EXPECT_OK(c->MakeShapeFromShapeTensor(1, &out));
  EXPECT_EQ("[?,?]", c->DebugString(out));
  EXPECT_FALSE(c->requested_input_tensor(5));
  EXPECT_THAT(c->MakeShapeFromShapeTensor(2, &out), StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(c->MakeShapeFromShapeTensor(-1, &out), StatusIs(error::INVALID_ARGUMENT));

  // Unknown length: unknown shape.
  auto c2 = Make({PartialTensorShape({-1}), PartialTensorShape()});
  OPKIT_EXPECT_OK(c2->MakeShapeFromShapeTensor(0, &out));
  EXPECT_FALSE(c2->RankKnown(out));
  OPKIT_EXPECT_OK(c2->MakeShapeFromShapeTensor(1, &out));
  EXPECT_FALSE(c2->RankKnown(out));

  // Wrong rank of the input.
  auto c3 = Make({PartialTensorShape({2, 2}), PartialTensorShape()});
  EXPECT_THAT(c3->MakeShapeFromShapeTensor(0, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Shape must be rank 1 but is rank 2")));

  // A huge unknown vector length does not allocate a huge shape.
  auto c4 = Make({PartialTensorShape({int64_t{1} << 40}), PartialTensorShape()});
  EXPECT_THAT(c4->MakeShapeFromShapeTensor(0, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("maximum rank")));

  // Bad dtype and values.
  Tensor floats(DT_FLOAT, TensorShape({2}));
  floats.flat<float>().setZero();
  auto c5 = Make({PartialTensorShape({2}), PartialTensorShape()}, {&floats});
  EXPECT_THAT(c5->MakeShapeFromShapeTensor(0, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Input tensor must be int32 or int64, but was float")));
  Tensor negative = Int32Vector({2, -2});
  auto c6 = Make({PartialTensorShape({2}), PartialTensorShape()}, {&negative});
  EXPECT_THAT(c6->MakeShapeFromShapeTensor(0, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Invalid value in tensor used for shape: -2")));
  // The tensor disagrees with the input's rank: the tensor's own rank is checked.
  Tensor matrix(DT_INT64, TensorShape({1, 1}));
  matrix.flat<int64>()(0) = 1;
  auto c7 = Make({PartialTensorShape(), PartialTensorShape()}, {&matrix});
  EXPECT_THAT(c7->MakeShapeFromShapeTensor(0, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("must be rank 1, but was rank 2")));
  Tensor too_long(DT_INT64, TensorShape({300}));
  too_long.flat<int64>().setZero();
  auto c8 = Make({PartialTensorShape({300}), PartialTensorShape()}, {&too_long});
  EXPECT_THAT(c8->MakeShapeFromShapeTensor(0, &out), StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(InferenceContextTest, MakeShapeFromShapeTensorTreatScalarAsUnknown) {
  Tensor minus_one(int32{-1});
  Tensor five(int64{5});
  auto c = Make({PartialTensorShape({}), PartialTensorShape({})}, {&minus_one, &five});
  ShapeHandle out;
  OPKIT_EXPECT_OK(c->MakeShapeFromShapeTensorTreatScalarAsUnknownShape(0, &out));
  EXPECT_FALSE(c->RankKnown(out));
  EXPECT_THAT(c->MakeShapeFromShapeTensorTreatScalarAsUnknownShape(1, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("it must have value -1")));
  EXPECT_THAT(c->MakeShapeFromShapeTensor(0, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Shape must be rank 1")));
  auto c2 = Make({PartialTensorShape({}), PartialTensorShape({2, 2})});
  OPKIT_EXPECT_OK(c2->MakeShapeFromShapeTensorTreatScalarAsUnknownShape(0, &out));
  EXPECT_FALSE(c2->RankKnown(out));
  EXPECT_THAT(c2->MakeShapeFromShapeTensorTreatScalarAsUnknownShape(1, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("at most rank 1")));
}

TEST_F(InferenceContextTest, InputTensorsAsShapes) {
  OpDef op = op_def_;
  NodeDef node = node_;
  InferenceContext c(0, node, op,
                     std::vector<PartialTensorShape>{PartialTensorShape({2}), PartialTensorShape()},
                     {}, std::vector<PartialTensorShape>{PartialTensorShape({-1, 7})});
  ASSERT_THAT(c.construction_status(), IsOk());
  ShapeHandle out;
  OPKIT_EXPECT_OK(c.MakeShapeFromShapeTensor(0, &out));
  EXPECT_EQ("[?,7]", c.DebugString(out));
  EXPECT_TRUE(out.SameHandle(c.input_tensors_as_shapes()[0]));
  // Shown in the error context.
  Status s = c.Run([](InferenceContext* ic) {
    ShapeHandle unused;
    OPKIT_RETURN_IF_ERROR(ic->MakeShapeFromShapeTensor(0, &unused));
    return errors::InvalidArgument("boom");
  });
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                          HasSubstr("and with input tensors computed as partial shapes: "
                                    "input[0] = [?,7].")));
  c.set_input_tensors_as_shapes({});
  EXPECT_EQ(2u, c.input_tensors_as_shapes().size());
}

TEST_F(InferenceContextTest, ScalarsFromTensors) {
  Tensor i32(int32{7});
  Tensor i64(int64{-3});
  Tensor f(1.0f);
  Tensor vec = Int32Vector({4, 5});
  auto c = Make({PartialTensorShape({}), PartialTensorShape({})}, {&i32, &i64});
  int64_t v = 0;
  OPKIT_EXPECT_OK(c->GetScalarFromTensor(&i32, &v));
  EXPECT_EQ(7, v);
  OPKIT_EXPECT_OK(c->GetScalarFromTensor(&i64, &v));
  EXPECT_EQ(-3, v);
  EXPECT_THAT(c->GetScalarFromTensor(&f, &v),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Scalar input must be int32 or int64")));
  EXPECT_THAT(c->GetScalarFromTensor(&vec, &v),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Input must be scalar but has rank 1")));
  EXPECT_THAT(c->GetScalarFromTensor(nullptr, &v), StatusIs(error::INVALID_ARGUMENT));
  OPKIT_EXPECT_OK(c->GetScalarFromTensor(&vec, 1, &v));
  EXPECT_EQ(5, v);
  EXPECT_THAT(c->GetScalarFromTensor(&vec, 2, &v),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Invalid index 2")));
  EXPECT_THAT(c->GetScalarFromTensor(&vec, -1, &v), StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(c->GetScalarFromTensor(&i32, 0, &v),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Input must be 1D")));

  DimensionHandle d;
  OPKIT_EXPECT_OK(c->MakeDimForScalarInput(0, &d));
  EXPECT_EQ(7, c->Value(d));
  EXPECT_THAT(c->MakeDimForScalarInput(1, &d),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("must be non-negative but is -3")));
  OPKIT_EXPECT_OK(c->MakeDimForScalarInputWithNegativeIndexing(1, 4, &d));
  EXPECT_EQ(1, c->Value(d));
  OPKIT_EXPECT_OK(c->MakeDimForScalarInputWithNegativeIndexing(1, -1, &d));
  EXPECT_FALSE(c->ValueKnown(d));
  EXPECT_THAT(c->MakeDimForScalarInputWithNegativeIndexing(1, 2, &d),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("must be in range [-2, 2)")));
  EXPECT_THAT(c->MakeDimForScalarInputWithNegativeIndexing(0, 7, &d),
              StatusIs(error::INVALID_ARGUMENT));

  auto c2 = Make({PartialTensorShape({}), PartialTensorShape({})});
  OPKIT_EXPECT_OK(c2->MakeDimForScalarInput(0, &d));
  EXPECT_FALSE(c2->ValueKnown(d));
  EXPECT_EQ(nullptr, c2->input_tensor(0));
  EXPECT_TRUE(c2->requested_input_tensor(0));
  EXPECT_FALSE(c2->requested_input_tensor(1));
  c2->set_input_tensors({&i32});
  EXPECT_EQ(&i32, c2->input_tensor(0));
  EXPECT_EQ(nullptr, c2->input_tensor(1));
}

TEST_F(InferenceContextTest, Arithmetic) {
  auto c = Make({PartialTensorShape({6, -1, 0, 1}), PartialTensorShape()});
  ShapeHandle s = c->input(0);
  DimensionHandle six = c->Dim(s, 0);
  DimensionHandle unk = c->Dim(s, 1);
  DimensionHandle zero = c->Dim(s, 2);
  DimensionHandle one = c->Dim(s, 3);
  DimensionHandle out;

  // Add.
  OPKIT_EXPECT_OK(c->Add(six, 4, &out));
  EXPECT_EQ(10, c->Value(out));
  OPKIT_EXPECT_OK(c->Add(six, 0, &out));
  EXPECT_TRUE(out.SameHandle(six));
  OPKIT_EXPECT_OK(c->Add(zero, six, &out));
  EXPECT_TRUE(out.SameHandle(six));
  OPKIT_EXPECT_OK(c->Add(unk, 3, &out));
  EXPECT_FALSE(c->ValueKnown(out));
  OPKIT_EXPECT_OK(c->Add(six, unk, &out));
  EXPECT_FALSE(c->ValueKnown(out));
  EXPECT_THAT(c->Add(six, kI64Max, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Dimension size overflow from adding")));
  EXPECT_THAT(c->Add(six, -5, &out), StatusIs(error::INVALID_ARGUMENT));

  // Subtract.
  OPKIT_EXPECT_OK(c->Subtract(six, 2, &out));
  EXPECT_EQ(4, c->Value(out));
  OPKIT_EXPECT_OK(c->Subtract(six, 0, &out));
  EXPECT_TRUE(out.SameHandle(six));
  OPKIT_EXPECT_OK(c->Subtract(unk, 2, &out));
  EXPECT_FALSE(c->ValueKnown(out));
  EXPECT_THAT(c->Subtract(c->MakeDim(3), 5, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Negative dimension size caused by subtracting 5 from 3")));
  EXPECT_THAT(c->Subtract(six, std::numeric_limits<int64_t>::min(), &out),
              StatusIs(error::INVALID_ARGUMENT));

  // Multiply.
  OPKIT_EXPECT_OK(c->Multiply(six, 3, &out));
  EXPECT_EQ(18, c->Value(out));
  OPKIT_EXPECT_OK(c->Multiply(zero, unk, &out));
  EXPECT_TRUE(out.SameHandle(zero));
  OPKIT_EXPECT_OK(c->Multiply(unk, 0, &out));
  EXPECT_EQ(0, c->Value(out));
  OPKIT_EXPECT_OK(c->Multiply(one, unk, &out));
  EXPECT_TRUE(out.SameHandle(unk));
  OPKIT_EXPECT_OK(c->Multiply(six, 1, &out));
  EXPECT_TRUE(out.SameHandle(six));
  OPKIT_EXPECT_OK(c->Multiply(six, unk, &out));
  EXPECT_FALSE(c->ValueKnown(out));
  EXPECT_THAT(c->Multiply(six, kI64Max, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Negative dimension size caused by overflow when multiplying")));

  // Divide.
  OPKIT_EXPECT_OK(c->Divide(six, 3, true, &out));
  EXPECT_EQ(2, c->Value(out));
  OPKIT_EXPECT_OK(c->Divide(six, 1, true, &out));
  EXPECT_TRUE(out.SameHandle(six));
  OPKIT_EXPECT_OK(c->Divide(c->MakeDim(7), 3, false, &out));
  EXPECT_EQ(2, c->Value(out));
  EXPECT_THAT(c->Divide(c->MakeDim(7), 3, true, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Dimension size must be evenly divisible by 3 but is 7")));
  EXPECT_THAT(c->Divide(six, 0, false, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Divisor must be positive but is 0")));
  EXPECT_THAT(c->Divide(six, -4, false, &out), StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(c->Divide(six, -1, false, &out), StatusIs(error::INVALID_ARGUMENT));
  OPKIT_EXPECT_OK(c->Divide(unk, 2, true, &out));
  EXPECT_FALSE(c->ValueKnown(out));
  OPKIT_EXPECT_OK(c->Divide(six, unk, true, &out));
  EXPECT_FALSE(c->ValueKnown(out));

  // Min / Max.
  OPKIT_EXPECT_OK(c->Min(six, 4, &out));
  EXPECT_EQ(4, c->Value(out));
  OPKIT_EXPECT_OK(c->Min(six, 9, &out));
  EXPECT_TRUE(out.SameHandle(six));
  OPKIT_EXPECT_OK(c->Min(zero, unk, &out));
  EXPECT_TRUE(out.SameHandle(zero));
  OPKIT_EXPECT_OK(c->Min(unk, 0, &out));
  EXPECT_EQ(0, c->Value(out));
  OPKIT_EXPECT_OK(c->Min(six, unk, &out));
  EXPECT_FALSE(c->ValueKnown(out));
  OPKIT_EXPECT_OK(c->Max(six, 4, &out));
  EXPECT_TRUE(out.SameHandle(six));
  OPKIT_EXPECT_OK(c->Max(six, 9, &out));
  EXPECT_EQ(9, c->Value(out));
  OPKIT_EXPECT_OK(c->Max(zero, unk, &out));
  EXPECT_FALSE(c->ValueKnown(out));
  EXPECT_THAT(c->Max(six, -7, &out), StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(c->Min(six, -7, &out), StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(InferenceContextTest, Validators) {
  auto c = Make({PartialTensorShape({-1, 3}), PartialTensorShape()});
  EXPECT_THAT(c->ValidateKnownDim(c->Dim(c->input(0), 0), "batch"),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Cannot infer shape because dimension batch is not known.")));
  OPKIT_EXPECT_OK(c->ValidateKnownDim(c->Dim(c->input(0), 1), "depth"));
  OPKIT_EXPECT_OK(c->ValidateSparseTensor(c->Matrix(4, 2), c->Vector(4), c->Vector(2)));
  EXPECT_THAT(c->ValidateSparseTensor(c->Matrix(4, 2), c->Vector(5), c->Vector(2)),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Number of elements in index (4) and values (5) do not match")));
  EXPECT_THAT(c->ValidateSparseTensor(c->Matrix(4, 2), c->Vector(4), c->Vector(3)),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Index rank (2) and shape rank (3) do not match")));
  EXPECT_THAT(c->ValidateSparseTensor(c->Vector(4), c->Vector(4), c->Vector(3)),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Shape must be rank 2")));
  OPKIT_EXPECT_OK(
      c->ValidateSparseTensor(c->UnknownShape(), c->UnknownShape(), c->UnknownShape()));
}

TEST_F(InferenceContextTest, MergeRelaxAndSetInput) {
  auto c = Make({PartialTensorShape({2, -1}), PartialTensorShape()});
  ShapeHandle orig = c->input(0);
  EXPECT_FALSE(c->MergeInput(0, c->UnknownShape()));
  EXPECT_TRUE(c->input(0).SameHandle(orig));
  EXPECT_TRUE(c->MergeInput(0, c->MakeShape({-1, 3})));
  EXPECT_EQ("[2,3]", c->DebugString(c->input(0)));
  EXPECT_FALSE(c->MergeInput(0, c->Vector(1)));
  EXPECT_FALSE(c->MergeInput(7, c->Vector(1)));
  EXPECT_TRUE(c->RelaxInput(0, c->MakeShape({2, 4})));
  EXPECT_EQ("[2,?]", c->DebugString(c->input(0)));
  EXPECT_FALSE(c->RelaxInput(-1, c->Vector(1)));
  c->SetInput(1, c->Scalar());
  EXPECT_EQ("[]", c->DebugString(c->input(1)));
  c->SetInput(9, c->Scalar());  // ignored
}

TEST_F(InferenceContextTest, HandleShapesAndTypes) {
  std::vector<std::unique_ptr<std::vector<std::pair<PartialTensorShape, DataType>>>> hd;
  hd.push_back(std::make_unique<std::vector<std::pair<PartialTensorShape, DataType>>>(
      std::vector<std::pair<PartialTensorShape, DataType>>{{PartialTensorShape({3}), DT_FLOAT}}));
  hd.emplace_back();
  InferenceContext c(0, node_, op_def_,
                     std::vector<PartialTensorShape>{PartialTensorShape(), PartialTensorShape()},
                     {}, {}, hd);
  ASSERT_THAT(c.construction_status(), IsOk());
  const std::vector<ShapeAndType>* in0 = c.input_handle_shapes_and_types(0);
  ASSERT_NE(nullptr, in0);
  ASSERT_EQ(1u, in0->size());
  EXPECT_EQ("[3]", c.DebugString((*in0)[0].shape));
  EXPECT_EQ(DT_FLOAT, (*in0)[0].dtype);
  EXPECT_EQ(nullptr, c.input_handle_shapes_and_types(1));
  EXPECT_EQ(nullptr, c.input_handle_shapes_and_types(2));
  EXPECT_EQ(nullptr, c.output_handle_shapes_and_types(0));
  c.set_output_handle_shapes_and_types(0, {ShapeAndType(c.Scalar(), DT_INT32)});
  ASSERT_NE(nullptr, c.output_handle_shapes_and_types(0));
  EXPECT_EQ(DT_INT32, (*c.output_handle_shapes_and_types(0))[0].dtype);
  c.set_output_handle_shapes_and_types(5, {});  // ignored
  EXPECT_EQ(nullptr, c.output_handle_shapes_and_types(-1));
}

TEST_F(InferenceContextTest, RunAttachesContext) {
  NodeDef node = node_;
  node.set_name("MatMul");
  auto c = std::make_unique<InferenceContext>(
      0, node, op_def_,
      std::vector<PartialTensorShape>{PartialTensorShape({2, 3}), PartialTensorShape({3, 4, 5})},
      std::vector<const Tensor*>{});
  Status s = c->Run([](InferenceContext* ic) {
    ShapeHandle out;
    return ic->Merge(ic->input(0), ic->input(1), &out);
  });
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                          HasSubstr("Shapes must be equal rank, but are 2 and 3 for "
                                    "'{{node MatMul}} = Foo[](p, q)' with input shapes: "
                                    "[2,3], [3,4,5].")));

  // Constant inputs the function read are shown too.
  Tensor t = Int32Vector({1, 2});
  auto c2 = Make({PartialTensorShape({2}), PartialTensorShape()}, {&t});
  s = c2->Run([](InferenceContext* ic) {
    ic->input_tensor(0);
    return errors::InvalidArgument("bad");
  });
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                          HasSubstr("bad for '{{node foo}} = Foo[](p, q)' with input shapes: "
                                    "[2], ? and with computed input tensors: input[0] = <1 2>.")));

  // Success leaves outputs set.
  OPKIT_EXPECT_OK(c2->Run([](InferenceContext* ic) {
    ic->set_output(0, ic->input(0));
    return Status::OK();
  }));
  EXPECT_TRUE(c2->output(0).SameHandle(c2->input(0)));

  // Out-of-range use by a shape function fails the run.
  EXPECT_THAT(c2->Run([](InferenceContext* ic) {
    ic->set_output(1, ic->Scalar());
    return Status::OK();
  }),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("set output 1 but op 'Foo' has 1")));
  EXPECT_THAT(c2->Run([](InferenceContext* ic) {
    ic->set_output(0, ic->input(3));
    return Status::OK();
  }),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("asked for input 3")));
  EXPECT_THAT(c2->Run([](InferenceContext* ic) {
    ic->input_tensor(-1);
    return Status::OK();
  }),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("asked for input tensor -1")));
  // A later clean run is not affected by an earlier misuse.
  OPKIT_EXPECT_OK(c2->Run([](InferenceContext*) { return Status::OK(); }));
  // A null function and a throwing one.
  EXPECT_THAT(c2->Run(OpShapeInferenceFn()), StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(c2->Run([](InferenceContext*) -> Status { throw std::runtime_error("oops"); }),
              StatusIs(error::INTERNAL, HasSubstr("oops")));

  // Without a NodeDef the op name still appears.
  AttrValueMap attrs;
  InferenceContext c3(0, AttrSlice(&attrs), op_def_,
                      std::vector<PartialTensorShape>{PartialTensorShape(), PartialTensorShape()},
                      {});
  EXPECT_THAT(c3.Run([](InferenceContext*) { return errors::InvalidArgument("x"); }),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("x for 'Foo[]' with input shapes: ?, ?.")));
}

// --- The test helper itself ---------------------------------------------------

class ShapeInferenceTestutilTest : public ::testing::Test {
 protected:
  ShapeInferenceTestutilTest() {
    // MatMul-like: [a,b] x [b,c] -> [a,c].
    Register(OpDefBuilder("TestMatMul")
                 .Input("a: float")
                 .Input("b: float")
                 .Output("product: float")
                 .SetShapeFn([](InferenceContext* c) {
                   ShapeHandle a, b;
                   OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &a));
                   OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &b));
                   DimensionHandle unused;
                   OPKIT_RETURN_IF_ERROR(c->Merge(c->Dim(a, 1), c->Dim(b, 0), &unused));
                   c->set_output(0, c->Matrix(c->Dim(a, 0), c->Dim(b, 1)));
                   return Status::OK();
                 }));
    Register(OpDefBuilder("TestIdentityAndScalar")
                 .Input("x: float")
                 .Output("y: float")
                 .Output("z: float")
                 .Attr("n: int = 4")
                 .SetShapeFn([](InferenceContext* c) {
                   int64_t n = 0;
                   OPKIT_RETURN_IF_ERROR(c->GetAttr("n", &n));
                   c->set_output(0, c->input(0));
                   c->set_output(1, c->Vector(n));
                   return Status::OK();
                 }));
    Register(OpDefBuilder("TestUnknown")
                 .Input("x: float")
                 .Output("y: float")
                 .SetShapeFn([](InferenceContext* c) {
                   c->set_output(0, c->UnknownShape());
                   return Status::OK();
                 }));
    Register(OpDefBuilder("TestFromTensor")
                 .Input("shape: int32")
                 .Output("y: float")
                 .SetShapeFn([](InferenceContext* c) {
                   ShapeHandle out;
                   OPKIT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
                   c->set_output(0, out);
                   return Status::OK();
                 }));
    Register(OpDefBuilder("TestNoFn").Input("x: float").Output("y: float"));
  }

  void Register(OpDefBuilder b) {
    OpRegistrationData data;
    ASSERT_THAT(b.Finalize(&data), IsOk());
    ASSERT_THAT(registry_.Register(data), IsOk());
  }

  ShapeInferenceTestOp Op(const std::string& name) {
    ShapeInferenceTestOp op(name);
    op.registry = &registry_;
    return op;
  }

  Status Infer(const ShapeInferenceTestOp& op, const std::string& ins,
               const std::string& outs) {
    return ShapeInferenceTestutil::InferShapes(op, ins, outs);
  }

  OpRegistry registry_;
};

TEST_F(ShapeInferenceTestutilTest, MacrosPass) {
  ShapeInferenceTestOp op = Op("TestMatMul");
  INFER_OK(op, "[1,?];[?,2]", "[d0_0,d1_1]");
  INFER_OK(op, "?;?", "[?,?]");
  INFER_OK(op, "[3,4];?", "[d0_0,?]");
  INFER_ERROR("Shape must be rank 2 but is rank 1", op, "[1];[2,3]");
  INFER_ERROR("Dimensions must be equal, but are 2 and 3", op, "[1,2];[3,4]");
  INFER_ERROR("for '{{node }} = TestMatMul[](", op, "[1,2];[3,4]");

  ShapeInferenceTestOp id = Op("TestIdentityAndScalar");
  INFER_OK(id, "[1,2]", "in0;[4]");
  INFER_OK(id, "?", "in0;[4]");
  id.node_def.set_name("n");
  AddNodeAttr("n", 0, &id.node_def);
  INFER_OK(id, "[]", "in0|in1;[0]");

  INFER_OK(Op("TestUnknown"), "[1]", "?");

  Tensor t(DT_INT32, TensorShape({2}));
  t.flat<int32>()(0) = 5;
  t.flat<int32>()(1) = -1;
  ShapeInferenceTestOp ft = Op("TestFromTensor");
  ft.input_tensors = {&t};
  INFER_OK(ft, "[2]", "[5,?]");
  INFER_OK(Op("TestFromTensor"), "[3]", "[?,?,?]");
  INFER_ERROR("Shape must be rank 1", Op("TestFromTensor"), "[3,1]");
}

TEST_F(ShapeInferenceTestutilTest, ReportsMismatches) {
  ShapeInferenceTestOp op = Op("TestMatMul");
  // Wrong handle identity / values.
  EXPECT_THAT(Infer(op, "[1,?];[?,2]", "[d0_1,d1_1]"),
              StatusIs(error::UNKNOWN, HasSubstr("Output dim 0,0 matched input d0_0 and should "
                                                 "have matched one of d0_1")));
  EXPECT_THAT(Infer(op, "[1,?];[?,2]", "[1,d1_1]"),
              StatusIs(error::UNKNOWN, HasSubstr("Output dim 0,0 expected to be 1 but matched "
                                                 "input d0_0")));
  EXPECT_THAT(Infer(op, "[1,?];[?,2]", "[?,d1_1]"),
              StatusIs(error::UNKNOWN, HasSubstr("expected to be unknown but matched input d0_0")));
  EXPECT_THAT(Infer(op, "?;?", "[d0_0,?]"),
              StatusIs(error::UNKNOWN, HasSubstr("Output dim 0,0 did not match any input dim")));
  EXPECT_THAT(Infer(op, "[1,?];[?,2]", "[d0_0,d1_1,?]"),
              StatusIs(error::UNKNOWN, HasSubstr("Output 0 expected rank 3 but was 2")));
  EXPECT_THAT(Infer(op, "[1,?];[?,2]", "?"),
              StatusIs(error::UNKNOWN, HasSubstr("Output 0 expected to be unknown")));
  EXPECT_THAT(Infer(op, "[1,?];[?,2]", "in0"),
              StatusIs(error::UNKNOWN, HasSubstr("Output 0 did not match any input shape")));
  EXPECT_THAT(Infer(op, "[1,?];[?,2]", "[d0_0,d1_1];[1]"),
              StatusIs(error::UNKNOWN, HasSubstr("Wrong number of expected outputs (2 vs 1)")));
  EXPECT_THAT(Infer(op, "[1,?];[?,2]", "e"),
              StatusIs(error::UNKNOWN, HasSubstr("Shape inference should have returned error")));
  EXPECT_THAT(Infer(op, "[1,?];[?,2]", "[x,y]"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("failed to parse as int64")));
  EXPECT_THAT(Infer(op, "[1,?];[?,2]", "bogus"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Bad expected output spec")));

  ShapeInferenceTestOp id = Op("TestIdentityAndScalar");
  EXPECT_THAT(Infer(id, "[1]", "in0;[5]"),
              StatusIs(error::UNKNOWN, HasSubstr("Output dim 1,0 expected to be 5 but was 4")));
  EXPECT_THAT(Infer(id, "[1]", "[1];[4]"),
              StatusIs(error::UNKNOWN, HasSubstr("Output 0 matched input 0 and should have not "
                                                 "matched an input shape")));
  EXPECT_THAT(Infer(Op("TestUnknown"), "[1]", "[?]"),
              StatusIs(error::UNKNOWN, HasSubstr("Output 0 expected rank 1 but was ?")));
}

TEST_F(ShapeInferenceTestutilTest, BadSetup) {
  EXPECT_THAT(Infer(Op("Nope"), "[1]", "?"), StatusIs(error::NOT_FOUND));
  EXPECT_THAT(Infer(Op("TestNoFn"), "[1]", "?"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("No shape inference function")));
  EXPECT_THAT(Infer(Op("TestMatMul"), "[1,2]", "?"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Wrong number of inputs passed")));
  EXPECT_THAT(Infer(Op("TestMatMul"), "[1,x];?", "?"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Bad dimension 'x'")));
  EXPECT_THAT(Infer(Op("TestMatMul"), "[1,-3];?", "?"), StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(Infer(Op("TestMatMul"), "1,2;?", "?"),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Bad shape spec")));
  PartialTensorShape p;
  OPKIT_EXPECT_OK(ShapeInferenceTestutil::ParseShape("[]", &p));
  EXPECT_EQ(0, p.dims());
  OPKIT_EXPECT_OK(ShapeInferenceTestutil::ParseShape("?", &p));
  EXPECT_TRUE(p.unknown_rank());
  EXPECT_THAT(ShapeInferenceTestutil::ParseShape("[99999999999999999999999]", &p),
              StatusIs(error::INVALID_ARGUMENT));
}

}  // namespace
}  // namespace shape_inference
}  // namespace opkit

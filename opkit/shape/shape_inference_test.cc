// Tests of InferenceContext: construction and its errors, inputs, outputs,
// attrs, handle data, Run's error context; and of the shape-fn test helper
// (opkit/shape/shape_inference_testutil.h).
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
#include "opkit/shape/testing/inference_context_test_fixture.h"
#include "opkit/shape/shape_inference_testutil.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace shape_inference {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;
using shape_test::BuildOpDef;
using shape_test::InferenceContextTest;
using shape_test::Int32Vector;

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

// Tests of ShapeRefiner over small graphs: constants, feeds, loops and errors
// naming the node.
#include "opkit/graph/shape_refiner.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/errors.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/op/op_registry.h"
#include "opkit/shape/shape_inference.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;
using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

// Test-local ops with shape functions written here, so the test depends only
// on InferenceContext.
class ShapeRefinerTest : public ::testing::Test {
 protected:
  ShapeRefinerTest() {
    Register(OpDefBuilder("Const")
                 .Output("output: dtype")
                 .Attr("value: tensor")
                 .Attr("dtype: type")
                 .SetShapeFn([](InferenceContext* c) {
                   Tensor value;
                   OPKIT_RETURN_IF_ERROR(c->GetAttr("value", &value));
                   ShapeHandle out;
                   OPKIT_RETURN_IF_ERROR(c->MakeShapeFromTensorShape(value.shape(), &out));
                   c->set_output(0, out);
                   return Status::OK();
                 }));
    Register(OpDefBuilder("Placeholder")
                 .Output("output: dtype")
                 .Attr("dtype: type")
                 .Attr("shape: shape")
                 .SetShapeFn([](InferenceContext* c) {
                   PartialTensorShape shape;
                   OPKIT_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
                   ShapeHandle out;
                   OPKIT_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shape, &out));
                   c->set_output(0, out);
                   return Status::OK();
                 }));
    Register(OpDefBuilder("MatMul")
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
    Register(OpDefBuilder("Reshape")
                 .Input("tensor: float")
                 .Input("shape: Tshape")
                 .Output("output: float")
                 .Attr("Tshape: {int32, int64} = DT_INT32")
                 .SetShapeFn([](InferenceContext* c) {
                   ShapeHandle out;
                   OPKIT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &out));
                   c->set_output(0, out);
                   return Status::OK();
                 }));
    Register(OpDefBuilder("Shape")
                 .Input("input: float")
                 .Output("output: out_type")
                 .Attr("out_type: {int32, int64} = DT_INT32")
                 .SetShapeFn([](InferenceContext* c) {
                   const ShapeHandle in = c->input(0);
                   c->set_output(0, c->Vector(c->RankKnown(in) ? c->Rank(in)
                                                                : InferenceContext::kUnknownDim));
                   return Status::OK();
                 }));
    Register(OpDefBuilder("Identity")
                 .Input("input: float")
                 .Output("output: float")
                 .SetShapeFn([](InferenceContext* c) {
                   c->set_output(0, c->input(0));
                   return Status::OK();
                 }));
    // The two halves of a loop's back edge, with shape functions that show
    // what the refiner passes them: Merge forwards its second input.
    Register(OpDefBuilder("NextIteration")
                 .Input("data: float")
                 .Output("output: float")
                 .SetShapeFn([](InferenceContext* c) {
                   c->set_output(0, c->input(0));
                   return Status::OK();
                 }));
    Register(OpDefBuilder("Merge")
                 .Input("first: float")
                 .Input("second: float")
                 .Output("output: float")
                 .SetShapeFn([](InferenceContext* c) {
                   c->set_output(0, c->input(1));
                   return Status::OK();
                 }));
    Register(OpDefBuilder("Split2")
                 .Input("input: float")
                 .Output("a: float")
                 .Output("b: float")
                 .SetShapeFn([](InferenceContext* c) {
                   c->set_output(0, c->input(0));
                   c->set_output(1, c->UnknownShape());
                   return Status::OK();
                 }));
    Register(OpDefBuilder("NoShapeFn").Input("input: float").Output("output: float"));
    Register(OpDefBuilder("Source").Output("output: float"));
  }

  void Register(OpDefBuilder b) {
    OpRegistrationData data;
    ASSERT_THAT(b.Finalize(&data), IsOk());
    ASSERT_THAT(registry_.Register(data), IsOk());
  }

  NodeDef* AddNode(const std::string& name, const std::string& op,
                   const std::vector<std::string>& inputs) {
    NodeDef* n = graph_.add_node();
    n->set_name(name);
    n->set_op(op);
    for (const std::string& in : inputs) n->add_input(in);
    return n;
  }

  void AddPlaceholder(const std::string& name, const PartialTensorShape& shape) {
    NodeDef* n = AddNode(name, "Placeholder", {});
    AddNodeAttr("dtype", DT_FLOAT, n);
    AddNodeAttr("shape", shape, n);
  }

  void AddInt32Const(const std::string& name, const std::vector<int32>& values) {
    NodeDef* n = AddNode(name, "Const", {});
    Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(values.size())}));
    for (size_t i = 0; i < values.size(); ++i) t.flat<int32>()(i) = values[i];
    AddNodeAttr("value", t, n);
    AddNodeAttr("dtype", DT_INT32, n);
  }

  std::string Shape(const std::string& tensor) {
    PartialTensorShape s;
    Status st = refiner_.OutputShape(tensor, &s);
    if (!st.ok()) return "error: " + st.message();
    return s.DebugString();
  }

  OpRegistry registry_;
  GraphDef graph_;
  ShapeRefiner refiner_{0, &registry_};
};

TEST_F(ShapeRefinerTest, Chain) {
  AddPlaceholder("x", PartialTensorShape({-1, 3}));
  AddPlaceholder("w", PartialTensorShape({3, 4}));
  // Listed before its inputs: the order comes from the edges.
  AddNode("id", "Identity", {"mm"});
  AddNode("mm", "MatMul", {"x", "w:0"});
  AddNode("none", "NoShapeFn", {"id", "^w"});
  ASSERT_THAT(refiner_.InferShapes(graph_), IsOk());
  EXPECT_EQ("[?,3]", Shape("x"));
  EXPECT_EQ("[?,4]", Shape("mm"));
  EXPECT_EQ("[?,4]", Shape("id:0"));
  EXPECT_EQ("<unknown>", Shape("none"));

  std::vector<PartialTensorShape> outs;
  OPKIT_ASSERT_OK(refiner_.OutputShapes("mm", &outs));
  ASSERT_EQ(1u, outs.size());
  EXPECT_EQ("[?,4]", outs[0].DebugString());
  TensorShapeProto proto;
  OPKIT_ASSERT_OK(refiner_.OutputShapeProto("mm:0", &proto));
  ASSERT_EQ(2, proto.dim_size());
  EXPECT_EQ(-1, proto.dim(0).size());
  EXPECT_EQ(4, proto.dim(1).size());

  // The unknown batch dimension is the same handle all along the chain.
  InferenceContext* xc = refiner_.GetContext("x");
  InferenceContext* idc = refiner_.GetContext("id");
  ASSERT_NE(nullptr, xc);
  ASSERT_NE(nullptr, idc);
  EXPECT_TRUE(idc->Dim(idc->output(0), 0).SameHandle(xc->Dim(xc->output(0), 0)));
  EXPECT_EQ(nullptr, refiner_.GetContext("zz"));

  EXPECT_THAT(refiner_.OutputShape("mm:1", &outs[0]),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("no output 1")));
  EXPECT_THAT(refiner_.OutputShape("zz", &outs[0]), StatusIs(error::NOT_FOUND));
  EXPECT_THAT(refiner_.OutputShape("^mm", &outs[0]), StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(refiner_.OutputShapes("zz", &outs), StatusIs(error::NOT_FOUND));
  EXPECT_THAT(refiner_.OutputShapeProto("zz", &proto), StatusIs(error::NOT_FOUND));
}

// TFSA-2021-166: the handle shapes a producer's shape function sets (a
// resource's element shape, as MutableHashTable's and VarHandleOp's do) must
// outlive the shape function's context; a consumer reads them afterwards.
// Under AddressSanitizer a dangling ShapeHandle here is a use after free.
TEST_F(ShapeRefinerTest, HandleShapesOutliveTheProducersShapeFunction) {
  Register(OpDefBuilder("MakeHandle")
               .Output("handle: resource")
               .SetShapeFn([](InferenceContext* c) {
                 c->set_output(0, c->Scalar());
                 ShapeHandle element;
                 OPKIT_RETURN_IF_ERROR(
                     c->MakeShapeFromPartialTensorShape(PartialTensorShape({2, 3}), &element));
                 c->set_output_handle_shapes_and_types(
                     0, {shape_inference::ShapeAndType(element, DT_FLOAT)});
                 return Status::OK();
               }));
  Register(OpDefBuilder("ReadHandle")
               .Input("handle: resource")
               .Output("value: float")
               .SetShapeFn([](InferenceContext* c) {
                 const auto* handle = c->input_handle_shapes_and_types(0);
                 if (handle == nullptr || handle->empty()) {
                   return errors::InvalidArgument("no handle shape");
                 }
                 c->set_output(0, (*handle)[0].shape);
                 return Status::OK();
               }));
  AddNode("h", "MakeHandle", {});
  AddNode("r1", "ReadHandle", {"h"});
  AddNode("r2", "ReadHandle", {"h"});
  ASSERT_THAT(refiner_.InferShapes(graph_), IsOk());
  EXPECT_EQ("[2,3]", Shape("r1"));
  EXPECT_EQ("[2,3]", Shape("r2"));
  // Inferring again replaces every context; the handle shapes are still read
  // through the new ones.
  ASSERT_THAT(refiner_.InferShapes(graph_), IsOk());
  EXPECT_EQ("[2,3]", Shape("r2"));
}

TEST_F(ShapeRefinerTest, ConstFeedsReshape) {
  AddPlaceholder("t", PartialTensorShape({3, 4}));
  AddInt32Const("shape", {2, 6});
  AddNode("r", "Reshape", {"t", "shape"});
  ASSERT_THAT(refiner_.InferShapes(graph_), IsOk());
  EXPECT_EQ("[2]", Shape("shape"));
  EXPECT_EQ("[2,6]", Shape("r"));
  const Tensor* v = refiner_.ConstantValue("shape:0");
  ASSERT_NE(nullptr, v);
  EXPECT_EQ(6, v->flat<int32>()(1));
  EXPECT_EQ(nullptr, refiner_.ConstantValue("t"));
  EXPECT_EQ(nullptr, refiner_.ConstantValue("nope"));
}

TEST_F(ShapeRefinerTest, ShapeOfKnownInputIsConstant) {
  AddPlaceholder("t", PartialTensorShape({3, 4}));
  AddPlaceholder("u", PartialTensorShape({-1, 4}));
  AddPlaceholder("v", PartialTensorShape());
  AddNode("st", "Shape", {"t"});
  AddNode("su", "Shape", {"u"});
  AddNode("sv", "Shape", {"v"});
  AddNode("rt", "Reshape", {"v", "st"});
  AddNode("ru", "Reshape", {"v", "su"});
  AddNode("rv", "Reshape", {"t", "sv"});
  NodeDef* s64 = AddNode("s64", "Shape", {"t"});
  AddNodeAttr("out_type", DT_INT64, s64);
  NodeDef* r64 = AddNode("r64", "Reshape", {"v", "s64"});
  AddNodeAttr("Tshape", DT_INT64, r64);
  ASSERT_THAT(refiner_.InferShapes(graph_), IsOk());
  EXPECT_EQ("[3,4]", Shape("rt"));
  ASSERT_NE(nullptr, refiner_.ConstantValue("st"));
  // Partially known: the shape flows as a partial shape, with its handles.
  EXPECT_EQ("[?,4]", Shape("ru"));
  EXPECT_EQ(nullptr, refiner_.ConstantValue("su"));
  InferenceContext* uc = refiner_.GetContext("u");
  InferenceContext* ruc = refiner_.GetContext("ru");
  EXPECT_TRUE(ruc->Dim(ruc->output(0), 0).SameHandle(uc->Dim(uc->output(0), 0)));
  // Unknown rank: nothing known.
  EXPECT_EQ("<unknown>", Shape("rv"));
  EXPECT_EQ("[3,4]", Shape("r64"));
  const Tensor* c64 = refiner_.ConstantValue("s64");
  ASSERT_NE(nullptr, c64);
  EXPECT_EQ(DT_INT64, c64->dtype());
}

TEST_F(ShapeRefinerTest, FeedsPinShapes) {
  AddPlaceholder("x", PartialTensorShape({-1, 3}));
  AddPlaceholder("w", PartialTensorShape({3, 4}));
  AddNode("mm", "MatMul", {"x", "w"});
  AddNode("s", "Split2", {"mm"});
  AddNode("id", "Identity", {"s:1"});
  ASSERT_THAT(refiner_.InferShapes(graph_, {{"x", PartialTensorShape({8, 3})},
                                            {"s:1", PartialTensorShape({1, 2, 3})}}),
              IsOk());
  EXPECT_EQ("[8,3]", Shape("x"));
  EXPECT_EQ("[8,4]", Shape("mm"));
  EXPECT_EQ("[8,4]", Shape("s:0"));
  EXPECT_EQ("[1,2,3]", Shape("s:1"));
  EXPECT_EQ("[1,2,3]", Shape("id"));

  // "x:0" is the same as "x"; a partial feed narrows only what it knows.
  ASSERT_THAT(refiner_.InferShapes(graph_, {{"x:0", PartialTensorShape({5, -1})}}), IsOk());
  EXPECT_EQ("[5,4]", Shape("mm"));
}

TEST_F(ShapeRefinerTest, BadFeeds) {
  AddPlaceholder("x", PartialTensorShape({-1, 3}));
  AddNode("id", "Identity", {"x"});
  EXPECT_THAT(refiner_.InferShapes(graph_, {{"x", PartialTensorShape({8, 5})}}),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("Feed 'x' of shape [8,5] is incompatible with the "
                                       "inferred shape [?,3]"),
                             HasSubstr("{{node x}}"))));
  EXPECT_THAT(refiner_.InferShapes(graph_, {{"nope", PartialTensorShape()}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("names node 'nope'")));
  EXPECT_THAT(refiner_.InferShapes(graph_, {{"x:3", PartialTensorShape()}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("names output 3 of node 'x'")));
  EXPECT_THAT(refiner_.InferShapes(graph_, {{"^x", PartialTensorShape()}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("is not a tensor name")));
}

TEST_F(ShapeRefinerTest, ShapeFunctionErrorNamesNode) {
  AddPlaceholder("x", PartialTensorShape({2, 3}));
  AddPlaceholder("w", PartialTensorShape({4, 5}));
  AddNode("ok", "Identity", {"x"});
  AddNode("mm", "MatMul", {"ok", "w"});
  AddNode("after", "Identity", {"mm"});
  Status s = refiner_.InferShapes(graph_);
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                          AllOf(HasSubstr("Dimensions must be equal, but are 3 and 4"),
                                HasSubstr("{{node mm}} = MatMul[](ok, w)"),
                                HasSubstr("with input shapes: [2,3], [4,5]."))));
  // Nodes before the failure keep their results.
  EXPECT_EQ("[2,3]", Shape("ok"));
  EXPECT_THAT(Shape("after"), HasSubstr("error"));
}

TEST_F(ShapeRefinerTest, StructuralErrors) {
  // Unregistered op.
  AddNode("q", "Mystery", {});
  EXPECT_THAT(refiner_.InferShapes(graph_),
              StatusIs(error::NOT_FOUND, AllOf(HasSubstr("Mystery"), HasSubstr("{{node q}}"))));

  // Missing input.
  graph_.Clear();
  AddNode("a", "Identity", {"ghost"});
  EXPECT_THAT(refiner_.InferShapes(graph_),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("Node 'a' has input 'ghost'"),
                             HasSubstr("not in the graph"))));

  // Missing control input.
  graph_.Clear();
  AddNode("src", "Source", {});
  AddNode("a", "Identity", {"src", "^ghost"});
  EXPECT_THAT(refiner_.InferShapes(graph_),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("'^ghost'")));

  // Output index out of range.
  graph_.Clear();
  AddNode("src", "Source", {});
  AddNode("a", "Identity", {"src:2"});
  EXPECT_THAT(refiner_.InferShapes(graph_),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("refers to output 2 of node 'src', which has 1 outputs"),
                             HasSubstr("{{node a}}"))));

  // Wrong number of inputs for the op.
  graph_.Clear();
  AddNode("src", "Source", {});
  AddNode("mm", "MatMul", {"src"});
  EXPECT_THAT(refiner_.InferShapes(graph_),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("Wrong number of inputs"), HasSubstr("{{node mm}}"))));

  // Duplicate and empty names.
  graph_.Clear();
  AddNode("src", "Source", {});
  AddNode("src", "Source", {});
  EXPECT_THAT(refiner_.InferShapes(graph_),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("'src' appears more than once")));
  graph_.Clear();
  AddNode("", "Source", {});
  EXPECT_THAT(refiner_.InferShapes(graph_),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("without a name")));

  // Control inputs before data inputs.
  graph_.Clear();
  AddNode("src", "Source", {});
  AddNode("a", "Identity", {"^src", "src"});
  EXPECT_THAT(refiner_.InferShapes(graph_),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("follows a control input")));

  // An empty input name.
  graph_.Clear();
  AddNode("a", "Identity", {""});
  EXPECT_THAT(refiner_.InferShapes(graph_),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("empty input")));
}

TEST_F(ShapeRefinerTest, Cycles) {
  AddNode("src", "Source", {});
  AddNode("a", "Identity", {"b"});
  AddNode("b", "Identity", {"c"});
  AddNode("c", "Identity", {"a"});
  AddNode("down", "Identity", {"c"});
  Status s = refiner_.InferShapes(graph_);
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT, HasSubstr("Graph has a cycle through node")));
  EXPECT_THAT(s.message(), HasSubstr("4 nodes are on or after a cycle"));
  EXPECT_EQ("<unknown>", Shape("src"));  // src was inferred
  EXPECT_NE(nullptr, refiner_.GetContext("src"));

  // A self loop through a control edge; the named node is on the cycle.
  graph_.Clear();
  AddNode("down", "Identity", {"self"});
  AddNode("self", "Source", {"^self"});
  s = refiner_.InferShapes(graph_);
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                          HasSubstr("Graph has a cycle through node 'self'")));
}

TEST_F(ShapeRefinerTest, LoopBackEdgeIsUnknownOnFirstVisit) {
  // x -> merge -> body -> next -> merge: a while loop's cycle. The Merge is
  // inferred first and sees the NextIteration input as an unknown shape.
  AddPlaceholder("x", PartialTensorShape({2, 3}));
  AddNode("merge", "Merge", {"x", "next"});
  AddNode("body", "Identity", {"merge"});
  AddNode("next", "NextIteration", {"body"});
  AddNode("after", "Identity", {"body"});
  ASSERT_THAT(refiner_.InferShapes(graph_), IsOk());
  EXPECT_EQ("<unknown>", Shape("merge"));
  EXPECT_EQ("<unknown>", Shape("next"));
  EXPECT_EQ("<unknown>", Shape("after"));

  // A cycle that does not pass through a NextIteration is still refused.
  graph_.Clear();
  AddPlaceholder("x", PartialTensorShape({2, 3}));
  AddNode("merge", "Merge", {"x", "body"});
  AddNode("body", "Identity", {"merge"});
  EXPECT_THAT(refiner_.InferShapes(graph_),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Graph has a cycle")));
}

TEST_F(ShapeRefinerTest, RerunReplacesResults) {
  AddPlaceholder("x", PartialTensorShape({1}));
  ASSERT_THAT(refiner_.InferShapes(graph_), IsOk());
  EXPECT_EQ("[1]", Shape("x"));
  GraphDef other;
  *other.add_node() = graph_.node(0);
  other.mutable_node(0)->set_name("y");
  ASSERT_THAT(refiner_.InferShapes(other), IsOk());
  EXPECT_THAT(Shape("x"), HasSubstr("error"));
  EXPECT_EQ("[1]", Shape("y"));
  // An empty graph is fine.
  ASSERT_THAT(refiner_.InferShapes(GraphDef()), IsOk());
}

TEST_F(ShapeRefinerTest, ConstWithBadValueAndNullRegistry) {
  NodeDef* n = AddNode("c", "Const", {});
  AddNodeAttr("dtype", DT_INT32, n);
  AttrValue bad;
  bad.mutable_tensor()->set_dtype(DT_INT32);
  bad.mutable_tensor()->mutable_tensor_shape()->add_dim()->set_size(4);
  bad.mutable_tensor()->set_tensor_content("xy");  // wrong byte count
  (*n->mutable_attr())["value"] = bad;
  EXPECT_THAT(refiner_.InferShapes(graph_), StatusIs(error::INVALID_ARGUMENT));

  // A null registry means the global one; an op it lacks is NotFound.
  ShapeRefiner global(0, nullptr);
  GraphDef g;
  NodeDef* m = g.add_node();
  m->set_name("m");
  m->set_op("SurelyNotRegisteredAnywhere");
  EXPECT_THAT(global.InferShapes(g), StatusIs(error::NOT_FOUND));
}

}  // namespace
}  // namespace opkit

// Tests of the common shape functions (common_shape_fns.h), run against a
// test-local OpRegistry holding ops declared with TensorFlow's spec strings.
// Shapes are written in TensorFlow's test syntax: "[2,?];?" is a matrix with
// an unknown column count followed by a shape of unknown rank.
#include "opkit/shape/common_shape_fns.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/errors.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/op/op_registry.h"
#include "opkit/shape/shape_inference.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/testing/shape_inference_testutil.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace shape_inference {
namespace {

using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

// Registers the ops the tests run, each with TensorFlow's declaration.
const OpRegistry& TestOps() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry;
    auto add = [r](OpDefBuilder b) {
      OpRegistrationData data;
      OPKIT_CHECK(b.Finalize(&data).ok());
      OPKIT_CHECK(r->Register(std::move(data)).ok());
    };
    auto unary = [](const char* name) {
      return std::move(OpDefBuilder(name).Input("x: T").Output("y: T").Attr(
          "T: type"));
    };
    add(unary("Identity").SetShapeFn(UnchangedShape));
    add(unary("Scalar").SetShapeFn(ScalarShape));
    add(unary("Rank2").SetShapeFn(
        [](InferenceContext* c) { return UnchangedShapeWithRank(c, 2); }));
    add(unary("RankAtLeast2").SetShapeFn([](InferenceContext* c) {
      return UnchangedShapeWithRankAtLeast(c, 2);
    }));
    add(unary("RankAtMost2").SetShapeFn([](InferenceContext* c) {
      return UnchangedShapeWithRankAtMost(c, 2);
    }));
    add(std::move(OpDefBuilder("TwoUnknown")
                      .Input("x: float")
                      .Output("a: float")
                      .Output("b: float")
                      .SetShapeFn(UnknownShape)));
    add(std::move(
        OpDefBuilder("NoOut").Input("x: float").SetShapeFn(NoOutputs)));
    add(std::move(OpDefBuilder("MatMul")
                      .Input("a: T")
                      .Input("b: T")
                      .Output("product: T")
                      .Attr("transpose_a: bool = false")
                      .Attr("transpose_b: bool = false")
                      .Attr("T: {float, double, int32}")
                      .SetShapeFn(MatMulShape)));
    add(std::move(OpDefBuilder("BatchMatMulV2")
                      .Input("x: T")
                      .Input("y: T")
                      .Output("output: T")
                      .Attr("T: {float, double}")
                      .Attr("adj_x: bool = false")
                      .Attr("adj_y: bool = false")
                      .SetShapeFn(BatchMatMulV2Shape)));
    add(std::move(OpDefBuilder("BiasAdd")
                      .Attr("T: numbertype")
                      .Input("value: T")
                      .Input("bias: T")
                      .Attr("data_format: string = 'NHWC'")
                      .Output("output: T")
                      .SetShapeFn(BiasAddShape)));
    add(std::move(OpDefBuilder("BiasAddV1")
                      .Attr("T: numbertype")
                      .Input("value: T")
                      .Input("bias: T")
                      .Output("output: T")
                      .SetShapeFn(BiasAddShape)));
    add(std::move(OpDefBuilder("BiasAddGrad")
                      .Attr("T: numbertype")
                      .Input("out_backprop: T")
                      .Attr("data_format: string = 'NHWC'")
                      .Output("output: T")
                      .SetShapeFn(BiasAddGradShape)));
    add(std::move(OpDefBuilder("AddV2")
                      .Input("x: T")
                      .Input("y: T")
                      .Output("z: T")
                      .Attr("T: {float, int32}")
                      .SetShapeFn(BroadcastBinaryOpShapeFn)));
    add(std::move(OpDefBuilder("BroadcastNoError")
                      .Input("x: float")
                      .Input("y: float")
                      .Output("z: float")
                      .SetShapeFn([](InferenceContext* c) {
                        ShapeHandle out;
                        OPKIT_RETURN_IF_ERROR(
                            BroadcastBinaryOpOutputShapeFnHelper(
                                c, c->input(0), c->input(1), false, &out));
                        c->set_output(0, out);
                        return OkStatus();
                      })));
    add(std::move(OpDefBuilder("BroadcastOut1")
                      .Input("x: float")
                      .Input("y: float")
                      .Output("a: float")
                      .Output("z: float")
                      .SetShapeFn([](InferenceContext* c) {
                        c->set_output(0, c->Scalar());
                        return BroadcastBinaryOpOutputShapeFn(c, 1);
                      })));
    add(std::move(OpDefBuilder("BroadcastOut5")
                      .Input("x: float")
                      .Input("y: float")
                      .Output("z: float")
                      .SetShapeFn([](InferenceContext* c) {
                        return BroadcastBinaryOpOutputShapeFn(c, 5);
                      })));
    add(std::move(OpDefBuilder("Sum")
                      .Input("input: T")
                      .Input("reduction_indices: Tidx")
                      .Output("output: T")
                      .Attr("keep_dims: bool = false")
                      .Attr("T: numbertype")
                      .Attr("Tidx: {int32, int64, float} = DT_INT32")
                      .SetShapeFn(ReductionShape)));
    add(std::move(OpDefBuilder("ConcatV2")
                      .Input("values: N * T")
                      .Input("axis: Tidx")
                      .Output("output: T")
                      .Attr("N: int >= 2")
                      .Attr("T: type")
                      .Attr("Tidx: {int32, int64, float} = DT_INT32")
                      .SetShapeFn(ConcatV2Shape)));
    add(std::move(OpDefBuilder("Concat")
                      .Input("concat_dim: int32")
                      .Input("values: N * T")
                      .Output("output: T")
                      .Attr("N: int >= 2")
                      .Attr("T: type")
                      .SetShapeFn([](InferenceContext* c) {
                        return ConcatShape(c, c->num_inputs() - 1);
                      })));
    add(std::move(OpDefBuilder("ConcatTooMany")
                      .Input("concat_dim: int32")
                      .Input("values: N * T")
                      .Output("output: T")
                      .Attr("N: int >= 2")
                      .Attr("T: type")
                      .SetShapeFn([](InferenceContext* c) {
                        return ConcatShape(c, c->num_inputs());
                      })));
    auto conv = [](const char* name, bool explicit_padding) {
      OpDefBuilder b(name);
      b.Input("input: T")
          .Input("filter: T")
          .Output("output: T")
          .Attr("T: {half, float, double}")
          .Attr("strides: list(int)")
          .Attr("padding: string")
          .Attr("data_format: string = 'NHWC'")
          .Attr("dilations: list(int) = [1, 1, 1, 1]");
      if (explicit_padding) {
        b.Attr("explicit_paddings: list(int) = []");
        b.SetShapeFn(Conv2DShapeWithExplicitPadding);
      } else {
        b.SetShapeFn(Conv2DShape);
      }
      return b;
    };
    add(conv("Conv2D", true));
    add(conv("Conv2DNoExplicit", false));
    auto pool = [](const char* name, OpShapeInferenceFn fn) {
      return std::move(OpDefBuilder(name)
                           .Attr("T: {float, double} = DT_FLOAT")
                           .Attr("ksize: list(int) >= 4")
                           .Attr("strides: list(int) >= 4")
                           .Attr("padding: string")
                           .Attr("data_format: string = 'NHWC'")
                           .Input("input: T")
                           .Output("output: T")
                           .SetShapeFn(std::move(fn)));
    };
    add(pool("MaxPool", MaxPoolShape));
    add(pool("AvgPool", AvgPoolShape));
    add(std::move(pool("MaxPoolExplicit", MaxPoolShapeWithExplicitPadding)
                      .Attr("explicit_paddings: list(int) = []")));
    add(std::move(OpDefBuilder("FusedBatchNorm")
                      .Input("x: T")
                      .Input("scale: T")
                      .Input("offset: T")
                      .Input("mean: T")
                      .Input("variance: T")
                      .Output("y: T")
                      .Output("batch_mean: T")
                      .Output("batch_variance: T")
                      .Output("reserve_space_1: T")
                      .Output("reserve_space_2: T")
                      .Attr("T: {float}")
                      .Attr("epsilon: float = 0.0001")
                      .Attr("data_format: string = 'NHWC'")
                      .Attr("is_training: bool = true")
                      .SetShapeFn(FusedBatchNormShape)));
    add(std::move(OpDefBuilder("FusedBatchNormV3")
                      .Input("x: T")
                      .Input("scale: U")
                      .Input("offset: U")
                      .Input("mean: U")
                      .Input("variance: U")
                      .Output("y: T")
                      .Output("batch_mean: U")
                      .Output("batch_variance: U")
                      .Output("reserve_space_1: U")
                      .Output("reserve_space_2: U")
                      .Output("reserve_space_3: U")
                      .Attr("T: {half, bfloat16, float}")
                      .Attr("U: {float} = DT_FLOAT")
                      .Attr("epsilon: float = 0.0001")
                      .Attr("exponential_avg_factor: float = 1.0")
                      .Attr("data_format: string = 'NHWC'")
                      .Attr("is_training: bool = true")
                      .SetShapeFn(FusedBatchNormV3Shape)));
    add(std::move(OpDefBuilder("FusedBatchNormGrad")
                      .Input("y_backprop: T")
                      .Input("x: T")
                      .Input("scale: T")
                      .Input("reserve_space_1: T")
                      .Input("reserve_space_2: T")
                      .Output("x_backprop: T")
                      .Output("scale_backprop: T")
                      .Output("offset_backprop: T")
                      .Output("reserve_space_3: T")
                      .Output("reserve_space_4: T")
                      .Attr("T: {float}")
                      .Attr("epsilon: float = 0.0001")
                      .Attr("data_format: string = 'NHWC'")
                      .Attr("is_training: bool = true")
                      .SetShapeFn(FusedBatchNormGradShape)));
    // Declares fewer outputs than the function sets: refused, not a crash.
    add(std::move(OpDefBuilder("FusedBatchNormTooFewOutputs")
                      .Input("x: float")
                      .Input("scale: float")
                      .Input("offset: float")
                      .Input("mean: float")
                      .Input("variance: float")
                      .Output("y: float")
                      .Attr("data_format: string = 'NHWC'")
                      .Attr("is_training: bool = false")
                      .SetShapeFn(FusedBatchNormShape)));
    add(std::move(OpDefBuilder("Reshape")
                      .Input("tensor: T")
                      .Input("shape: Tshape")
                      .Output("output: T")
                      .Attr("T: type")
                      .Attr("Tshape: {int32, int64} = DT_INT32")
                      .SetShapeFn(ReshapeShape)));
    add(std::move(OpDefBuilder("Transpose")
                      .Input("x: T")
                      .Input("perm: Tperm")
                      .Output("y: T")
                      .Attr("T: type")
                      .Attr("Tperm: {int32, int64, float} = DT_INT32")
                      .SetShapeFn(TransposeShape)));
    return r;
  }();
  return *registry;
}

// Parses "[1,?];?;[]" into shapes; "?" alone is an unknown rank.
std::vector<PartialTensorShape> ParseShapes(const std::string& spec) {
  std::vector<PartialTensorShape> shapes;
  if (spec.empty()) return shapes;
  size_t pos = 0;
  while (true) {
    size_t end = spec.find(';', pos);
    std::string one = spec.substr(pos, end == std::string::npos
                                           ? std::string::npos
                                           : end - pos);
    if (one == "?") {
      shapes.emplace_back();
    } else {
      std::vector<int64_t> dims;
      std::string inner = one.substr(1, one.size() - 2);
      size_t p = 0;
      while (p < inner.size()) {
        size_t q = inner.find(',', p);
        if (q == std::string::npos) q = inner.size();
        std::string d = inner.substr(p, q - p);
        dims.push_back(d == "?" ? -1 : std::stoll(d));
        p = q + 1;
      }
      PartialTensorShape s;
      Status st = PartialTensorShape::BuildPartialTensorShape(dims, &s);
      if (!st.ok()) ADD_FAILURE() << "bad test shape " << one << ": " << st;
      shapes.push_back(s);
    }
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return shapes;
}

Tensor Int32s(const std::vector<int32>& v) {
  Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.flat<int32>()(i) = v[i];
  return t;
}
Tensor Int64s(const std::vector<int64>& v) {
  Tensor t(DT_INT64, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.flat<int64>()(i) = v[i];
  return t;
}

// One shape-function call on a node of the test registry.
class CommonShapeFnsTest : public ::testing::Test {
 protected:
  // Starts a node of `op` with every attr default, T/N attrs set.
  void Op(const std::string& op, int n = 2) {
    const OpRegistrationData* data = TestOps().LookUp(op);
    OPKIT_CHECK(data != nullptr);
    reg_ = data;
    node_ = NodeDef();
    node_.set_name("n");
    node_.set_op(op);
    for (const auto& attr : data->op_def.attr()) {
      if (attr.name() == "T") AddNodeAttr("T", DT_FLOAT, &node_);
      if (attr.name() == "N") AddNodeAttr("N", n, &node_);
    }
    AddDefaultsToNodeDef(data->op_def, &node_);
    tensors_.clear();
  }
  template <typename T>
  void Attr(const std::string& name, const T& value) {
    AddNodeAttr(name, value, &node_);
  }
  void Const(int index, Tensor t) {
    tensors_.emplace_back(index, std::move(t));
  }

  // Runs the shape function on `shapes`; on success *out holds the output
  // shapes joined by ';'.
  Status Run(const std::string& shapes, std::string* out = nullptr) {
    std::vector<PartialTensorShape> in = ParseShapes(shapes);
    std::vector<const Tensor*> tensor_ptrs(in.size(), nullptr);
    for (const auto& [i, t] : tensors_) {
      if (i < static_cast<int>(tensor_ptrs.size())) tensor_ptrs[i] = &t;
    }
    ctx_ = std::make_unique<InferenceContext>(0, AttrSlice(node_),
                                              reg_->op_def, in, tensor_ptrs);
    Status s = ctx_->Run(reg_->shape_inference_fn);
    if (s.ok() && out != nullptr) {
      out->clear();
      for (int i = 0; i < ctx_->num_outputs(); ++i) {
        if (i > 0) out->append(";");
        out->append(ctx_->DebugString(ctx_->output(i)));
      }
    }
    return s;
  }
  // The output shapes for `shapes`, or "error: <message>".
  std::string Infer(const std::string& shapes) {
    std::string out;
    Status s = Run(shapes, &out);
    if (!s.ok()) return "error: " + s.ToString();
    return out;
  }

  const OpRegistrationData* reg_ = nullptr;
  NodeDef node_;
  std::vector<std::pair<int, Tensor>> tensors_;
  std::unique_ptr<InferenceContext> ctx_;
};

#define EXPECT_INFER_ERROR(substr, shapes)                                \
  EXPECT_THAT(Run(shapes), StatusIs(error::INVALID_ARGUMENT, HasSubstr(substr)))

TEST_F(CommonShapeFnsTest, UnchangedShapeKeepsTheHandle) {
  Op("Identity");
  EXPECT_EQ(Infer("[1,?]"), "[1,?]");
  EXPECT_TRUE(ctx_->output(0).SameHandle(ctx_->input(0)));
  EXPECT_EQ(Infer("?"), "?");
  EXPECT_EQ(Infer("[]"), "[]");
}

TEST_F(CommonShapeFnsTest, UnknownScalarAndNoOutputs) {
  Op("TwoUnknown");
  EXPECT_EQ(Infer("[1,2]"), "?;?");
  Op("Scalar");
  EXPECT_EQ(Infer("[1,2]"), "[]");
  Op("NoOut");
  EXPECT_EQ(Infer("[1,2]"), "");
}

TEST_F(CommonShapeFnsTest, UnchangedShapeWithRank) {
  Op("Rank2");
  EXPECT_EQ(Infer("[1,?]"), "[1,?]");
  EXPECT_EQ(Infer("?"), "[?,?]");
  EXPECT_INFER_ERROR("Shape must be rank 2 but is rank 1", "[1]");
  Op("RankAtLeast2");
  EXPECT_EQ(Infer("[1,2,3]"), "[1,2,3]");
  EXPECT_EQ(Infer("?"), "?");
  EXPECT_INFER_ERROR("Shape must be at least rank 2 but is rank 1", "[1]");
  Op("RankAtMost2");
  EXPECT_EQ(Infer("[1]"), "[1]");
  EXPECT_EQ(Infer("?"), "?");
  EXPECT_INFER_ERROR("Shape must be at most rank 2 but is rank 3", "[1,2,3]");
}

TEST_F(CommonShapeFnsTest, MatMul) {
  Op("MatMul");
  EXPECT_EQ(Infer("[2,3];[3,4]"), "[2,4]");
  EXPECT_EQ(Infer("?;?"), "[?,?]");
  EXPECT_EQ(Infer("[2,?];[?,4]"), "[2,4]");
  EXPECT_EQ(Infer("?;[3,4]"), "[?,4]");
  EXPECT_INFER_ERROR("Dimensions must be equal, but are 3 and 4",
                     "[2,3];[4,5]");
  EXPECT_INFER_ERROR("Shape must be rank 2 but is rank 1", "[2];[3,4]");
  EXPECT_INFER_ERROR("Shape must be rank 2 but is rank 3", "[2,3];[3,4,5]");
  Op("MatMul");
  Attr("transpose_a", true);
  EXPECT_EQ(Infer("[3,2];[3,4]"), "[2,4]");
  EXPECT_INFER_ERROR("Dimensions must be equal", "[2,3];[3,4]");
  Op("MatMul");
  Attr("transpose_b", true);
  EXPECT_EQ(Infer("[2,3];[4,3]"), "[2,4]");
  Op("MatMul");
  Attr("transpose_a", true);
  Attr("transpose_b", true);
  EXPECT_EQ(Infer("[3,2];[4,3]"), "[2,4]");
  // A missing bool attr is the attr lookup's error.
  Op("MatMul");
  node_.mutable_attr()->erase("transpose_a");
  EXPECT_THAT(Run("[2,3];[3,4]"), StatusIs(error::NOT_FOUND));
  Op("MatMul");
  Attr("transpose_a", 3);
  EXPECT_THAT(Run("[2,3];[3,4]"), StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(CommonShapeFnsTest, BatchMatMulV2) {
  Op("BatchMatMulV2");
  EXPECT_EQ(Infer("[3,4];[4,5]"), "[3,5]");
  EXPECT_EQ(Infer("[2,3,4];[4,5]"), "[2,3,5]");
  EXPECT_EQ(Infer("[1,2,3,4];[5,1,4,6]"), "[5,2,3,6]");
  EXPECT_EQ(Infer("[?,3,4];[7,4,5]"), "[7,3,5]");
  EXPECT_EQ(Infer("?;[3,4]"), "?");
  EXPECT_EQ(Infer("[2,3,4];?"), "?");
  EXPECT_INFER_ERROR("Dimensions must be equal, but are 2 and 3",
                     "[2,3,4];[3,4,5]");
  EXPECT_INFER_ERROR("Dimensions must be equal, but are 4 and 5",
                     "[3,4];[5,6]");
  EXPECT_INFER_ERROR("Shape must be at least rank 2 but is rank 1",
                     "[2];[2,2]");
  Op("BatchMatMulV2");
  Attr("adj_x", true);
  Attr("adj_y", true);
  EXPECT_EQ(Infer("[9,4,3];[5,4]"), "[9,3,5]");
}

TEST_F(CommonShapeFnsTest, BiasAdd) {
  Op("BiasAdd");
  EXPECT_EQ(Infer("[2,3];[3]"), "[2,3]");
  EXPECT_EQ(Infer("[?,?];[4]"), "[?,4]");
  EXPECT_EQ(Infer("[2,3,4];[?]"), "[2,3,4]");
  EXPECT_EQ(Infer("?;[3]"), "?");
  EXPECT_INFER_ERROR("Dimensions must be equal", "[2,3];[4]");
  EXPECT_INFER_ERROR("Shape must be at least rank 2 but is rank 1", "[2];[2]");
  EXPECT_INFER_ERROR("Shape must be rank 1 but is rank 2", "[2,3];[3,1]");
  Op("BiasAdd");
  Attr("data_format", "NCHW");
  EXPECT_EQ(Infer("[2,3,4,5];[3]"), "[2,3,4,5]");
  EXPECT_EQ(Infer("[2,?,4];[3]"), "[2,3,4]");
  EXPECT_INFER_ERROR("Shape must be at least rank 3 but is rank 2",
                     "[2,3];[3]");
  EXPECT_INFER_ERROR("Dimensions must be equal", "[2,3,4];[4]");
  // No data_format attr at all reads as NHWC.
  Op("BiasAddV1");
  EXPECT_EQ(Infer("[2,3,4];[4]"), "[2,3,4]");
}

TEST_F(CommonShapeFnsTest, BiasAddGrad) {
  Op("BiasAddGrad");
  EXPECT_EQ(Infer("[2,3]"), "[3]");
  EXPECT_EQ(Infer("?"), "[?]");
  EXPECT_INFER_ERROR("Shape must be at least rank 2 but is rank 1", "[2]");
  Op("BiasAddGrad");
  Attr("data_format", "NCHW");
  EXPECT_EQ(Infer("[2,3,4]"), "[3]");
  EXPECT_INFER_ERROR("Shape must be at least rank 3 but is rank 2", "[2,3]");
}

TEST_F(CommonShapeFnsTest, Broadcast) {
  Op("AddV2");
  EXPECT_EQ(Infer("?;?"), "?");
  EXPECT_EQ(Infer("[1,2];?"), "?");
  EXPECT_EQ(Infer("?;[]"), "?");
  EXPECT_EQ(Infer("[];[]"), "[]");
  EXPECT_EQ(Infer("[2];[]"), "[2]");
  EXPECT_EQ(Infer("[];[2,3]"), "[2,3]");
  EXPECT_EQ(Infer("[1];[2]"), "[2]");
  EXPECT_EQ(Infer("[2];[1]"), "[2]");
  EXPECT_EQ(Infer("[3,1];[1,4]"), "[3,4]");
  EXPECT_EQ(Infer("[5,1,3];[4,1]"), "[5,4,3]");
  EXPECT_EQ(Infer("[?];[1]"), "[?]");
  EXPECT_EQ(Infer("[1];[?]"), "[?]");
  EXPECT_EQ(Infer("[?];[2]"), "[2]");
  EXPECT_EQ(Infer("[2];[?]"), "[2]");
  EXPECT_EQ(Infer("[?];[?]"), "[?]");
  EXPECT_EQ(Infer("[?];[0]"), "[?]");
  EXPECT_EQ(Infer("[0];[1]"), "[0]");
  EXPECT_EQ(Infer("[1,?];[5]"), "[1,5]");
  EXPECT_EQ(Infer("[2,?,1];[?,3]"), "[2,?,3]");
  EXPECT_INFER_ERROR("Dimensions must be equal, but are 2 and 3", "[2];[3]");
  EXPECT_INFER_ERROR("Dimensions must be equal, but are 0 and 2", "[0];[2]");
  EXPECT_INFER_ERROR("Dimensions must be equal", "[4,2];[3,2]");

  Op("BroadcastNoError");
  EXPECT_EQ(Infer("[2];[3]"), "[]");
  EXPECT_EQ(Infer("[?];[3]"), "?");
  EXPECT_EQ(Infer("[?];[0]"), "?");
  EXPECT_EQ(Infer("[1];[3]"), "[3]");

  Op("BroadcastOut1");
  EXPECT_EQ(Infer("[2,1];[3]"), "[];[2,3]");
  Op("BroadcastOut5");
  EXPECT_INFER_ERROR("Output index 5 is out of range", "[2];[2]");
}

TEST_F(CommonShapeFnsTest, BroadcastSameUnknownHandle) {
  // Both inputs of AddV2(x, x) share the handle of an unknown dimension.
  Op("AddV2");
  InferenceContext c(0, AttrSlice(node_), reg_->op_def,
                     std::vector<PartialTensorShape>{PartialTensorShape({-1}),
                                                     PartialTensorShape({-1})},
                     {nullptr, nullptr});
  OPKIT_ASSERT_OK(c.construction_status());
  ShapeHandle out;
  OPKIT_ASSERT_OK(BroadcastBinaryOpOutputShapeFnHelper(&c, c.input(0),
                                                       c.input(0), true, &out));
  EXPECT_TRUE(c.Dim(out, 0).SameHandle(c.Dim(c.input(0), 0)));
  // Two different unknown dimensions give a new unknown one.
  OPKIT_ASSERT_OK(BroadcastBinaryOpOutputShapeFnHelper(&c, c.input(0),
                                                       c.input(1), true, &out));
  EXPECT_FALSE(c.ValueKnown(c.Dim(out, 0)));
  EXPECT_FALSE(c.Dim(out, 0).SameHandle(c.Dim(c.input(0), 0)));
}

TEST_F(CommonShapeFnsTest, ReductionWithoutConstantAxes) {
  Op("Sum");
  EXPECT_EQ(Infer("[2,3];[1]"), "?");
  EXPECT_EQ(Infer("?;[1]"), "?");
  EXPECT_INFER_ERROR("Shape must be at most rank 1 but is rank 2",
                     "[2,3];[1,1]");
  Op("Sum");
  Attr("keep_dims", true);
  EXPECT_EQ(Infer("[2,3];[1]"), "[?,?]");
  EXPECT_EQ(Infer("?;[1]"), "?");
}

TEST_F(CommonShapeFnsTest, ReductionWithConstantAxes) {
  Op("Sum");
  Const(1, Int32s({1}));
  EXPECT_EQ(Infer("[2,3];[1]"), "[2]");
  EXPECT_EQ(Infer("?;[1]"), "?");
  EXPECT_EQ(Infer("[?,3,4];[1]"), "[?,4]");
  Op("Sum");
  Const(1, Int32s({-1}));
  EXPECT_EQ(Infer("[2,3];[1]"), "[2]");
  Op("Sum");
  Const(1, Int64s({0, 1}));
  EXPECT_EQ(Infer("[2,3];[2]"), "[]");
  Op("Sum");
  Const(1, Int32s({0, 0}));
  EXPECT_EQ(Infer("[2,3];[2]"), "[3]");
  Op("Sum");
  Const(1, Tensor(int32{0}));
  EXPECT_EQ(Infer("[2,3];[]"), "[3]");
  Op("Sum");
  Const(1, Int32s({}));
  EXPECT_EQ(Infer("[2,3];[0]"), "[2,3]");
  Op("Sum");
  Attr("keep_dims", true);
  Const(1, Int32s({0, -2}));
  EXPECT_EQ(Infer("[2,3,4];[2]"), "[1,1,4]");

  Op("Sum");
  Const(1, Int32s({2}));
  EXPECT_INFER_ERROR("Invalid reduction dimension 2 for input with 2 dimensions.",
                     "[2,3];[1]");
  Op("Sum");
  Const(1, Int64s({-3}));
  EXPECT_INFER_ERROR("Invalid reduction dimension -3 for input with 2 dimensions.",
                     "[2,3];[1]");
  Op("Sum");
  Const(1, Int64s({std::numeric_limits<int64>::min()}));
  EXPECT_INFER_ERROR("Invalid reduction dimension", "[2,3];[1]");
  Op("Sum");
  Attr("Tidx", DT_FLOAT);
  Const(1, Tensor(1.0f));
  EXPECT_INFER_ERROR("reduction_indices can only be int32 or int64",
                     "[2,3];[]");
}

TEST_F(CommonShapeFnsTest, ConcatV2WithoutConstantAxis) {
  Op("ConcatV2");
  EXPECT_EQ(Infer("[2,3];[4,3];[]"), "[?,?]");
  EXPECT_EQ(Infer("?;?;[]"), "?");
  EXPECT_EQ(Infer("?;[2,3];[]"), "[?,?]");
  EXPECT_EQ(Infer("?;?;?"), "?");
  EXPECT_INFER_ERROR("Can't concatenate scalars (use tf.stack instead)",
                     "[];[];[]");
  EXPECT_INFER_ERROR("Shape must be rank 1 but is rank 2", "[2];[2,3];[]");
  EXPECT_INFER_ERROR("Shape must be rank 0 but is rank 1", "[2];[2];[1]");
}

TEST_F(CommonShapeFnsTest, ConcatV2WithConstantAxis) {
  Op("ConcatV2");
  Const(2, Tensor(int32{0}));
  EXPECT_EQ(Infer("[2,3];[4,3];[]"), "[6,3]");
  EXPECT_EQ(Infer("[2,?];[?,3];[]"), "[?,3]");
  EXPECT_EQ(Infer("?;[4,3];[]"), "[?,3]");
  EXPECT_EQ(Infer("?;?;[]"), "?");
  EXPECT_INFER_ERROR("must be equal", "[2,3];[4,5];[]");
  EXPECT_INFER_ERROR("Shape must be at least rank 1 but is rank 0",
                     "[];[];[]");
  Op("ConcatV2", 3);
  Const(3, Int64s({1}));
  EXPECT_EQ(Infer("[2,3];[2,4];[?,1];[]"), "[2,8]");
  Op("ConcatV2");
  Const(2, Tensor(int32{-1}));
  EXPECT_EQ(Infer("[2,3];[2,4];[]"), "[2,7]");
  Op("ConcatV2");
  Const(2, Tensor(int32{-2}));
  EXPECT_EQ(Infer("[2,3,5];[2,4,5];[]"), "[2,7,5]");
  Op("ConcatV2");
  Const(2, Tensor(int32{2}));
  EXPECT_INFER_ERROR("Shape must be at least rank 3 but is rank 2",
                     "[2,3];[2,3];[]");
  Op("ConcatV2");
  Const(2, Tensor(int64{std::numeric_limits<int64>::min()}));
  EXPECT_INFER_ERROR("is out of range", "[2,3];[2,3];[]");
  Op("ConcatV2");
  Attr("Tidx", DT_FLOAT);
  Const(2, Tensor(1.0f));
  EXPECT_INFER_ERROR("Concat axis must be int32 or int64", "[2,3];[2,3];[]");
  // Sizes whose sum overflows int64.
  Op("ConcatV2");
  Const(2, Tensor(int32{0}));
  EXPECT_INFER_ERROR("overflow",
                     "[9223372036854775807];[9223372036854775807];[]");
}

TEST_F(CommonShapeFnsTest, Concat) {
  Op("Concat");
  Const(0, Tensor(int32{1}));
  EXPECT_EQ(Infer("[];[2,3];[2,4]"), "[2,7]");
  Op("Concat");
  EXPECT_EQ(Infer("[];[2,3];[2,4]"), "[?,?]");
  Op("ConcatTooMany", 3);
  EXPECT_INFER_ERROR("needs 4 + 1 inputs", "[];[2,3];[2,4];[2,5]");
}

class CommonShapeFnsConvTest : public CommonShapeFnsTest {
 protected:
  void Conv(const std::string& padding,
            std::vector<int32> strides = {1, 1, 1, 1},
            const char* op = "Conv2D") {
    Op(op);
    Attr("padding", padding);
    Attr("strides", strides);
  }
};

TEST_F(CommonShapeFnsConvTest, ValidAndSame) {
  Conv("VALID");
  EXPECT_EQ(Infer("[1,5,5,3];[2,2,3,4]"), "[1,4,4,4]");
  EXPECT_EQ(Infer("?;?"), "[?,?,?,?]");
  EXPECT_EQ(Infer("[1,?,5,3];[2,2,3,4]"), "[1,?,4,4]");
  EXPECT_EQ(Infer("[1,5,5,3];[?,2,3,4]"), "[1,?,4,4]");
  EXPECT_EQ(Infer("[1,5,5,3];[5,5,3,4]"), "[1,1,1,4]");
  EXPECT_EQ(Infer("[1,0,0,3];[0,0,3,4]"), "[1,1,1,4]");
  EXPECT_INFER_ERROR("Negative dimension size caused by subtracting 3 from 2",
                     "[1,2,2,3];[3,3,3,4]");
  EXPECT_INFER_ERROR("Shape must be rank 4 but is rank 3", "[1,5,5];[2,2,3,4]");
  EXPECT_INFER_ERROR("Shape must be rank 4 but is rank 2", "[1,5,5,3];[2,2]");
  Conv("VALID", {1, 2, 2, 1});
  EXPECT_EQ(Infer("[1,5,5,3];[3,3,3,4]"), "[1,2,2,4]");
  EXPECT_EQ(Infer("[1,6,5,3];[3,3,3,4]"), "[1,2,2,4]");
  Conv("SAME", {1, 2, 2, 1});
  EXPECT_EQ(Infer("[1,5,5,3];[3,3,3,4]"), "[1,3,3,4]");
  EXPECT_EQ(Infer("[1,5,5,3];[?,?,3,4]"), "[1,3,3,4]");
  EXPECT_EQ(Infer("[1,2,2,3];[3,3,3,4]"), "[1,1,1,4]");
  Conv("SAME", {1, 1, 3, 1});
  EXPECT_EQ(Infer("[?,7,7,3];[3,3,3,?]"), "[?,7,3,?]");
}

TEST_F(CommonShapeFnsConvTest, DilationsFormatsAndGroups) {
  Conv("VALID");
  Attr("dilations", std::vector<int32>{1, 2, 2, 1});
  EXPECT_EQ(Infer("[1,5,5,3];[3,3,3,4]"), "[1,1,1,4]");
  EXPECT_INFER_ERROR("Negative dimension size caused by subtracting 5 from 4",
                     "[1,4,4,3];[3,3,3,4]");
  EXPECT_INFER_ERROR("Negative dimension size caused by subtracting 1 from 0",
                     "[1,4,4,3];[0,0,3,4]");
  Conv("VALID");
  Attr("data_format", "NCHW");
  EXPECT_EQ(Infer("[1,3,5,5];[2,2,3,4]"), "[1,4,4,4]");
  Conv("SAME", {1, 1, 2, 2});
  Attr("data_format", "NCHW");
  EXPECT_EQ(Infer("[1,3,5,6];[3,3,3,4]"), "[1,4,3,3]");
  Conv("VALID");
  Attr("filter_format", "OIHW");
  EXPECT_EQ(Infer("[1,5,5,3];[4,3,2,2]"), "[1,4,4,4]");
  // Grouped convolution: 6 input channels in groups of 3.
  Conv("VALID");
  EXPECT_EQ(Infer("[1,5,5,6];[2,2,3,4]"), "[1,4,4,4]");
  EXPECT_INFER_ERROR(
      "Depth of output (5) is not a multiple of the number of groups (2)",
      "[1,5,5,6];[2,2,3,5]");
  EXPECT_INFER_ERROR(
      "Depth of input (5) is not a multiple of input depth of filter (3)",
      "[1,5,5,5];[2,2,3,4]");
  EXPECT_EQ(Infer("[1,5,5,0];[2,2,3,5]"), "[1,4,4,5]");
  EXPECT_INFER_ERROR("Depth of input of filter must be > 0",
                     "[1,5,5,5];[2,2,0,4]");
}

TEST_F(CommonShapeFnsConvTest, BadAttrs) {
  Conv("VALID", {1, 1, 1});
  EXPECT_INFER_ERROR(
      "Conv2D on data format NHWC requires the stride attribute to contain 4 "
      "values, but got: 3",
      "[1,5,5,3];[2,2,3,4]");
  Conv("VALID", {1, 0, 1, 1});
  EXPECT_INFER_ERROR("Stride must be > 0, but got 0", "[1,5,5,3];[2,2,3,4]");
  Conv("SAME", {1, 1, -2, 1});
  EXPECT_INFER_ERROR("Stride must be > 0, but got -2", "[1,5,5,3];[2,2,3,4]");
  Conv("SAME");
  Attr("dilations", std::vector<int32>{1, 0, 1, 1});
  EXPECT_INFER_ERROR("Dilation rate must be >= 1, but got 0",
                     "[1,5,5,3];[2,2,3,4]");
  Conv("SAME");
  Attr("dilations", std::vector<int32>{1, 1});
  EXPECT_INFER_ERROR(
      "Conv2D requires the dilation attribute to contain 4 values, but got: 2",
      "[1,5,5,3];[2,2,3,4]");
  Conv("FOO");
  EXPECT_INFER_ERROR("FOO is not an allowed padding type",
                     "[1,5,5,3];[2,2,3,4]");
  Conv("SAME");
  Attr("data_format", "NCDHW");
  EXPECT_INFER_ERROR("Invalid data format string: NCDHW",
                     "[1,5,5,3];[2,2,3,4]");
  Conv("SAME");
  Attr("filter_format", "XYZW");
  EXPECT_INFER_ERROR("Invalid filter format string: XYZW",
                     "[1,5,5,3];[2,2,3,4]");
  Conv("SAME");
  Attr("strides", std::vector<int64>{1, 5000000000LL, 1, 1});
  EXPECT_INFER_ERROR("out of range for an int32", "[1,5,5,3];[2,2,3,4]");
  Conv("SAME");
  Attr("strides", 4);
  EXPECT_THAT(Run("[1,5,5,3];[2,2,3,4]"), StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(CommonShapeFnsConvTest, ExplicitPadding) {
  Conv("EXPLICIT");
  Attr("explicit_paddings", std::vector<int64>{0, 0, 1, 1, 2, 2, 0, 0});
  EXPECT_EQ(Infer("[1,5,5,3];[2,2,3,4]"), "[1,6,8,4]");
  EXPECT_EQ(Infer("[1,?,5,3];[2,2,3,4]"), "[1,?,8,4]");
  Conv("EXPLICIT", {1, 1, 2, 2});
  Attr("data_format", "NCHW");
  Attr("explicit_paddings", std::vector<int64>{0, 0, 0, 0, 1, 0, 0, 1});
  EXPECT_EQ(Infer("[1,3,5,5];[2,2,3,4]"), "[1,4,3,3]");

  Conv("EXPLICIT");
  Attr("explicit_paddings", std::vector<int64>{0, 0, 1, 1});
  EXPECT_INFER_ERROR(
      "explicit_paddings attribute must contain 8 values, but got: 4",
      "[1,5,5,3];[2,2,3,4]");
  Conv("EXPLICIT");
  EXPECT_INFER_ERROR(
      "explicit_paddings attribute must contain 8 values, but got: 0",
      "[1,5,5,3];[2,2,3,4]");
  Conv("EXPLICIT");
  Attr("explicit_paddings", std::vector<int64>{0, 0, -1, 1, 0, 0, 0, 0});
  EXPECT_INFER_ERROR("must be nonnegative", "[1,5,5,3];[2,2,3,4]");
  Conv("EXPLICIT");
  Attr("explicit_paddings", std::vector<int64>{1, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_INFER_ERROR("Nonzero explicit padding in the batch or depth",
                     "[1,5,5,3];[2,2,3,4]");
  Conv("EXPLICIT");
  Attr("explicit_paddings", std::vector<int64>{0, 0, 0, 0, 0, 0, 0, 1});
  EXPECT_INFER_ERROR("Nonzero explicit padding in the batch or depth",
                     "[1,5,5,3];[2,2,3,4]");
  Conv("SAME");
  Attr("explicit_paddings", std::vector<int64>{0, 0, 1, 1, 2, 2, 0, 0});
  EXPECT_INFER_ERROR(
      "explicit_paddings attribute must be empty if the padding attribute is "
      "not EXPLICIT",
      "[1,5,5,3];[2,2,3,4]");
  Conv("EXPLICIT");
  Attr("explicit_paddings",
       std::vector<int64>{0, 0, std::numeric_limits<int64>::max(), 1, 0, 0, 0,
                          0});
  EXPECT_INFER_ERROR("overflow", "[1,5,5,3];[2,2,3,4]");
  Conv("EXPLICIT", {1, 1, 1, 1}, "Conv2DNoExplicit");
  EXPECT_INFER_ERROR("does not support EXPLICIT padding",
                     "[1,5,5,3];[2,2,3,4]");
  Conv("VALID", {1, 1, 1, 1}, "Conv2DNoExplicit");
  EXPECT_EQ(Infer("[1,5,5,3];[2,2,3,4]"), "[1,4,4,4]");
}

TEST_F(CommonShapeFnsConvTest, HugeDimensions) {
  Conv("SAME", {1, 2, 2, 1});
  EXPECT_INFER_ERROR("overflow", "[?,9223372036854775807,1,1];[1,1,1,1]");
  Conv("VALID", {1, 2, 2, 1});
  EXPECT_EQ(Infer("[?,9223372036854775807,1,1];[1,1,1,1]"),
            "[?,4611686018427387904,1,1]");
  Conv("VALID");
  Attr("dilations", std::vector<int32>{1, 2147483647, 1, 1});
  EXPECT_EQ(Infer("[?,9223372036854775807,1,1];[4294967298,1,1,1]"),
            "[?,2147483648,1,1]");
  EXPECT_INFER_ERROR("overflows int64",
                     "[?,9223372036854775807,1,1];[8589934592,1,1,1]");
}

TEST_F(CommonShapeFnsTest, MaxPoolWithExplicitPadding) {
  auto pool = [this](const std::string& padding,
                     std::vector<int64> explicit_paddings) {
    Op("MaxPoolExplicit");
    Attr("padding", padding);
    Attr("ksize", std::vector<int32>{1, 2, 2, 1});
    Attr("strides", std::vector<int32>{1, 2, 2, 1});
    Attr("explicit_paddings", explicit_paddings);
  };
  pool("EXPLICIT", {0, 0, 1, 1, 0, 2, 0, 0});
  EXPECT_EQ(Infer("[1,4,4,3]"), "[1,3,3,3]");
  EXPECT_EQ(Infer("[?,4,?,3]"), "[?,3,?,3]");
  pool("VALID", {});
  EXPECT_EQ(Infer("[1,4,4,3]"), "[1,2,2,3]");
  pool("EXPLICIT", {0, 0, 1, 1});
  EXPECT_INFER_ERROR(
      "explicit_paddings attribute must contain 8 values, but got: 4",
      "[1,4,4,3]");
  pool("EXPLICIT", {0, 0, 1, 1, -1, 0, 0, 0});
  EXPECT_INFER_ERROR("but element 4 is -1", "[1,4,4,3]");
  pool("EXPLICIT", {0, 0, 1, 1, 0, 0, 0, 1});
  EXPECT_INFER_ERROR("Nonzero explicit padding in the batch or depth",
                     "[1,4,4,3]");
  pool("SAME", {0, 0, 1, 1, 0, 0, 0, 0});
  EXPECT_INFER_ERROR("explicit_paddings attribute must be empty", "[1,4,4,3]");
  pool("EXPLICIT", {0, 0, std::numeric_limits<int64>::max(), 1, 0, 0, 0, 0});
  EXPECT_INFER_ERROR("overflow", "[1,4,4,3]");
  pool("EXPLICIT", {0, 0, 0, 0, 0, 0, 0, 0});
  Attr("data_format", "NCHW");
  Attr("ksize", std::vector<int32>{1, 1, 2, 2});
  Attr("strides", std::vector<int32>{1, 1, 2, 2});
  EXPECT_EQ(Infer("[1,3,4,6]"), "[1,3,2,3]");
}

TEST_F(CommonShapeFnsTest, FusedBatchNorm) {
  Op("FusedBatchNorm");
  Attr("is_training", false);
  EXPECT_EQ(Infer("[2,4,4,3];[3];[3];[3];[3]"), "[2,4,4,3];[3];[3];[3];[3]");
  EXPECT_EQ(Infer("[2,4,4,?];[?];[?];[?];[3]"), "[2,4,4,3];[3];[3];[3];[3]");
  EXPECT_EQ(Infer("?;?;?;?;?"), "[?,?,?,?];[?];[?];[?];[?]");
  EXPECT_INFER_ERROR("Shape must be rank 4 but is rank 2", "[2,3];[3];[3];[3];[3]");
  EXPECT_INFER_ERROR("Dimensions must be equal, but are 3 and 2",
                     "[2,4,4,3];[3];[3];[3];[2]");
  // Training (factor 1 by default) reads only scale and offset.
  Op("FusedBatchNorm");
  EXPECT_EQ(Infer("[2,4,4,3];[3];[3];[0];[0]"), "[2,4,4,3];[3];[3];[3];[3]");
  Op("FusedBatchNorm");
  Attr("data_format", "NCHW");
  EXPECT_EQ(Infer("[2,3,4,5];[?];[3];[3];[3]"), "[2,3,4,5];[3];[3];[3];[3]");
  Attr("data_format", "NDHWC");
  EXPECT_EQ(Infer("[2,3,4,5,6];[6];[6];[6];[6]"),
            "[2,3,4,5,6];[6];[6];[6];[6]");
  EXPECT_INFER_ERROR("Shape must be rank 5 but is rank 4",
                     "[2,3,4,5];[3];[3];[3];[3]");
  Attr("data_format", "NCDHW");
  EXPECT_EQ(Infer("[2,3,4,5,6];[3];[3];[3];[3]"),
            "[2,3,4,5,6];[3];[3];[3];[3]");
  Attr("data_format", "NCHW_VECT_C");
  EXPECT_INFER_ERROR("Invalid data format string: NCHW_VECT_C",
                     "[2,3,4,5];[3];[3];[3];[3]");
  Op("FusedBatchNormTooFewOutputs");
  EXPECT_INFER_ERROR("needs at least 5 inputs and 5 outputs",
                     "[2,4,4,3];[3];[3];[3];[3]");
}

TEST_F(CommonShapeFnsTest, FusedBatchNormV3) {
  Op("FusedBatchNormV3");
  Attr("U", DT_FLOAT);
  Attr("is_training", false);
  EXPECT_EQ(Infer("[2,4,4,3];[3];[3];[3];[3]"), "[2,4,4,3];[3];[3];[3];[3];?");
  // A running-average factor makes training read mean and variance too.
  Attr("is_training", true);
  Attr("exponential_avg_factor", 0.5f);
  EXPECT_INFER_ERROR("Dimensions must be equal, but are 3 and 0",
                     "[2,4,4,3];[3];[3];[0];[0]");
  Attr("exponential_avg_factor", 1.0f);
  EXPECT_EQ(Infer("[2,4,4,3];[3];[3];[0];[0]"), "[2,4,4,3];[3];[3];[3];[3];?");
}

TEST_F(CommonShapeFnsTest, FusedBatchNormGrad) {
  Op("FusedBatchNormGrad");
  EXPECT_EQ(Infer("[2,4,4,3];[2,4,4,3];[3];[3];[3]"),
            "[2,4,4,3];[3];[3];[0];[0]");
  EXPECT_EQ(Infer("[2,4,4,?];[2,4,4,?];[?];[?];[3]"),
            "[2,4,4,3];[3];[3];[0];[0]");
  EXPECT_INFER_ERROR("Dimensions must be equal, but are 3 and 4",
                     "[2,4,4,3];[2,4,4,4];[3];[3];[3]");
  EXPECT_INFER_ERROR("Shape must be rank 1 but is rank 0",
                     "[2,4,4,3];[2,4,4,3];[3];[];[3]");
  Attr("data_format", "NCHW");
  EXPECT_EQ(Infer("[2,3,4,4];?;[3];[3];[3]"), "[2,3,4,4];[3];[3];[0];[0]");
}

class CommonShapeFnsPoolTest : public CommonShapeFnsTest {
 protected:
  void Pool(const char* op, const std::string& padding,
            std::vector<int32> ksize, std::vector<int32> strides) {
    Op(op);
    Attr("padding", padding);
    Attr("ksize", ksize);
    Attr("strides", strides);
  }
};

TEST_F(CommonShapeFnsPoolTest, MaxPool) {
  Pool("MaxPool", "VALID", {1, 2, 2, 1}, {1, 2, 2, 1});
  EXPECT_EQ(Infer("[1,4,4,3]"), "[1,2,2,3]");
  EXPECT_EQ(Infer("[?,5,?,3]"), "[?,2,?,3]");
  EXPECT_EQ(Infer("?"), "[?,?,?,?]");
  EXPECT_INFER_ERROR("Shape must be rank 4 but is rank 3", "[1,4,4]");
  EXPECT_INFER_ERROR("Negative dimension size caused by subtracting 2 from 1",
                     "[1,1,4,3]");
  Pool("MaxPool", "SAME", {1, 3, 3, 1}, {1, 2, 2, 1});
  EXPECT_EQ(Infer("[1,5,5,3]"), "[1,3,3,3]");
  Pool("MaxPool", "VALID", {1, 1, 2, 2}, {1, 1, 2, 2});
  Attr("data_format", "NCHW");
  EXPECT_EQ(Infer("[1,3,4,4]"), "[1,3,2,2]");
  // Pooling across channels.
  Pool("MaxPool", "VALID", {1, 1, 1, 3}, {1, 1, 1, 3});
  EXPECT_EQ(Infer("[1,4,4,6]"), "[1,4,4,2]");

  Pool("MaxPool", "VALID", {1, 2, 2, 1}, {1, 2, 2});
  EXPECT_INFER_ERROR(
      "MaxPool requires the stride attribute to contain 4 values, but got: 3",
      "[1,4,4,3]");
  Pool("MaxPool", "VALID", {1, 2, 2}, {1, 2, 2, 1});
  EXPECT_INFER_ERROR(
      "MaxPool requires the ksize attribute to contain 4 values, but got: 3",
      "[1,4,4,3]");
  Pool("MaxPool", "VALID", {1, 0, 2, 1}, {1, 2, 2, 1});
  EXPECT_INFER_ERROR("MaxPool requires ksize values to be >= 1", "[1,4,4,3]");
  Pool("MaxPool", "VALID", {1, 2, 2, 1}, {1, 0, 2, 1});
  EXPECT_INFER_ERROR("Stride must be > 0, but got 0", "[1,4,4,3]");
  Pool("MaxPool", "EXPLICIT", {1, 2, 2, 1}, {1, 2, 2, 1});
  EXPECT_INFER_ERROR("MaxPool does not support EXPLICIT padding", "[1,4,4,3]");
  Pool("MaxPool", "same", {1, 2, 2, 1}, {1, 2, 2, 1});
  EXPECT_INFER_ERROR("same is not an allowed padding type", "[1,4,4,3]");
  Pool("MaxPool", "SAME", {1, 2, 2, 1}, {1, 2, 2, 1});
  Attr("data_format", "NCHW_VECT_C");
  EXPECT_INFER_ERROR("Invalid data format string: NCHW_VECT_C", "[1,4,4,3]");
}

TEST_F(CommonShapeFnsPoolTest, AvgPool) {
  Pool("AvgPool", "VALID", {1, 2, 2, 1}, {1, 2, 2, 1});
  EXPECT_EQ(Infer("[1,4,4,3]"), "[1,2,2,3]");
  Pool("AvgPool", "SAME", {1, 3, 3, 1}, {1, 1, 1, 1});
  EXPECT_EQ(Infer("[?,5,5,?]"), "[?,5,5,?]");
  // AvgPool does not pool across channels.
  Pool("AvgPool", "VALID", {1, 1, 1, 3}, {1, 1, 1, 3});
  EXPECT_EQ(Infer("[1,4,4,6]"), "[1,4,4,6]");
  Pool("AvgPool", "VALID", {1, 1, 2, 2}, {1, 1, 2, 2});
  Attr("data_format", "NCHW");
  EXPECT_EQ(Infer("[1,3,4,4]"), "[1,3,2,2]");
  Pool("AvgPool", "VALID", {1, 2, 2, 1}, {1, 2, 2, 1, 1});
  EXPECT_INFER_ERROR(
      "AvgPool requires the stride attribute to contain 4 values, but got: 5",
      "[1,4,4,3]");
  Pool("AvgPool", "VALID", {1, 2, 2, 1, 1}, {1, 2, 2, 1});
  EXPECT_INFER_ERROR(
      "AvgPool requires the ksize attribute to contain 4 values, but got: 5",
      "[1,4,4,3]");
  Pool("AvgPool", "VALID", {1, -2, 2, 1}, {1, 2, 2, 1});
  EXPECT_INFER_ERROR("AvgPool requires ksize values to be >= 1", "[1,4,4,3]");
}

TEST_F(CommonShapeFnsTest, WindowedOutputSizeDirect) {
  Op("Identity");
  InferenceContext c(0, AttrSlice(node_), reg_->op_def,
                     std::vector<PartialTensorShape>{PartialTensorShape({7})},
                     {nullptr});
  OPKIT_ASSERT_OK(c.construction_status());
  DimensionHandle in = c.Dim(c.input(0), 0);
  DimensionHandle out;
  EXPECT_THAT(GetWindowedOutputSizeFromDims(&c, in, 2, 1, Padding::EXPLICIT,
                                            &out),
              StatusIs(error::INTERNAL));
  OPKIT_ASSERT_OK(
      GetWindowedOutputSizeFromDims(&c, in, 3, 2, Padding::VALID, &out));
  EXPECT_EQ(c.Value(out), 3);
  OPKIT_ASSERT_OK(GetWindowedOutputSizeFromDims(&c, in, c.UnknownDim(), 2,
                                                Padding::VALID, &out));
  EXPECT_FALSE(c.ValueKnown(out));
  OPKIT_ASSERT_OK(GetWindowedOutputSizeFromDimsV2(
      &c, in, c.MakeDim(3), 3, 1, Padding::EXPLICIT, 2, 1, &out));
  EXPECT_EQ(c.Value(out), 4);  // 7 + 2 + 1 padded, window 7 when dilated
  EXPECT_THAT(GetWindowedOutputSizeFromDimsV2(&c, in, 3, 1, 1,
                                              Padding::EXPLICIT, -1, 0, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("nonnegative")));
  EXPECT_THAT(
      GetWindowedOutputSizeFromDims(&c, in, -2, 1, Padding::VALID, &out),
      StatusIs(error::INVALID_ARGUMENT, HasSubstr("Window size must be >= 0")));
  Padding p;
  EXPECT_THAT(GetPaddingFromString("valid", &p),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("valid is not an allowed padding type")));
  OPKIT_ASSERT_OK(GetPaddingFromString("EXPLICIT", &p));
  EXPECT_EQ(p, Padding::EXPLICIT);
}

TEST_F(CommonShapeFnsTest, Reshape) {
  Op("Reshape");
  EXPECT_EQ(Infer("[2,3];[2]"), "[?,?]");
  EXPECT_EQ(Infer("[2,3];?"), "?");
  EXPECT_EQ(Infer("?;[2]"), "[?,?]");
  Op("Reshape");
  Const(1, Int32s({3, 2}));
  EXPECT_EQ(Infer("[2,3];[2]"), "[3,2]");
  EXPECT_EQ(Infer("?;[2]"), "[3,2]");
  EXPECT_EQ(Infer("[?,2];[2]"), "[3,2]");
  EXPECT_INFER_ERROR(
      "Cannot reshape a tensor with 8 elements to shape [3,2] (6 elements)",
      "[2,4];[2]");
  EXPECT_INFER_ERROR("Dimension size must be evenly divisible by 4 but is 6",
                     "[?,4];[2]");
  Op("Reshape");
  Const(1, Int32s({-1}));
  EXPECT_EQ(Infer("[2,3];[1]"), "[6]");
  EXPECT_EQ(Infer("[2,?];[1]"), "[?]");
  EXPECT_EQ(Infer("?;[1]"), "[?]");
  Op("Reshape");
  Const(1, Int64s({-1, 2}));
  EXPECT_EQ(Infer("[2,3];[2]"), "[3,2]");
  EXPECT_EQ(Infer("[3,?];[2]"), "[?,2]");
  EXPECT_INFER_ERROR("Dimension size must be evenly divisible by 2 but is 7",
                     "[7];[2]");
  EXPECT_EQ(Infer("[0,3];[2]"), "[0,2]");
  Op("Reshape");
  Const(1, Int32s({3, -1}));
  EXPECT_EQ(Infer("[?,3];[2]"), "[3,?]");
  EXPECT_TRUE(ctx_->Dim(ctx_->output(0), 1).SameHandle(
      ctx_->Dim(ctx_->input(0), 0)));
  Op("Reshape");
  Const(1, Int32s({-1, 0}));
  EXPECT_EQ(Infer("[0,3];[2]"), "[?,0]");
  Op("Reshape");
  Const(1, Int32s({-1, -1}));
  EXPECT_EQ(Infer("[2,3];[2]"), "[?,?]");
  Op("Reshape");
  Const(1, Int32s({4}));
  EXPECT_INFER_ERROR(
      "Cannot reshape a tensor with 6 elements to shape [4] (4 elements)",
      "[2,3];[1]");
  Op("Reshape");
  Const(1, Int32s({-2, 3}));
  EXPECT_FALSE(Run("[2,3];[2]").ok());
  Op("Reshape");
  Const(1, Int64s({4294967296LL, 4294967296LL, 4}));
  EXPECT_FALSE(Run("[2,3];[3]").ok());
}

TEST_F(CommonShapeFnsTest, Transpose) {
  Op("Transpose");
  EXPECT_EQ(Infer("[2,3];[2]"), "[?,?]");
  EXPECT_EQ(Infer("?;[3]"), "[?,?,?]");
  EXPECT_EQ(Infer("?;?"), "?");
  EXPECT_EQ(Infer("?;[1]"), "?");
  EXPECT_EQ(Infer("[2,3];?"), "[?,?]");
  EXPECT_INFER_ERROR("Dimension must be 2 but is 3", "[2,3];[3]");
  EXPECT_INFER_ERROR("Shape must be rank 1 but is rank 2", "[2,3];[2,1]");
  EXPECT_INFER_ERROR("the maximum rank is 254", "?;[1000000000]");
  Op("Transpose");
  Const(1, Int32s({1, 0}));
  EXPECT_EQ(Infer("[2,3];[2]"), "[3,2]");
  EXPECT_EQ(Infer("?;[2]"), "[?,?]");
  EXPECT_EQ(Infer("[2,?];?"), "[?,2]");
  Op("Transpose");
  Const(1, Int64s({2, 0, 1}));
  EXPECT_EQ(Infer("[2,3,4];[3]"), "[4,2,3]");
  Op("Transpose");
  Const(1, Int32s({2, 0}));
  EXPECT_INFER_ERROR("perm dim 2 is out of range of input rank 2",
                     "[2,3];[2]");
  Op("Transpose");
  Const(1, Int32s({-1, 0}));
  EXPECT_INFER_ERROR("perm dim -1 is out of range of input rank 2",
                     "[2,3];[2]");
  Op("Transpose");
  Const(1, Int32s({0, 1, 2}));
  EXPECT_INFER_ERROR("perm must have 2 elements, but has 3", "[2,3];?");
  Op("Transpose");
  Attr("Tperm", DT_FLOAT);
  Tensor f(DT_FLOAT, TensorShape({2}));
  f.flat<float>()(0) = 1;
  f.flat<float>()(1) = 0;
  Const(1, f);
  EXPECT_INFER_ERROR("perm must be int32 or int64", "[2,3];[2]");
}

// The same functions through the INFER_OK / INFER_ERROR syntax, which also
// checks that input handles flow to the outputs (what lets later shape
// functions know two unknown dimensions are equal).
ShapeInferenceTestOp TestOp(const char* name) {
  ShapeInferenceTestOp op(name);
  op.registry = &TestOps();
  return op;
}

TEST(CommonShapeFnsHandlesTest, UnchangedAndMatMul) {
  ShapeInferenceTestOp op = TestOp("Identity");
  INFER_OK(op, "[1,?]", "in0");
  INFER_OK(op, "?", "in0");
  op = TestOp("Rank2");
  INFER_OK(op, "[1,?]", "in0");
  INFER_OK(op, "?", "[?,?]");
  INFER_ERROR("Shape must be rank 2 but is rank 1", op, "[1]");

  op = TestOp("MatMul");
  INFER_OK(op, "[1,?];[?,2]", "[d0_0,d1_1]");
  INFER_OK(op, "?;?", "[?,?]");
  INFER_ERROR("Shape must be rank 2 but is rank 1", op, "[1];[2,3]");
  INFER_ERROR("Dimensions must be equal, but are 2 and 3", op, "[1,2];[3,4]");
  AddNodeAttr("transpose_a", true, &op.node_def);
  INFER_OK(op, "[?,1];[?,2]", "[d0_1,d1_1]");

  op = TestOp("BatchMatMulV2");
  INFER_OK(op, "[?,3,4];[7,4,5]", "[d1_0,d0_1,d1_2]");
  INFER_OK(op, "[1,3,4];[?,4,5]", "[d1_0,d0_1,d1_2]");
}

TEST(CommonShapeFnsHandlesTest, BiasAddAndBroadcast) {
  ShapeInferenceTestOp op = TestOp("BiasAdd");
  INFER_OK(op, "[2,?];[3]", "[d0_0,d1_0]");
  INFER_OK(op, "[2,3];[?]", "[d0_0,d0_1]");
  INFER_OK(op, "?;[3]", "?");
  op = TestOp("BiasAddGrad");
  INFER_OK(op, "[2,?,4]", "[d0_2]");

  op = TestOp("AddV2");
  INFER_OK(op, "[?,1];[1,?]", "[d0_0,d1_1]");
  INFER_OK(op, "[2];[?]", "[d0_0]");
  INFER_OK(op, "[1];[?]", "[d1_0]");
  INFER_OK(op, "[?];[?]", "[?]");
  INFER_OK(op, "[5,1];[3]", "[d0_0,d1_0]");
  INFER_OK(op, "?;[3]", "?");
  INFER_ERROR("Dimensions must be equal, but are 2 and 3", op, "[2];[3]");
}

TEST(CommonShapeFnsHandlesTest, ConstantInputs) {
  Tensor axis0(int32{0});
  Tensor axes1 = Int32s({1});
  Tensor perm = Int32s({1, 0});
  Tensor new_shape = Int32s({3, -1});

  ShapeInferenceTestOp op = TestOp("ConcatV2");
  AddNodeAttr("N", 2, &op.node_def);
  op.input_tensors = {nullptr, nullptr, &axis0};
  INFER_OK(op, "[2,3];[4,?];[]", "[6,d0_1]");
  INFER_ERROR("Shape must be at least rank 1 but is rank 0", op, "[];[];[]");

  op = TestOp("Sum");
  op.input_tensors = {nullptr, &axes1};
  INFER_OK(op, "[2,3,4];[1]", "[d0_0,d0_2]");
  AddNodeAttr("keep_dims", true, &op.node_def);
  INFER_OK(op, "[2,3,4];[1]", "[d0_0,1,d0_2]");

  op = TestOp("Transpose");
  op.input_tensors = {nullptr, &perm};
  INFER_OK(op, "[?,?];[2]", "[d0_1,d0_0]");
  INFER_ERROR("Dimension must be 3 but is 2", op, "[1,2,3];[2]");

  op = TestOp("Reshape");
  op.input_tensors = {nullptr, &new_shape};
  INFER_OK(op, "[?,3];[2]", "[3,d0_0]");
  INFER_OK(op, "[2,3];[2]", "[3,2]");
}

TEST(CommonShapeFnsHandlesTest, ConvAndPool) {
  ShapeInferenceTestOp op = TestOp("Conv2D");
  AddNodeAttr("padding", "VALID", &op.node_def);
  AddNodeAttr("strides", std::vector<int32>{1, 1, 1, 1}, &op.node_def);
  INFER_OK(op, "[?,5,5,3];[2,2,3,?]", "[d0_0,4,4,d1_3]");
  INFER_ERROR("Negative dimension size caused by subtracting 3 from 2", op,
              "[1,2,2,3];[3,3,3,4]");

  op = TestOp("AvgPool");
  AddNodeAttr("padding", "VALID", &op.node_def);
  AddNodeAttr("ksize", std::vector<int32>{1, 2, 2, 1}, &op.node_def);
  AddNodeAttr("strides", std::vector<int32>{1, 2, 2, 1}, &op.node_def);
  INFER_OK(op, "[?,4,4,?]", "[d0_0,2,2,d0_3]");
  op.name = "MaxPool";
  op.node_def.set_op("MaxPool");
  // A depth window of 1 at stride 1 keeps the input's depth handle, as
  // TensorFlow's dimension arithmetic does.
  INFER_OK(op, "[?,4,4,3]", "[d0_0,2,2,d0_3]");
  AddNodeAttr("padding", "SAME", &op.node_def);
  AddNodeAttr("strides", std::vector<int32>{1, 1, 1, 1}, &op.node_def);
  INFER_OK(op, "[?,4,?,3]", "[d0_0,d0_1,d0_2,d0_3]");
}

}  // namespace
}  // namespace shape_inference
}  // namespace opkit

// Test-only: the CommonShapeFnsTest fixture and the helpers the
// common/nn/array shape-function tests share: a test-local OpRegistry
// holding ops declared with TensorFlow's spec strings, and shapes written in
// TensorFlow's test syntax ("[2,?];?" is a matrix with an unknown column
// count followed by a shape of unknown rank).
#ifndef OPKIT_SHAPE_TESTING_COMMON_SHAPE_FNS_TEST_FIXTURE_H_
#define OPKIT_SHAPE_TESTING_COMMON_SHAPE_FNS_TEST_FIXTURE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/errors.h"
#include "opkit/core/logging.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/op/op_registry.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/shape/shape_inference.h"
#include "opkit/shape/shape_inference_testutil.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace shape_inference {
namespace shape_test {

// Finalizes `b` and registers it in `r`; a bad declaration is a test bug.
inline void AddTestOp(OpRegistry* r, OpDefBuilder b) {
  OpRegistrationData data;
  OPKIT_CHECK(b.Finalize(&data).ok());
  OPKIT_CHECK(r->Register(std::move(data)).ok());
}

// A ShapeInferenceTestOp (INFER_OK / INFER_ERROR) for op `name` of `r`.
inline ShapeInferenceTestOp TestOpIn(const OpRegistry& r, const char* name) {
  ShapeInferenceTestOp op(name);
  op.registry = &r;
  return op;
}

// Registers the ops the tests run, each with TensorFlow's declaration.
inline const OpRegistry& TestOps() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry;
    auto add = [r](OpDefBuilder b) { AddTestOp(r, std::move(b)); };
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
inline std::vector<PartialTensorShape> ParseShapes(const std::string& spec) {
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

inline Tensor Int32s(const std::vector<int32>& v) {
  Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.flat<int32>()(i) = v[i];
  return t;
}
inline Tensor Int64s(const std::vector<int64>& v) {
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

// In a CommonShapeFnsTest: running the shape function on `shapes` fails
// with InvalidArgument containing `substr`.
#define EXPECT_INFER_ERROR(substr, shapes)                         \
  EXPECT_THAT(Run(shapes),                                         \
              ::opkit::testing::StatusIs(::opkit::error::INVALID_ARGUMENT, \
                                         ::testing::HasSubstr(substr)))

}  // namespace shape_test
}  // namespace shape_inference
}  // namespace opkit

#endif  // OPKIT_SHAPE_TESTING_COMMON_SHAPE_FNS_TEST_FIXTURE_H_

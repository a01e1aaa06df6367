// Loads examples/zero_out (TensorFlow-style sources built against compat/)
// and runs every ZeroOut variant eagerly, checking exact outputs, every
// error path of the guide's checks, and the shape functions.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/op/op_registry.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/runtime/library.h"
#include "opkit/shape/shape_inference_testutil.h"
#include "opkit/testing/status_matchers.h"
#include "tests/examples/example_test_util.h"

#ifndef ZERO_OUT_LIB
#error "ZERO_OUT_LIB must name the built zero_out library"
#endif

namespace opkit {
namespace {

using ::opkit::examples_test::AsTensor;
using ::opkit::examples_test::Attr;
using ::opkit::examples_test::OpNames;
using ::opkit::examples_test::Values;
using ::opkit::shape_inference::ShapeInferenceTestOp;
using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class ZeroOutTest : public examples_test::OpLibraryTest {
 protected:
  ZeroOutTest() : OpLibraryTest(ZERO_OUT_LIB) {}

  // Runs `op` and returns its only output (an empty tensor on error).
  Tensor RunOne(const std::string& op, const std::vector<Tensor>& inputs,
                const EagerAttrs& attrs = {}) {
    std::vector<Tensor> out;
    Status s = ctx_->Run(op, inputs, attrs, &out);
    EXPECT_THAT(s, IsOk()) << op;
    if (!s.ok()) return Tensor();
    EXPECT_EQ(out.size(), 1u) << op;
    return out.empty() ? Tensor() : out[0];
  }
};

TEST_F(ZeroOutTest, LibraryRegistersEveryVariant) {
  EXPECT_TRUE(library_.loaded());
  EXPECT_THAT(OpNames(library_),
              ElementsAre("ZeroOut", "ZeroOutFloatInt", "ZeroOutMacro",
                          "ZeroOutMerged", "ZeroOutPreserveIndex",
                          "ZeroOutRealNumber", "ZeroOutRows",
                          "ZeroOutTemplated", "ZeroOutVector"));
  // 1 + 1 + 1 + 2 (float, int32) + 3 + 3 + 12 real number types + 2 + 1.
  EXPECT_EQ(library_.kernel_list().kernel_size(), 26);
  for (const KernelDef& k : library_.kernel_list().kernel()) {
    EXPECT_EQ(k.device_type(), "CPU") << k.ShortDebugString();
  }
  // Loading the same file again hands back the same library.
  StatusOr<OpLibrary> again = LoadOpLibrary(ZERO_OUT_LIB);
  ASSERT_THAT(again.status(), IsOk());
  EXPECT_TRUE(again.value() == library_);
}

TEST_F(ZeroOutTest, OpDefIsTheGuides) {
  const OpDef* def = nullptr;
  ASSERT_THAT(OpRegistry::Global()->LookUpOpDef("ZeroOut", &def), IsOk());
  ASSERT_EQ(def->input_arg_size(), 1);
  EXPECT_EQ(def->input_arg(0).name(), "to_zero");
  EXPECT_EQ(def->input_arg(0).type(), DT_INT32);
  ASSERT_EQ(def->output_arg_size(), 1);
  EXPECT_EQ(def->output_arg(0).name(), "zeroed");
  EXPECT_EQ(def->output_arg(0).type(), DT_INT32);
  EXPECT_EQ(def->attr_size(), 0);
}

TEST_F(ZeroOutTest, ZeroOutKeepsTheFirstElement) {
  // The guide's Python examples.
  Tensor out = RunOne("ZeroOut", {AsTensor<int32>({1, 2, 3, 4}, {2, 2})});
  EXPECT_EQ(out.shape(), TensorShape({2, 2}));
  EXPECT_THAT(Values<int32>(out), ElementsAre(1, 0, 0, 0));
  out = RunOne("ZeroOut", {AsTensor<int32>({5, 4, 3, 2, 1})});
  EXPECT_THAT(Values<int32>(out), ElementsAre(5, 0, 0, 0, 0));
  out = RunOne("ZeroOut", {AsTensor<int32>({}, {0})});
  EXPECT_EQ(out.shape(), TensorShape({0}));
  out = RunOne("ZeroOut", {Tensor(int32{-9})});
  EXPECT_EQ(out.shape(), TensorShape({}));
  EXPECT_THAT(Values<int32>(out), ElementsAre(-9));
}

TEST_F(ZeroOutTest, ZeroOutRejectsOtherTypes) {
  EXPECT_THAT(RunStatus("ZeroOut", {AsTensor<float>({1.0f})}),
              StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(RunStatus("ZeroOut", {}), StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(ZeroOutTest, PreserveIndexKeepsTheChosenElement) {
  Tensor out = RunOne("ZeroOutPreserveIndex", {AsTensor<int32>({5, 4, 3})},
                      {{"preserve_index", Attr(1)}});
  EXPECT_THAT(Values<int32>(out), ElementsAre(0, 4, 0));
  out = RunOne("ZeroOutPreserveIndex", {AsTensor<int32>({5, 4, 3})},
               {{"preserve_index", Attr(0)}});
  EXPECT_THAT(Values<int32>(out), ElementsAre(5, 0, 0));
  // The index counts elements of the flattened input.
  out = RunOne("ZeroOutPreserveIndex", {AsTensor<int32>({1, 2, 3, 4}, {2, 2})},
               {{"preserve_index", Attr(3)}});
  EXPECT_THAT(Values<int32>(out), ElementsAre(0, 0, 0, 4));
}

TEST_F(ZeroOutTest, PreserveIndexCheckedInConstructor) {
  EXPECT_THAT(RunStatus("ZeroOutPreserveIndex", {AsTensor<int32>({5, 4, 3})},
                        {{"preserve_index", Attr(-1)}}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Need preserve_index >= 0, got -1")));
  // An attr value that does not fit the kernel's int.
  EXPECT_THAT(RunStatus("ZeroOutPreserveIndex", {AsTensor<int32>({5})},
                        {{"preserve_index", Attr(int64{1} << 40)}}),
              StatusIs(error::INVALID_ARGUMENT));
  // No default: the attr must be given.
  EXPECT_THAT(RunStatus("ZeroOutPreserveIndex", {AsTensor<int32>({5})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("preserve_index")));
  EXPECT_THAT(RunStatus("ZeroOutPreserveIndex", {AsTensor<int32>({5})},
                        {{"preserve_index", Attr("one")}}),
              StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(ZeroOutTest, PreserveIndexCheckedInCompute) {
  EXPECT_THAT(RunStatus("ZeroOutPreserveIndex", {AsTensor<int32>({5, 4, 3})},
                        {{"preserve_index", Attr(3)}}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("preserve_index out of range")));
  EXPECT_THAT(RunStatus("ZeroOutPreserveIndex", {AsTensor<int32>({}, {0})},
                        {{"preserve_index", Attr(0)}}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("preserve_index out of range")));
}

TEST_F(ZeroOutTest, VectorOnly) {
  Tensor out = RunOne("ZeroOutVector", {AsTensor<int32>({7, 8, 9})});
  EXPECT_THAT(Values<int32>(out), ElementsAre(7, 0, 0));
  EXPECT_THAT(RunStatus("ZeroOutVector", {AsTensor<int32>({1, 2}, {1, 2})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("ZeroOut expects a 1-D vector.")));
  EXPECT_THAT(RunStatus("ZeroOutVector", {Tensor(int32{3})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("ZeroOut expects a 1-D vector.")));
}

TEST_F(ZeroOutTest, FloatIntPicksTheKernelClassOfTheType) {
  Tensor out = RunOne("ZeroOutFloatInt", {AsTensor<float>({1.5f, 2.5f})});
  EXPECT_THAT(Values<float>(out), ElementsAre(1.5f, 0.0f));
  out = RunOne("ZeroOutFloatInt", {AsTensor<int32>({3, 4})});
  EXPECT_THAT(Values<int32>(out), ElementsAre(3, 0));

  auto f = ctx_->Prepare("ZeroOutFloatInt", {DT_FLOAT});
  ASSERT_THAT(f.status(), IsOk());
  EXPECT_EQ(f.value()->kernel_class_name(), "ZeroOutFloatOp");
  auto i = ctx_->Prepare("ZeroOutFloatInt", {DT_INT32});
  ASSERT_THAT(i.status(), IsOk());
  EXPECT_EQ(i.value()->kernel_class_name(), "ZeroOutInt32Op");

  // T defaults to int32 in the OpDef; double is outside {float, int32}.
  const OpDef* def = nullptr;
  ASSERT_THAT(OpRegistry::Global()->LookUpOpDef("ZeroOutFloatInt", &def),
              IsOk());
  ASSERT_EQ(def->attr_size(), 1);
  EXPECT_EQ(def->attr(0).default_value().type(), DT_INT32);
  EXPECT_THAT(RunStatus("ZeroOutFloatInt", {AsTensor<double>({1.0})}),
              StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(ZeroOutTest, TemplatedAndMacroRegistrations) {
  for (const char* op : {"ZeroOutTemplated", "ZeroOutMacro"}) {
    SCOPED_TRACE(op);
    EXPECT_THAT(Values<double>(RunOne(op, {AsTensor<double>({3.5, 1.0})})),
                ElementsAre(3.5, 0.0));
    EXPECT_THAT(Values<float>(RunOne(op, {AsTensor<float>({-1.0f, 2.0f})})),
                ElementsAre(-1.0f, 0.0f));
    EXPECT_THAT(Values<int32>(RunOne(op, {AsTensor<int32>({8, 9, 10})})),
                ElementsAre(8, 0, 0));
    EXPECT_THAT(RunStatus(op, {AsTensor<int64>({1})}),
                StatusIs(error::INVALID_ARGUMENT));
    auto prepared = ctx_->Prepare(op, {DT_DOUBLE});
    ASSERT_THAT(prepared.status(), IsOk());
    EXPECT_EQ(prepared.value()->kernel_class_name(), "ZeroOutOp<double>");
  }
}

template <typename T>
void ExpectRealNumberZeroOut(EagerContext* ctx) {
  SCOPED_TRACE(DataTypeString(DataTypeToEnum<T>::v()));
  Tensor x = AsTensor<T>({T(7), T(8), T(9)});
  std::vector<Tensor> out;
  ASSERT_THAT(ctx->Run("ZeroOutRealNumber", {x}, &out), IsOk());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dtype(), DataTypeToEnum<T>::v());
  std::vector<T> values = Values<T>(out[0]);
  ASSERT_EQ(values.size(), 3u);
  EXPECT_TRUE(values[0] == T(7));
  EXPECT_TRUE(values[1] == T(0));
  EXPECT_TRUE(values[2] == T(0));
}

TEST_F(ZeroOutTest, RealNumberTypesThroughTfCall) {
  ExpectRealNumberZeroOut<float>(ctx_.get());
  ExpectRealNumberZeroOut<double>(ctx_.get());
  ExpectRealNumberZeroOut<int32>(ctx_.get());
  ExpectRealNumberZeroOut<uint8>(ctx_.get());
  ExpectRealNumberZeroOut<int16>(ctx_.get());
  ExpectRealNumberZeroOut<int8>(ctx_.get());
  ExpectRealNumberZeroOut<int64>(ctx_.get());
  ExpectRealNumberZeroOut<bfloat16>(ctx_.get());
  ExpectRealNumberZeroOut<uint16>(ctx_.get());
  ExpectRealNumberZeroOut<half>(ctx_.get());
  ExpectRealNumberZeroOut<uint32>(ctx_.get());
  ExpectRealNumberZeroOut<uint64>(ctx_.get());
  // realnumbertype excludes bool, complex and string.
  EXPECT_THAT(RunStatus("ZeroOutRealNumber", {Tensor(true)}),
              StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(RunStatus("ZeroOutRealNumber", {Tensor(complex64(1, 2))}),
              StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(RunStatus("ZeroOutRealNumber", {Tensor("text")}),
              StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(ZeroOutTest, MergedChecksItsInputs) {
  Tensor out = RunOne("ZeroOutMerged", {AsTensor<int32>({1, 2}, {1, 2}),
                                        AsTensor<int32>({3, 4}, {1, 2})});
  EXPECT_EQ(out.shape(), TensorShape({1, 2}));
  EXPECT_THAT(Values<int32>(out), ElementsAre(1, 0));
  out = RunOne("ZeroOutMerged", {AsTensor<float>({2.5f, 1, 1, 1}, {2, 2})});
  EXPECT_THAT(Values<float>(out), ElementsAre(2.5f, 0, 0, 0));
  EXPECT_THAT(RunStatus("ZeroOutMerged", {AsTensor<int32>({1, 2}, {1, 2}),
                                          AsTensor<int32>({3, 4}, {2, 1})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("expects inputs of one shape, input 1 has "
                                 "shape [2,1] and input 0 [1,2]")));
  EXPECT_THAT(RunStatus("ZeroOutMerged", {AsTensor<int32>({1, 2})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("expects matrices, input 0 has shape [2]")));
  // Mixed types break `N * T`.
  EXPECT_THAT(RunStatus("ZeroOutMerged", {AsTensor<int32>({1}, {1, 1}),
                                          AsTensor<float>({1}, {1, 1})}),
              StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(ZeroOutTest, RowsMakesNBy3) {
  Tensor out = RunOne("ZeroOutRows", {AsTensor<int32>({1, 2, 3, 4}, {2, 2})});
  EXPECT_EQ(out.shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values<int32>(out), ElementsAre(1, 0, 0, 3, 0, 0));
  out = RunOne("ZeroOutRows", {AsTensor<int32>({5, 6})});
  EXPECT_THAT(Values<int32>(out), ElementsAre(5, 0, 0, 6, 0, 0));
  out = RunOne("ZeroOutRows", {AsTensor<int32>({}, {2, 0})});
  EXPECT_EQ(out.shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values<int32>(out), ElementsAre(0, 0, 0, 0, 0, 0));
  out = RunOne("ZeroOutRows", {AsTensor<int32>({}, {0, 4})});
  EXPECT_EQ(out.shape(), TensorShape({0, 3}));
  EXPECT_THAT(RunStatus("ZeroOutRows", {Tensor(int32{1})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("expects at least a vector, got shape []")));
}

TEST_F(ZeroOutTest, ShapeFunctions) {
  ShapeInferenceTestOp zero_out("ZeroOut");
  INFER_OK(zero_out, "[10,20]", "in0");
  INFER_OK(zero_out, "?", "in0");

  ShapeInferenceTestOp unchanged("ZeroOutRealNumber");
  AddNodeAttr("T", DT_FLOAT, &unchanged.node_def);
  INFER_OK(unchanged, "[2,?,4]", "in0");

  ShapeInferenceTestOp vector("ZeroOutVector");
  INFER_OK(vector, "[5]", "in0");
  INFER_OK(vector, "?", "[?]");
  INFER_ERROR("Shape must be rank 1 but is rank 2", vector, "[1,2]");
  INFER_ERROR("Shape must be rank 1 but is rank 0", vector, "[]");

  ShapeInferenceTestOp merged("ZeroOutMerged");
  AddNodeAttr("N", 2, &merged.node_def);
  AddNodeAttr("T", DT_INT32, &merged.node_def);
  INFER_OK(merged, "[2,?];[?,3]", "[d0_0,d1_1]");
  INFER_OK(merged, "?;?", "[?,?]");
  INFER_ERROR("Shape must be rank 2 but is rank 3", merged, "[2,3];[2,3,4]");
  INFER_ERROR("Dimension 1 in both shapes must be equal", merged,
              "[2,3];[2,4]");

  ShapeInferenceTestOp rows("ZeroOutRows");
  INFER_OK(rows, "[7,2]", "[d0_0,3]");
  INFER_OK(rows, "?", "[?,3]");
}

}  // namespace
}  // namespace opkit

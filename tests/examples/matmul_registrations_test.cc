// Loads examples/matmul_registrations (MatMul's registrations from
// shared/seeds/001 on an op named ExampleMatMul) and checks that the
// unlabelled kernel is the default, that a node's `_kernel` attr selects the
// "eigen" one, that the GPU-only "cublas" label finds nothing on CPU, and
// that both compute the product.
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/runtime/library.h"
#include "opkit/testing/status_matchers.h"
#include "tests/examples/example_test_util.h"

#ifndef MATMUL_REGISTRATIONS_LIB
#error "MATMUL_REGISTRATIONS_LIB must name the built matmul_registrations library"
#endif

namespace opkit {
namespace {

using ::opkit::examples_test::AsTensor;
using ::opkit::examples_test::Attr;
using ::opkit::examples_test::OpNames;
using ::opkit::examples_test::Values;
using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class MatMulRegistrationsTest : public examples_test::OpLibraryTest {
 protected:
  MatMulRegistrationsTest() : OpLibraryTest(MATMUL_REGISTRATIONS_LIB) {}
};

TEST_F(MatMulRegistrationsTest, UnlabelledAndEigenKernelsPerType) {
  EXPECT_THAT(OpNames(library_), ElementsAre("ExampleMatMul"));
  std::set<std::pair<std::string, DataType>> kernels;
  for (const KernelDef& k : library_.kernel_list().kernel()) {
    EXPECT_EQ(k.device_type(), "CPU");  // the GPU source is not built
    EXPECT_EQ(k.priority(), 0);
    ASSERT_EQ(k.constraint_size(), 1);
    kernels.insert({k.label(), k.constraint(0).allowed_values().list().type(0)});
  }
  EXPECT_EQ(kernels, (std::set<std::pair<std::string, DataType>>{
                         {"", DT_FLOAT}, {"eigen", DT_FLOAT},
                         {"", DT_DOUBLE}, {"eigen", DT_DOUBLE},
                         {"", DT_INT32}, {"eigen", DT_INT32}}));
  EXPECT_EQ(library_.kernel_list().kernel_size(), 6);
}

TEST_F(MatMulRegistrationsTest, ComputesTheProduct) {
  Tensor a = AsTensor<float>({1, 2, 3, 4}, {2, 2});
  Tensor b = AsTensor<float>({5, 6}, {2, 1});
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("ExampleMatMul", {a, b}, &out), IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({2, 1}));
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(17, 39));

  // a^T * a = [[10, 14], [14, 20]]; a * a^T = [[5, 11], [11, 25]].
  ASSERT_THAT(ctx_->Run("ExampleMatMul", {a, a}, {{"transpose_a", Attr(true)}},
                        &out),
              IsOk());
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(10, 14, 14, 20));
  ASSERT_THAT(ctx_->Run("ExampleMatMul", {a, a}, {{"transpose_b", Attr(true)}},
                        &out),
              IsOk());
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(5, 11, 11, 25));

  ASSERT_THAT(ctx_->Run("ExampleMatMul",
                        {AsTensor<int32>({1, 2, 3}, {1, 3}),
                         AsTensor<int32>({4, 5, 6}, {3, 1})},
                        &out),
              IsOk());
  EXPECT_THAT(Values<int32>(out[0]), ElementsAre(32));
  ASSERT_THAT(ctx_->Run("ExampleMatMul",
                        {AsTensor<double>({}, {0, 3}),
                         AsTensor<double>({1, 2, 3}, {3, 1})},
                        &out),
              IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({0, 1}));
}

TEST_F(MatMulRegistrationsTest, KernelAttrSelectsTheLabel) {
  auto plain = ctx_->Prepare("ExampleMatMul", {DT_FLOAT, DT_FLOAT});
  ASSERT_THAT(plain.status(), IsOk());
  EXPECT_EQ(plain.value()->kernel_def().label(), "");
  EXPECT_THAT(plain.value()->kernel_class_name(),
              ::testing::StartsWith("ExampleMatMulOp<CPUDevice, float, false"));

  auto eigen = ctx_->Prepare("ExampleMatMul", {DT_FLOAT, DT_FLOAT},
                             {{"_kernel", Attr("eigen")}});
  ASSERT_THAT(eigen.status(), IsOk());
  EXPECT_EQ(eigen.value()->kernel_def().label(), "eigen");
  std::vector<Tensor> out;
  ASSERT_THAT(eigen.value()->Run({AsTensor<float>({2}, {1, 1}),
                                  AsTensor<float>({3, 4}, {1, 2})},
                                 &out),
              IsOk());
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(6, 8));

  // "cublas" is a GPU label: no CPU kernel carries it.
  EXPECT_THAT(ctx_->Run("ExampleMatMul",
                        {AsTensor<float>({1}, {1, 1}),
                         AsTensor<float>({1}, {1, 1})},
                        {{"_kernel", Attr("cublas")}}, &out),
              StatusIs(error::NOT_FOUND, HasSubstr("ExampleMatMul")));
}

TEST_F(MatMulRegistrationsTest, BadShapesAndTypes) {
  std::vector<Tensor> out;
  EXPECT_THAT(ctx_->Run("ExampleMatMul",
                        {AsTensor<float>({1, 2}), AsTensor<float>({1}, {1, 1})},
                        &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("In[0] is not a matrix. Instead it has shape "
                                 "[2]")));
  EXPECT_THAT(ctx_->Run("ExampleMatMul",
                        {AsTensor<float>({1, 2}, {1, 2}),
                         AsTensor<float>({1, 2, 3}, {3, 1})},
                        &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Matrix size-incompatible: In[0]: [1,2], "
                                 "In[1]: [3,1]")));
  // int64 is allowed by the op but has no kernel in this library.
  EXPECT_THAT(ctx_->Run("ExampleMatMul",
                        {AsTensor<int64>({1}, {1, 1}),
                         AsTensor<int64>({1}, {1, 1})},
                        &out),
              StatusIs(error::NOT_FOUND));
  EXPECT_THAT(ctx_->Run("ExampleMatMul",
                        {AsTensor<float>({1}, {1, 1}),
                         AsTensor<double>({1}, {1, 1})},
                        &out),
              StatusIs(error::INVALID_ARGUMENT));
}

}  // namespace
}  // namespace opkit

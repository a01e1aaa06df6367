// Loads examples/kernel_example and runs the `Example` functor op: CPU
// kernels for float and int32 through eigen_device<CPUDevice>(); the GPU
// half is not part of a build without CUDA.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/runtime/library.h"
#include "opkit/testing/status_matchers.h"
#include "tests/examples/example_test_util.h"

#ifndef KERNEL_EXAMPLE_LIB
#error "KERNEL_EXAMPLE_LIB must name the built kernel_example library"
#endif

namespace opkit {
namespace {

using ::opkit::examples_test::AsTensor;
using ::opkit::examples_test::OpNames;
using ::opkit::examples_test::Values;
using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class KernelExampleTest : public examples_test::OpLibraryTest {
 protected:
  KernelExampleTest() : OpLibraryTest(KERNEL_EXAMPLE_LIB) {}
};

TEST_F(KernelExampleTest, RegistersCpuKernelsForFloatAndInt32) {
  EXPECT_THAT(OpNames(library_), ElementsAre("Example"));
  ASSERT_EQ(library_.kernel_list().kernel_size(), 2);
  std::vector<DataType> types;
  for (const KernelDef& k : library_.kernel_list().kernel()) {
    EXPECT_EQ(k.op(), "Example");
    EXPECT_EQ(k.device_type(), "CPU");
    ASSERT_EQ(k.constraint_size(), 1);
    EXPECT_EQ(k.constraint(0).name(), "T");
    ASSERT_EQ(k.constraint(0).allowed_values().list().type_size(), 1);
    types.push_back(k.constraint(0).allowed_values().list().type(0));
  }
  EXPECT_THAT(types, ElementsAre(DT_FLOAT, DT_INT32));
}

TEST_F(KernelExampleTest, DoublesItsInput) {
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("Example", {AsTensor<float>({1.0f, 2.5f, -3.0f})},
                        &out),
              IsOk());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(2.0f, 5.0f, -6.0f));

  ASSERT_THAT(ctx_->Run("Example", {AsTensor<int32>({1, 2, 3, 4}, {2, 2})},
                        &out),
              IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({2, 2}));
  EXPECT_THAT(Values<int32>(out[0]), ElementsAre(2, 4, 6, 8));

  ASSERT_THAT(ctx_->Run("Example", {AsTensor<float>({}, {0, 3})}, &out),
              IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({0, 3}));

  auto prepared = ctx_->Prepare("Example", {DT_FLOAT});
  ASSERT_THAT(prepared.status(), IsOk());
  EXPECT_EQ(prepared.value()->kernel_class_name(),
            "ExampleOp<CPUDevice, float>");
}

TEST_F(KernelExampleTest, TypesWithoutAKernelOrOutsideTheOp) {
  std::vector<Tensor> out;
  // double is a number type, so the op accepts it, but no kernel exists.
  EXPECT_THAT(ctx_->Run("Example", {AsTensor<double>({1.0})}, &out),
              StatusIs(error::NOT_FOUND, HasSubstr("Example")));
  // string is not a number type.
  EXPECT_THAT(ctx_->Run("Example", {Tensor("two")}, &out),
              StatusIs(error::INVALID_ARGUMENT));
}

}  // namespace
}  // namespace opkit

// VarHandleOp, ReadVariableOp, AssignVariableOp, AssignAdd/SubVariableOp,
// VarIsInitializedOp and DestroyResourceOp run eagerly: a handle from one
// call reaches the same variable in the next.
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/tensor/resource_handle.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class ResourceVariableTest : public test::EagerOpTest {
 protected:
  // A handle to a float variable named `shared_name`.
  Tensor Handle(const char* shared_name, DataType dtype = DT_FLOAT) {
    EXPECT_THAT(Run("VarHandleOp", {},
                    {{"dtype", test::Attr(dtype)},
                     {"shape", test::Attr(PartialTensorShape({-1}))},
                     {"shared_name", test::Attr(shared_name)}}),
                IsOk());
    return out_.empty() ? Tensor() : out_[0];
  }
  Status Assign(const char* op, const Tensor& handle, const Tensor& value) {
    return Run(op, {handle, value}, {{"dtype", test::Attr(value.dtype())}});
  }
  Status Read(const Tensor& handle, DataType dtype = DT_FLOAT) {
    return Run("ReadVariableOp", {handle}, {{"dtype", test::Attr(dtype)}});
  }
};

TEST_F(ResourceVariableTest, HandleNamesTheVariable) {
  Tensor h = Handle("v");
  ASSERT_EQ(h.dtype(), DT_RESOURCE);
  const ResourceHandle& handle = h.scalar<ResourceHandle>()();
  EXPECT_EQ(handle.name(), "v");
  EXPECT_EQ(handle.container(), "localhost");
  ASSERT_EQ(handle.dtypes_and_shapes().size(), 1u);
  EXPECT_EQ(handle.dtypes_and_shapes()[0].dtype, DT_FLOAT);
}

TEST_F(ResourceVariableTest, AssignReadAddSub) {
  Tensor h = Handle("v");
  ASSERT_THAT(Run("VarIsInitializedOp", {h}), IsOk());
  EXPECT_FALSE(out_[0].scalar<bool>()());
  ASSERT_THAT(Assign("AssignVariableOp", h, test::AsTensor<float>({1, 2})),
              IsOk());
  ASSERT_THAT(Run("VarIsInitializedOp", {h}), IsOk());
  EXPECT_TRUE(out_[0].scalar<bool>()());
  ASSERT_THAT(Read(h), IsOk());
  Tensor first = out_[0];
  EXPECT_THAT(test::Values<float>(first), ElementsAre(1, 2));
  ASSERT_THAT(Assign("AssignAddVariableOp", h, test::AsTensor<float>({10, 10})),
              IsOk());
  ASSERT_THAT(Assign("AssignSubVariableOp", h, test::AsTensor<float>({1, 0})),
              IsOk());
  ASSERT_THAT(Read(h), IsOk());
  EXPECT_THAT(test::Values<float>(out_[0]), ElementsAre(10, 12));
  EXPECT_THAT(test::Values<float>(first), ElementsAre(1, 2))
      << "an earlier read is a snapshot";
  // A new handle with the same shared_name reaches the same variable.
  ASSERT_THAT(Read(Handle("v")), IsOk());
  EXPECT_THAT(test::Values<float>(out_[0]), ElementsAre(10, 12));
}

TEST_F(ResourceVariableTest, UpdatesAreInPlaceOnlyWhenNoReadIsAlive) {
  Tensor h = Handle("v");
  const int64_t n = 100003;  // large enough to be split across threads
  Tensor init(DT_FLOAT, TensorShape({n}));
  Tensor delta(DT_FLOAT, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) {
    init.flat<float>()(i) = static_cast<float>(i % 101);
    delta.flat<float>()(i) = static_cast<float>(i % 7);
  }
  ASSERT_THAT(Assign("AssignVariableOp", h, init), IsOk());
  // A read that is still alive keeps its values: the update copies.
  ASSERT_THAT(Read(h), IsOk());
  Tensor held = out_[0];
  const void* held_data = held.data();
  ASSERT_THAT(Assign("AssignSubVariableOp", h, delta), IsOk());
  ASSERT_THAT(Read(h), IsOk());
  const void* updated_data = out_[0].data();
  EXPECT_NE(updated_data, held_data);
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(held.flat<float>()(i), static_cast<float>(i % 101)) << i;
    ASSERT_EQ(out_[0].flat<float>()(i),
              static_cast<float>(i % 101) - static_cast<float>(i % 7)) << i;
  }
  // Once no read is alive the update writes the variable's own buffer.
  out_.clear();
  ASSERT_THAT(Assign("AssignAddVariableOp", h, delta), IsOk());
  ASSERT_THAT(Read(h), IsOk());
  EXPECT_EQ(out_[0].data(), updated_data);
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(out_[0].flat<float>()(i), static_cast<float>(i % 101)) << i;
  }
  // A value that is the variable's own buffer: v += v, into a new buffer.
  Tensor self = out_[0];
  out_.clear();
  ASSERT_THAT(Assign("AssignAddVariableOp", h, self), IsOk());
  ASSERT_THAT(Read(h), IsOk());
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(out_[0].flat<float>()(i), 2.f * static_cast<float>(i % 101)) << i;
    ASSERT_EQ(self.flat<float>()(i), static_cast<float>(i % 101)) << i;
  }
}

TEST_F(ResourceVariableTest, ShapeMayChangeOnAssign) {
  Tensor h = Handle("v");
  ASSERT_THAT(Assign("AssignVariableOp", h, test::AsTensor<float>({1, 2})),
              IsOk());
  ASSERT_THAT(Assign("AssignVariableOp", h, test::AsTensor<float>({1, 2, 3})),
              IsOk());
  ASSERT_THAT(Read(h), IsOk());
  EXPECT_THAT(test::Values<float>(out_[0]), ElementsAre(1, 2, 3));
  EXPECT_THAT(
      Assign("AssignAddVariableOp", h, test::AsTensor<float>({1})),
      StatusIs(error::INVALID_ARGUMENT,
               HasSubstr("Cannot update variable with shape [3] using a "
                         "Tensor with shape [1], shapes must be equal.")));
}

TEST_F(ResourceVariableTest, ReadingAnUninitializedVariableFails) {
  EXPECT_THAT(Read(Handle("never")),
              StatusIs(error::FAILED_PRECONDITION,
                       HasSubstr("Error while reading resource variable never "
                                 "from Container: localhost. This could mean "
                                 "that the variable was uninitialized.")));
}

TEST_F(ResourceVariableTest, DtypeMismatchIsInvalidArgument) {
  Tensor h = Handle("v");
  ASSERT_THAT(Assign("AssignVariableOp", h, test::AsTensor<float>({1})),
              IsOk());
  EXPECT_THAT(Assign("AssignVariableOp", h, test::AsTensor<int32>({1})),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Trying to assign variable with wrong dtype. "
                                 "Expected float got int32")));
  EXPECT_THAT(Read(h, DT_INT32),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Trying to read variable with wrong dtype. "
                                 "Expected int32 got float")));
}

TEST_F(ResourceVariableTest, DestroyRemovesTheVariable) {
  Tensor h = Handle("v");
  ASSERT_THAT(Assign("AssignVariableOp", h, test::AsTensor<float>({1})),
              IsOk());
  ASSERT_THAT(Run("DestroyResourceOp", {h}), IsOk());
  EXPECT_THAT(Read(h), StatusIs(error::FAILED_PRECONDITION));
  EXPECT_THAT(Run("DestroyResourceOp", {h}), IsOk()) << "ignore_lookup_error";
  EXPECT_THAT(Run("DestroyResourceOp", {h},
                  {{"ignore_lookup_error", test::Attr(false)}}),
              StatusIs(error::NOT_FOUND));
}

TEST_F(ResourceVariableTest, AnonymousHandlesAreFreshEachCall) {
  Tensor a = Handle(ResourceHandle::ANONYMOUS_NAME);
  Tensor b = Handle(ResourceHandle::ANONYMOUS_NAME);
  EXPECT_THAT(a.scalar<ResourceHandle>()().name(), StartsWith("_AnonymousVar"));
  EXPECT_NE(a.scalar<ResourceHandle>()().name(),
            b.scalar<ResourceHandle>()().name());
}

}  // namespace
}  // namespace opkit

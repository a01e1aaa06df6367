// Tests of the TensorList kernels: lists built, read, changed and stacked
// eagerly, copy-on-write when a list is shared, and every bad input.
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/kernels/tensor_list.h"
#include "opkit/tensor/allocation_limit.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using test::AsScalar;
using test::AsTensor;
using test::Attr;
using test::I32;
using test::Values;

Tensor F32(std::initializer_list<float> v) { return AsTensor<float>(v); }

class ListKernelsTest : public test::EagerOpTest {
 protected:
  // A reserved list of `n` unset float elements of shape `element_shape`.
  Tensor Reserve(Tensor element_shape, int32 n) {
    EXPECT_THAT(Run("TensorListReserve", {element_shape, AsScalar<int32>(n)},
                    {{"element_dtype", Attr(DT_FLOAT)}}),
                IsOk());
    return out_.empty() ? Tensor() : out_[0];
  }
  Tensor SetItem(const Tensor& list, int32 index, const Tensor& item) {
    EXPECT_THAT(Run("TensorListSetItem", {list, AsScalar<int32>(index), item}), IsOk());
    return out_.empty() ? Tensor() : out_[0];
  }
  const TensorList& List(const Tensor& t) {
    static const TensorList kEmpty;
    const TensorList* l = t.scalar<Variant>()().get<TensorList>();
    EXPECT_NE(l, nullptr);
    return l ? *l : kEmpty;
  }
};

TEST_F(ListKernelsTest, ReserveSetAndStackFillsUnsetElementsWithZeros) {
  Tensor list = Reserve(I32({2}), 3);
  ASSERT_EQ(list.dtype(), DT_VARIANT);
  EXPECT_EQ(list.scalar<Variant>()().TypeName(), "tensorflow::TensorList");
  list = SetItem(list, 0, F32({1, 2}));
  list = SetItem(list, 2, F32({5, 6}));
  ASSERT_THAT(Run("TensorListStack", {list, I32({2})},
                  {{"element_dtype", Attr(DT_FLOAT)}}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({3, 2}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(1, 2, 0, 0, 5, 6));

  ASSERT_THAT(Run("TensorListLength", {list}), IsOk());
  EXPECT_EQ(out_[0].scalar<int32>()(), 3);
  ASSERT_THAT(Run("TensorListGetItem", {list, AsScalar<int32>(1), I32({2})},
                  {{"element_dtype", Attr(DT_FLOAT)}}),
              IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(0, 0)) << "unset reads as zeros";
}

TEST_F(ListKernelsTest, ChangingASharedListLeavesTheOriginalAlone) {
  Tensor first = Reserve(I32({1}), 2);
  Tensor second = SetItem(first, 0, F32({7}));
  EXPECT_FALSE(List(first).tensors[0].IsInitialized())
      << "the input list is still referenced here, so SetItem copied it";
  ASSERT_TRUE(List(second).tensors[0].IsInitialized());
  EXPECT_THAT(Values<float>(List(second).tensors[0]), ElementsAre(7));
}

TEST_F(ListKernelsTest, FromTensorGatherAndElementShape) {
  Tensor t = AsTensor<float>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  ASSERT_THAT(Run("TensorListFromTensor", {t, I32({-1})}),
              IsOk());
  Tensor list = out_[0];
  ASSERT_THAT(Run("TensorListGather", {list, I32({2, 0}), I32({2})},
                  {{"element_dtype", Attr(DT_FLOAT)}}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 2}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(5, 6, 1, 2));

  ASSERT_THAT(Run("TensorListElementShape", {list},
                  {{"shape_type", Attr(DT_INT32)}}),
              IsOk());
  EXPECT_THAT(Values<int32>(out_[0]), ElementsAre(-1)) << "the shape given";
  t.flat<float>()(0) = 100;  // the list holds copies
  ASSERT_THAT(Run("TensorListGetItem", {list, AsScalar<int32>(0), I32({2})},
                  {{"element_dtype", Attr(DT_FLOAT)}}),
              IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(1, 2));
}

TEST_F(ListKernelsTest, PushBackPopBackAndResize) {
  ASSERT_THAT(Run("EmptyTensorList", {AsScalar<int32>(-1), AsScalar<int32>(2)},
                  {{"element_dtype", Attr(DT_FLOAT)}}),
              IsOk());
  Tensor list = out_[0];
  ASSERT_THAT(Run("TensorListPushBack", {list, F32({1})}), IsOk());
  list = out_[0];
  ASSERT_THAT(Run("TensorListPushBack", {list, F32({2, 3})}), IsOk());
  list = out_[0];
  EXPECT_THAT(Run("TensorListPushBack", {list, F32({4})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Tried to push item into a full list")));
  ASSERT_THAT(Run("TensorListPopBack", {list, AsScalar<int32>(-1)},
                  {{"element_dtype", Attr(DT_FLOAT)}}),
              IsOk());
  EXPECT_THAT(Values<float>(out_[1]), ElementsAre(2, 3));
  list = out_[0];
  EXPECT_EQ(List(list).tensors.size(), 1u);
  ASSERT_THAT(Run("TensorListResize", {list, AsScalar<int32>(4)}), IsOk());
  EXPECT_EQ(List(out_[0]).tensors.size(), 4u);
  ASSERT_THAT(Run("TensorListPopBack", {out_[0], AsScalar<int32>(-1)},
                  {{"element_dtype", Attr(DT_FLOAT)}}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("element_shape is not fully defined")));
}

TEST_F(ListKernelsTest, BadInputsAreErrors) {
  Tensor list = Reserve(I32({2}), 2);
  EXPECT_THAT(Run("TensorListSetItem", {list, AsScalar<int32>(2), F32({1, 2})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Trying to modify element 2 in a list with 2 "
                                 "elements.")));
  EXPECT_THAT(Run("TensorListSetItem", {list, AsScalar<int32>(-1), F32({1, 2})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("element -1")));
  EXPECT_THAT(Run("TensorListSetItem", {list, AsScalar<int32>(0), F32({1, 2, 3})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("incompatible shape at a list index")));
  EXPECT_THAT(Run("TensorListSetItem", {list, AsScalar<int32>(0), I32({1, 2})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("op elements int32 but list elements float")));
  EXPECT_THAT(Run("TensorListGetItem", {list, AsScalar<int32>(5), I32({2})},
                  {{"element_dtype", Attr(DT_FLOAT)}}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Trying to access element 5")));
  EXPECT_THAT(Run("TensorListLength", {F32({1})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("variant tensor")));
  Tensor empty_variant(DT_VARIANT, TensorShape({}));
  EXPECT_THAT(Run("TensorListLength", {empty_variant}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("to be a TensorList")));
  EXPECT_THAT(Run("TensorListReserve", {I32({2}), AsScalar<int32>(-3)},
                  {{"element_dtype", Attr(DT_FLOAT)}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("non negative")));
  EXPECT_THAT(Run("TensorListReserve", {I32({2, -5}), AsScalar<int32>(1)},
                  {{"element_dtype", Attr(DT_FLOAT)}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("element_shape")));
  {
    // More slots than the allocation limit allows: ResourceExhausted, not a
    // std::bad_alloc.
    ScopedAllocationLimit limit(1 << 20);
    EXPECT_THAT(Run("TensorListReserve", {I32({2}), AsScalar<int32>(1 << 30)},
                    {{"element_dtype", Attr(DT_FLOAT)}}),
                StatusIs(error::RESOURCE_EXHAUSTED, HasSubstr("TensorListReserve")));
    // An empty tensor with a huge first dimension (found by the op fuzzer).
    EXPECT_THAT(Run("TensorListFromTensor",
                    {Tensor(DT_FLOAT, TensorShape({int64_t{1} << 40, 0})), I32({0})}),
                StatusIs(error::RESOURCE_EXHAUSTED, HasSubstr("TensorListFromTensor")));
  }
  EXPECT_THAT(Run("TensorListFromTensor", {AsTensor<float>({1}, TensorShape({})),
                                           AsScalar<int32>(-1)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("at least a vector")));
  EXPECT_THAT(Run("TensorListStack", {list, I32({2})},
                  {{"element_dtype", Attr(DT_FLOAT)}, {"num_elements", Attr(int64_t{3})}}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("expected a list with 3 elements but got a "
                                 "list with 2")));
  Tensor unknown = Reserve(AsScalar<int32>(-1), 0);
  EXPECT_THAT(Run("TensorListStack", {unknown, AsScalar<int32>(-1)},
                  {{"element_dtype", Attr(DT_FLOAT)}}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("non-fully-defined element_shape")));
  ASSERT_THAT(Run("TensorListStack", {unknown, I32({3})},
                  {{"element_dtype", Attr(DT_FLOAT)}}),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0, 3}));
}

}  // namespace
}  // namespace opkit

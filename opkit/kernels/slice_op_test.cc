// Tests of the Slice and StridedSlice kernels.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using test::AsTensor;
using test::Values;

using test::Attr;
using test::I32;
using test::I64;
using test::Iota;
using test::Strings;
using OpTest = test::EagerOpTest;

using SliceOpTest = OpTest;

TEST_F(SliceOpTest, Slice) {
  ASSERT_THAT(Run("Slice", {Iota(TensorShape({3, 4})), I32({1, 1}), I32({2, -1})}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(5, 6, 7, 9, 10, 11));
  ASSERT_THAT(Run("Slice", {Strings({"a", "b", "c"}, TensorShape({3})), I64({2}), I64({1})}),
              IsOk());
  EXPECT_THAT(Values<tstring>(out_[0]), ElementsAre("c"));
}

TEST_F(SliceOpTest, SliceWholeInputSharesBufferAndEmptySlices) {
  Tensor in = Iota(TensorShape({2, 2}));
  ASSERT_THAT(Run("Slice", {in, I32({0, 0}), I32({-1, 2})}), IsOk());
  EXPECT_TRUE(out_[0].SharesBufferWith(in));
  ASSERT_THAT(Run("Slice", {in, I32({2, 1}), I32({0, 1})}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0, 1}));
  ASSERT_THAT(Run("Slice", {AsTensor<float>({3}, TensorShape({})),
                            Tensor(DT_INT32, TensorShape({0})),
                            Tensor(DT_INT32, TensorShape({0}))}),
              IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(3));
}

TEST_F(SliceOpTest, UnalignedIndexInputsAreRead) {
  // A row of a larger tensor is not 64-byte aligned; index inputs may be
  // such views.
  Tensor big = AsTensor<int32>({9, 1, 2}, TensorShape({3, 1}));
  Tensor begin = big.Slice(1, 2);
  Tensor view;
  ASSERT_TRUE(view.CopyFrom(begin, TensorShape({1})));
  Tensor size = big.Slice(2, 3);
  Tensor size_view;
  ASSERT_TRUE(size_view.CopyFrom(size, TensorShape({1})));
  ASSERT_THAT(Run("Slice", {Iota(TensorShape({4})), view, size_view}), IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(1, 2));
}

TEST_F(SliceOpTest, LargeCopiesUseThePool) {
  Tensor x = Iota(TensorShape({512, 512}));
  ASSERT_THAT(Run("Slice", {x, I32({1, 2}), I32({-1, 500})}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({511, 500}));
  auto v = Values<float>(out_[0]);
  EXPECT_EQ(v[0], 514);
  EXPECT_EQ(v[511 * 500 - 1], 511 * 512 + 501);
  ASSERT_THAT(Run("Transpose", {x, I32({1, 0})}), IsOk());
  EXPECT_EQ(Values<float>(out_[0])[1], 512);
}

TEST_F(SliceOpTest, SliceErrors) {
  Tensor x = Iota(TensorShape({3, 4}));
  EXPECT_THAT(Run("Slice", {x, I32({0}), I32({1, 1})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Expected begin and size arguments to be 1-D tensors of "
                                 "size 2, but got shapes [1] and [2] instead.")));
  EXPECT_THAT(Run("Slice", {x, I32({4, 0}), I32({0, 1})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Expected begin[0] in [0, 3], but got 4")));
  EXPECT_THAT(Run("Slice", {x, I32({-1, 0}), I32({1, 1})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Expected begin[0] in [0, 3], but got -1")));
  EXPECT_THAT(Run("Slice", {x, I32({1, 1}), I32({1, 4})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Expected size[1] in [0, 3], but got 4")));
  EXPECT_THAT(Run("Slice", {x, I32({1, 1}), I32({1, -2})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Expected size[1] in [0, 3], but got -2")));
}

EagerAttrs Masks(int64 begin, int64 end, int64 ellipsis, int64 new_axis, int64 shrink) {
  return {{"begin_mask", Attr(begin)},       {"end_mask", Attr(end)},
          {"ellipsis_mask", Attr(ellipsis)}, {"new_axis_mask", Attr(new_axis)},
          {"shrink_axis_mask", Attr(shrink)}};
}

TEST_F(SliceOpTest, StridedSliceBasic) {
  // x[1:3, ::2] of a 3x4 iota.
  ASSERT_THAT(Run("StridedSlice", {Iota(TensorShape({3, 4})), I32({1, 0}), I32({3, 0}),
                                   I32({1, 2})},
                  Masks(0, 2, 0, 0, 0)),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 2}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(4, 6, 8, 10));
}

TEST_F(SliceOpTest, StridedSliceNegativeStridesAndIndices) {
  // x[::-1] and x[-1:0:-2] of [0..5].
  Tensor x = Iota(TensorShape({6}));
  ASSERT_THAT(Run("StridedSlice", {x, I32({0}), I32({0}), I32({-1})}, Masks(1, 1, 0, 0, 0)),
              IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(5, 4, 3, 2, 1, 0));
  ASSERT_THAT(Run("StridedSlice", {x, I64({-1}), I64({0}), I64({-2})}), IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(5, 3, 1));
  // Out-of-range begin/end clamp, as in Python.
  ASSERT_THAT(Run("StridedSlice", {x, I32({-100}), I32({100}), I32({1})}), IsOk());
  EXPECT_EQ(out_[0].NumElements(), 6);
  ASSERT_THAT(Run("StridedSlice", {x, I32({4}), I32({2}), I32({1})}), IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({0}));
  // A huge negative stride reads one element.
  ASSERT_THAT(Run("StridedSlice", {x, I64({5}), I64({0}), I64({INT64_MIN})}), IsOk());
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(5));
}

TEST_F(SliceOpTest, StridedSliceShrinkNewAxisEllipsis) {
  Tensor x = Iota(TensorShape({2, 3, 4}));
  // x[1] -> [3,4]
  ASSERT_THAT(Run("StridedSlice", {x, I32({1}), I32({2}), I32({1})}, Masks(0, 0, 0, 0, 1)),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({3, 4}));
  EXPECT_EQ(Values<float>(out_[0])[0], 12);
  // x[..., -1] -> [2,3]
  ASSERT_THAT(Run("StridedSlice", {x, I32({0, -1}), I32({0, 0}), I32({1, 1})},
                  Masks(0, 0, 1, 0, 2)),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(3, 7, 11, 15, 19, 23));
  // x[tf.newaxis, 0, ..., 1:3] -> [1,3,2]
  ASSERT_THAT(Run("StridedSlice", {x, I32({0, 0, 0, 1}), I32({0, 1, 0, 3}), I32({1, 1, 1, 1})},
                  Masks(0, 0, 4, 1, 2)),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({1, 3, 2}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(1, 2, 5, 6, 9, 10));
  // Shrinking every dimension gives a scalar.
  ASSERT_THAT(Run("StridedSlice", {x, I32({1, 2, 3}), I32({2, 3, 4}), I32({1, 1, 1})},
                  Masks(0, 0, 0, 0, 7)),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(23));
}

TEST_F(SliceOpTest, StridedSliceWholeInputSharesBufferAndStrings) {
  Tensor x = Strings({"a", "b", "c"}, TensorShape({3}));
  ASSERT_THAT(Run("StridedSlice", {x, I32({0}), I32({0}), I32({1})}, Masks(1, 1, 0, 0, 0)),
              IsOk());
  EXPECT_TRUE(out_[0].SharesBufferWith(x));
  ASSERT_THAT(Run("StridedSlice", {x, I32({2}), I32({0}), I32({-2})}, Masks(0, 1, 0, 0, 0)),
              IsOk());
  EXPECT_THAT(Values<tstring>(out_[0]), ElementsAre("c", "a"));
}

TEST_F(SliceOpTest, StridedSliceErrors) {
  Tensor x = Iota(TensorShape({2, 3}));
  EXPECT_THAT(Run("StridedSlice", {x, I32({0}), I32({1, 1}), I32({1})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Expected begin, end, and strides to be 1D equal size "
                                 "tensors, but got shapes [1], [2], and [1] instead.")));
  EXPECT_THAT(Run("StridedSlice", {x, I32({0}), I32({1}), I32({0})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("strides[0] must be non-zero")));
  EXPECT_THAT(Run("StridedSlice", {x, I32({2}), I32({3}), I32({1})}, Masks(0, 0, 0, 0, 1)),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("slice index 2 of dimension 0 out of bounds.")));
  EXPECT_THAT(Run("StridedSlice", {x, I32({-3}), I32({3}), I32({1})}, Masks(0, 0, 0, 0, 1)),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("slice index -3 of dimension 0 out of bounds.")));
  EXPECT_THAT(Run("StridedSlice", {x, I32({1}), I32({0}), I32({-1})}, Masks(0, 0, 0, 0, 1)),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("only stride 1 allowed on non-range indexing.")));
  EXPECT_THAT(Run("StridedSlice", {x, I32({0, 0}), I32({1, 1}), I32({1, 1})},
                  Masks(0, 0, 3, 0, 0)),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Multiple ellipses in slice spec not allowed")));
  EXPECT_THAT(Run("StridedSlice", {x, I32({0, 0, 0}), I32({1, 1, 1}), I32({1, 1, 1})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Index out of range using input dim 2; input has only 2 "
                                 "dims")));
  Tensor long_spec(DT_INT32, TensorShape({40}));
  long_spec.flat<int32>().setConstant(1);
  EXPECT_THAT(Run("StridedSlice", {x, long_spec, long_spec, long_spec}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("fewer than 32 elements")));
}

// StridedSliceGrad must be the adjoint of StridedSlice: slicing a tensor of
// distinct values 1, 2, 3, ... tells where each slice element came from, and
// the gradient must put dy exactly there and zeros elsewhere.
class StridedSliceGradTest : public OpTest {
 protected:
  void ExpectAdjoint(const TensorShape& shape, const Tensor& begin, const Tensor& end,
                     const Tensor& strides, const EagerAttrs& masks);
};

void StridedSliceGradTest::ExpectAdjoint(const TensorShape& shape, const Tensor& begin,
                                         const Tensor& end, const Tensor& strides,
                                         const EagerAttrs& masks) {
  Tensor x(DT_DOUBLE, shape);
  for (int64_t i = 0; i < x.NumElements(); ++i) x.flat<double>()(i) = i + 1;
  std::vector<Tensor> fwd;
  ASSERT_THAT(ctx_->Run("StridedSlice", {x, begin, end, strides}, masks, &fwd), IsOk());
  Tensor dy(DT_DOUBLE, fwd[0].shape());
  for (int64_t i = 0; i < dy.NumElements(); ++i) dy.flat<double>()(i) = 100 + 10 * i;
  Tensor shape_t(begin.dtype(), TensorShape({shape.dims()}));
  for (int d = 0; d < shape.dims(); ++d) {
    if (begin.dtype() == DT_INT32) {
      shape_t.flat<int32>()(d) = static_cast<int32>(shape.dim_size(d));
    } else {
      shape_t.flat<int64>()(d) = shape.dim_size(d);
    }
  }
  std::vector<Tensor> grad;
  ASSERT_THAT(ctx_->Run("StridedSliceGrad", {shape_t, begin, end, strides, dy}, masks, &grad),
              IsOk());
  ASSERT_EQ(grad[0].shape(), shape);
  std::vector<double> want(x.NumElements(), 0.0);
  for (int64_t i = 0; i < dy.NumElements(); ++i) {
    want[static_cast<int64_t>(fwd[0].flat<double>()(i)) - 1] += dy.flat<double>()(i);
  }
  EXPECT_THAT(Values<double>(grad[0]), ::testing::ElementsAreArray(want));
}

TEST_F(SliceOpTest, StridedSliceGradByHand) {
  // x[1:3, ::2] of a 3x4 input: dy lands on (1,0), (1,2), (2,0), (2,2).
  ASSERT_THAT(Run("StridedSliceGrad",
                  {I32({3, 4}), I32({1, 0}), I32({3, 0}), I32({1, 2}),
                   AsTensor<float>({1, 2, 3, 4}, TensorShape({2, 2}))},
                  Masks(0, 2, 0, 0, 0)),
              IsOk());
  EXPECT_EQ(out_[0].shape(), TensorShape({3, 4}));
  EXPECT_THAT(Values<float>(out_[0]), ElementsAre(0, 0, 0, 0, 1, 0, 2, 0, 3, 0, 4, 0));
}

TEST_F(StridedSliceGradTest, IsTheAdjointOfStridedSliceForEveryMask) {
  const TensorShape s({3, 4, 5});
  // x[::-1, 1:4:2, -2:] with begin/end masks.
  ExpectAdjoint(s, I32({0, 1, -2}), I32({0, 4, 0}), I32({-1, 2, 1}),
                              Masks(1, 5, 0, 0, 0));
  // x[1, ..., ::-2]: shrink, ellipsis, negative stride (int64 spec).
  ExpectAdjoint(s, I64({1, 0, 0}), I64({2, 0, 0}), I64({1, 1, -2}),
                              Masks(4, 4, 2, 0, 1));
  // x[tf.newaxis, :, 2, tf.newaxis, 3:0:-1]: new axes and a shrunk middle.
  ExpectAdjoint(s, I32({0, 0, 2, 0, 3}), I32({0, 0, 3, 0, 0}),
                              I32({1, 1, 1, 1, -1}), Masks(2, 2, 0, 9, 4));
  // An empty slice gives all zeros; the whole input gives dy back.
  ExpectAdjoint(s, I32({2}), I32({1}), I32({1}), Masks(0, 0, 0, 0, 0));
  ExpectAdjoint(s, I32({0}), I32({0}), I32({1}), Masks(1, 1, 0, 0, 0));
}

TEST_F(SliceOpTest, StridedSliceGradStrings) {
  ASSERT_THAT(Run("StridedSliceGrad", {I32({3}), I32({2}), I32({0}), I32({-2}),
                                       Strings({"c", "a"}, TensorShape({2}))},
                  Masks(0, 1, 0, 0, 0)),
              IsOk());
  EXPECT_THAT(Values<tstring>(out_[0]), ElementsAre("a", "", "c"));
}

TEST_F(SliceOpTest, StridedSliceGradErrors) {
  const Tensor dy = AsTensor<float>({1, 2}, TensorShape({2}));
  // dy of another shape than the slice.
  EXPECT_THAT(Run("StridedSliceGrad", {I32({2, 3}), I32({0}), I32({1}), I32({1}), dy}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("shape of dy was [2] instead of [1,3]")));
  // shape not a vector, or with a negative size.
  EXPECT_THAT(Run("StridedSliceGrad", {AsTensor<int32>({2}, TensorShape({})), I32({0}),
                                       I32({2}), I32({1}), dy}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("shape must be a vector")));
  EXPECT_THAT(Run("StridedSliceGrad", {I32({-2}), I32({0}), I32({2}), I32({1}), dy}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("shape is not a valid tensor shape")));
  // The forward op's spec checks apply.
  EXPECT_THAT(Run("StridedSliceGrad", {I32({2}), I32({0}), I32({2}), I32({0}), dy}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("strides[0] must be non-zero")));
  EXPECT_THAT(Run("StridedSliceGrad", {I32({2}), I32({5}), I32({6}), I32({1}),
                                       AsTensor<float>({1}, TensorShape({}))},
                  Masks(0, 0, 0, 0, 1)),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("slice index 5 of dimension 0 out of bounds.")));
  EXPECT_THAT(Run("StridedSliceGrad", {I32({2}), I32({0, 0}), I32({1}), I32({1}), dy}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Expected begin, end, and strides to be 1D equal size")));
}

}  // namespace
}  // namespace opkit

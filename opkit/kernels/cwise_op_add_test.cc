// Tests of the Add, AddV2 and AddN kernels.
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
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

class AddV2Test : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx, IsOk());
    ctx_ = std::move(ctx).value();
  }
  std::unique_ptr<EagerContext> ctx_;
};

TEST_F(AddV2Test, SameShape) {
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("AddV2", {AsTensor<float>({1, 2, 3}, TensorShape({3})),
                                  AsTensor<float>({10, 20, 30}, TensorShape({3}))},
                        &out),
              IsOk());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), TensorShape({3}));
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(11, 22, 33));
}

TEST_F(AddV2Test, EveryRegisteredType) {
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("AddV2", {AsTensor<int32>({1, 2}, TensorShape({2})),
                                  AsTensor<int32>({3, 4}, TensorShape({2}))}, &out),
              IsOk());
  EXPECT_THAT(Values<int32>(out[0]), ElementsAre(4, 6));
  ASSERT_THAT(ctx_->Run("AddV2", {AsTensor<int64>({1LL << 40}, TensorShape({1})),
                                  AsTensor<int64>({1}, TensorShape({1}))}, &out),
              IsOk());
  EXPECT_THAT(Values<int64>(out[0]), ElementsAre((1LL << 40) + 1));
  ASSERT_THAT(ctx_->Run("AddV2", {AsTensor<double>({0.5}, TensorShape({})),
                                  AsTensor<double>({0.25}, TensorShape({}))}, &out),
              IsOk());
  EXPECT_THAT(Values<double>(out[0]), ElementsAre(0.75));
  ASSERT_THAT(ctx_->Run("AddV2", {AsTensor<half>({half(1.5f)}, TensorShape({1})),
                                  AsTensor<half>({half(2.0f)}, TensorShape({1}))}, &out),
              IsOk());
  EXPECT_EQ(static_cast<float>(Values<half>(out[0])[0]), 3.5f);
  ASSERT_THAT(ctx_->Run("AddV2", {AsTensor<bfloat16>({bfloat16(1.5f)}, TensorShape({1})),
                                  AsTensor<bfloat16>({bfloat16(-4.0f)}, TensorShape({1}))},
                        &out),
              IsOk());
  EXPECT_EQ(static_cast<float>(Values<bfloat16>(out[0])[0]), -2.5f);
  ASSERT_THAT(ctx_->Run("AddV2", {AsTensor<complex64>({{1, 2}}, TensorShape({1})),
                                  AsTensor<complex64>({{3, -1}}, TensorShape({1}))},
                        &out),
              IsOk());
  EXPECT_EQ(Values<complex64>(out[0])[0], complex64(4, 1));
}

TEST_F(AddV2Test, IntegerOverflowWrapsAround) {
  std::vector<Tensor> out;
  const int32 max = std::numeric_limits<int32>::max();
  ASSERT_THAT(ctx_->Run("AddV2", {AsTensor<int32>({max, -max}, TensorShape({2})),
                                  AsTensor<int32>({1}, TensorShape({}))}, &out),
              IsOk());
  EXPECT_THAT(Values<int32>(out[0]),
              ElementsAre(std::numeric_limits<int32>::min(), -max + 1));
  const int64 max64 = std::numeric_limits<int64>::max();
  ASSERT_THAT(ctx_->Run("AddV2", {AsTensor<int64>({max64}, TensorShape({1})),
                                  AsTensor<int64>({max64}, TensorShape({1}))}, &out),
              IsOk());
  EXPECT_THAT(Values<int64>(out[0]), ElementsAre(int64{-2}));
}

TEST_F(AddV2Test, Broadcasting) {
  std::vector<Tensor> out;
  // [2,1] + [3] -> [2,3]
  ASSERT_THAT(ctx_->Run("AddV2", {AsTensor<float>({1, 2}, TensorShape({2, 1})),
                                  AsTensor<float>({10, 20, 30}, TensorShape({3}))},
                        &out),
              IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(11, 21, 31, 12, 22, 32));
  // scalar + vector, both orders
  ASSERT_THAT(ctx_->Run("AddV2", {AsTensor<float>({1}, TensorShape({})),
                                  AsTensor<float>({1, 2}, TensorShape({2}))}, &out),
              IsOk());
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(2, 3));
  ASSERT_THAT(ctx_->Run("AddV2", {AsTensor<float>({1, 2}, TensorShape({2})),
                                  AsTensor<float>({5}, TensorShape({1, 1}))}, &out),
              IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({1, 2}));
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(6, 7));
  // [2,3] + [2,1]: the inner dimension repeats y.
  ASSERT_THAT(ctx_->Run("AddV2", {AsTensor<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3})),
                                  AsTensor<float>({100, 200}, TensorShape({2, 1}))},
                        &out),
              IsOk());
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(101, 102, 103, 204, 205, 206));
}

// The flat index into `in` (right-aligned against `out`, size-1 dims
// repeating) of output element `index`.
int64_t SourceIndex(const TensorShape& in, const TensorShape& out, int64_t index) {
  int64_t src = 0, stride = 1;
  for (int o = out.dims() - 1, i = in.dims() - 1; o >= 0; --o, --i) {
    const int64_t coord = index % out.dim_size(o);
    index /= out.dim_size(o);
    if (i >= 0) {
      if (in.dim_size(i) != 1) src += coord * stride;
      stride *= in.dim_size(i);
    }
  }
  return src;
}

TEST_F(AddV2Test, BroadcastingMatchesAReferenceForManyShapes) {
  struct Case {
    TensorShape x, y, out;
  };
  const std::vector<Case> cases = {
      {TensorShape({4, 1, 3}), TensorShape({2, 1}), TensorShape({4, 2, 3})},
      {TensorShape({1, 5}), TensorShape({3, 1}), TensorShape({3, 5})},
      {TensorShape({2, 1, 2, 1, 2, 1, 2}), TensorShape({1, 2, 1, 2, 1, 2, 1}),
       TensorShape({2, 2, 2, 2, 2, 2, 2})},
      {TensorShape({3, 1, 1, 2}), TensorShape({1, 4, 5, 1}), TensorShape({3, 4, 5, 2})},
      {TensorShape({1, 1, 7}), TensorShape({3, 2, 1}), TensorShape({3, 2, 7})},
      {TensorShape({6, 1}), TensorShape({1}), TensorShape({6, 1})},
      {TensorShape({1, 3, 1}), TensorShape({2, 3, 4}), TensorShape({2, 3, 4})},
      {TensorShape({300, 1}), TensorShape({1, 200}), TensorShape({300, 200})},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.x.DebugString() + " + " + c.y.DebugString());
    Tensor x(DT_INT32, c.x), y(DT_INT32, c.y);
    for (int64_t i = 0; i < x.NumElements(); ++i) x.flat<int32>()(i) = static_cast<int32>(i);
    for (int64_t i = 0; i < y.NumElements(); ++i) {
      y.flat<int32>()(i) = static_cast<int32>(1000 * i);
    }
    std::vector<Tensor> out;
    ASSERT_THAT(ctx_->Run("AddV2", {x, y}, &out), IsOk());
    ASSERT_EQ(out[0].shape(), c.out);
    auto z = out[0].flat<int32>();
    for (int64_t i = 0; i < z.size(); ++i) {
      const int32 want = x.flat<int32>()(SourceIndex(c.x, c.out, i)) +
                         y.flat<int32>()(SourceIndex(c.y, c.out, i));
      ASSERT_EQ(z(i), want) << "element " << i;
    }
  }
}

TEST_F(AddV2Test, EmptyInputs) {
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("AddV2", {Tensor(DT_FLOAT, TensorShape({0, 3})),
                                  AsTensor<float>({1, 2, 3}, TensorShape({3}))}, &out),
              IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({0, 3}));
  ASSERT_THAT(ctx_->Run("AddV2", {Tensor(DT_FLOAT, TensorShape({0})),
                                  AsTensor<float>({1}, TensorShape({}))}, &out),
              IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({0}));
  ASSERT_THAT(ctx_->Run("AddV2", {Tensor(DT_FLOAT, TensorShape({2, 0})),
                                  Tensor(DT_FLOAT, TensorShape({2, 0}))}, &out),
              IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({2, 0}));
}

TEST_F(AddV2Test, LargeInputsUseThePool) {
  const int64_t n = 1 << 18;
  Tensor a(DT_FLOAT, TensorShape({n})), b(DT_FLOAT, TensorShape({n}));
  a.flat<float>().setConstant(1.5f);
  b.flat<float>().setConstant(2.0f);
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("AddV2", {a, b}, &out), IsOk());
  auto f = out[0].flat<float>();
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(f(i), 3.5f) << i;
  // The inputs the caller holds are not overwritten.
  EXPECT_EQ(a.flat<float>()(0), 1.5f);
  // Broadcast rows are split across the pool as well.
  Tensor col(DT_FLOAT, TensorShape({n / 64, 1}));
  col.flat<float>().setConstant(1.0f);
  Tensor row(DT_FLOAT, TensorShape({1, 64}));
  row.flat<float>().setConstant(2.0f);
  ASSERT_THAT(ctx_->Run("AddV2", {col, row}, &out), IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({n / 64, 64}));
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[0].flat<float>()(i), 3.0f) << i;
}

TEST_F(AddV2Test, IncompatibleShapesAreAnError) {
  std::vector<Tensor> out;
  EXPECT_THAT(ctx_->Run("AddV2", {AsTensor<float>({1, 2}, TensorShape({2})),
                                  AsTensor<float>({1, 2, 3}, TensorShape({3}))}, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Incompatible shapes: [2] vs. [3]")));
  EXPECT_THAT(ctx_->Run("AddV2", {Tensor(DT_FLOAT, TensorShape({2, 0})),
                                  Tensor(DT_FLOAT, TensorShape({2, 3}))}, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Incompatible shapes: [2,0] vs. [2,3]")));
}

TEST_F(AddV2Test, HugeDimensionsOfEmptyTensors) {
  // Dimensions far beyond what could be allocated are fine when another
  // dimension is 0.
  Tensor x(DT_FLOAT, TensorShape({int64_t{1} << 40, 0}));
  Tensor y(DT_FLOAT, TensorShape({1, 0}));
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("AddV2", {x, y}, &out), IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({int64_t{1} << 40, 0}));
}

TEST_F(AddV2Test, MixedTypesAreAnError) {
  std::vector<Tensor> out;
  EXPECT_THAT(ctx_->Run("AddV2", {AsTensor<float>({1}, TensorShape({1})),
                                  AsTensor<int32>({1}, TensorShape({1}))}, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("was expected to be a float tensor but is a int32")));
}

TEST_F(AddV2Test, TypeWithoutKernelIsNotFound) {
  std::vector<Tensor> out;
  EXPECT_THAT(ctx_->Run("AddV2", {AsTensor<uint8>({1}, TensorShape({1})),
                                  AsTensor<uint8>({1}, TensorShape({1}))}, &out),
              StatusIs(error::NOT_FOUND, HasSubstr("No OpKernel was registered")));
}

TEST_F(AddV2Test, AddConcatenatesStrings) {
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("Add", {AsTensor<tstring>({"a", "bc"}, TensorShape({2})),
                                AsTensor<tstring>({"-x"}, TensorShape({}))}, &out),
              IsOk());
  EXPECT_THAT(Values<tstring>(out[0]), ElementsAre("a-x", "bc-x"));
  ASSERT_THAT(ctx_->Run("Add", {AsTensor<tstring>({"p"}, TensorShape({1, 1})),
                                AsTensor<tstring>({"1", "2"}, TensorShape({2, 1}))},
                        &out),
              IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({2, 1}));
  EXPECT_THAT(Values<tstring>(out[0]), ElementsAre("p1", "p2"));
}

TEST_F(AddV2Test, AddIsAddV2ForNumbers) {
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("Add", {AsTensor<double>({1, 2}, TensorShape({2, 1})),
                                AsTensor<double>({0.5, 0.25}, TensorShape({1, 2}))},
                        &out),
              IsOk());
  EXPECT_THAT(Values<double>(out[0]), ElementsAre(1.5, 1.25, 2.5, 2.25));
  EXPECT_THAT(ctx_->Run("Add", {AsTensor<double>({1, 2}, TensorShape({2})),
                                AsTensor<double>({1, 2, 3}, TensorShape({3}))}, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Incompatible shapes")));
}

TEST_F(AddV2Test, AddNSumsEveryInput) {
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("AddN", {AsTensor<float>({1, 2}, TensorShape({2})),
                                 AsTensor<float>({10, 20}, TensorShape({2})),
                                 AsTensor<float>({100, 200}, TensorShape({2}))},
                        &out),
              IsOk());
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(111, 222));
  ASSERT_THAT(ctx_->Run("AddN", {AsTensor<int64>({5}, TensorShape({}))}, &out), IsOk());
  EXPECT_THAT(Values<int64>(out[0]), ElementsAre(5));
  const int32 max = std::numeric_limits<int32>::max();
  ASSERT_THAT(ctx_->Run("AddN", {AsTensor<int32>({max}, TensorShape({1})),
                                 AsTensor<int32>({max}, TensorShape({1}))},
                        &out),
              IsOk());
  EXPECT_THAT(Values<int32>(out[0]), ElementsAre(-2));
  ASSERT_THAT(ctx_->Run("AddN", {Tensor(DT_HALF, TensorShape({0, 2})),
                                 Tensor(DT_HALF, TensorShape({0, 2}))},
                        &out),
              IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({0, 2}));
}

TEST_F(AddV2Test, AddNOnLargeInputs) {
  const int64_t n = 1 << 17;
  Tensor a(DT_DOUBLE, TensorShape({n}));
  a.flat<double>().setConstant(0.5);
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("AddN", {a, a, a, a}, &out), IsOk());
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[0].flat<double>()(i), 2.0) << i;
}

TEST_F(AddV2Test, AddNWithDifferentShapesIsAnError) {
  std::vector<Tensor> out;
  EXPECT_THAT(ctx_->Run("AddN", {AsTensor<float>({1, 2}, TensorShape({2})),
                                 AsTensor<float>({1, 2}, TensorShape({1, 2}))},
                        &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("must have the same size and shape.  Input 0: [2] != "
                                 "input 1: [1,2]")));
}

}  // namespace
}  // namespace opkit

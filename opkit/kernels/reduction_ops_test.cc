// Sum, Mean, Prod, Max, Min, ArgMax, ArgMin.
#include <cmath>
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
using test::Attr;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using test::AsTensor;
using test::Values;

AttrValue Type(DataType t) {
  AttrValue v;
  v.set_type(t);
  return v;
}

Tensor Axes(std::initializer_list<int32> axes) {
  return AsTensor<int32>(axes, TensorShape({static_cast<int64_t>(axes.size())}));
}

class ReductionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx, IsOk());
    ctx_ = std::move(ctx).value();
  }

  Tensor Reduce(const std::string& op, const Tensor& x, const Tensor& axes,
                bool keep_dims = false) {
    std::vector<Tensor> out;
    Status s = ctx_->Run(op, {x, axes}, {{"keep_dims", Attr(keep_dims)}}, &out);
    EXPECT_THAT(s, IsOk()) << op;
    if (!s.ok()) return Tensor();
    return out[0];
  }
  Status ReduceStatus(const std::string& op, const Tensor& x, const Tensor& axes) {
    std::vector<Tensor> out;
    return ctx_->Run(op, {x, axes}, &out);
  }

  std::unique_ptr<EagerContext> ctx_;
};

// 0..5 as a 2x3 matrix.
Tensor Matrix23() { return AsTensor<float>({0, 1, 2, 3, 4, 5}, TensorShape({2, 3})); }

TEST_F(ReductionTest, SumAlongEachAxis) {
  const Tensor x = Matrix23();
  Tensor r = Reduce("Sum", x, Axes({0}));
  EXPECT_EQ(r.shape(), TensorShape({3}));
  EXPECT_THAT(Values<float>(r), ElementsAre(3, 5, 7));
  r = Reduce("Sum", x, Axes({1}));
  EXPECT_EQ(r.shape(), TensorShape({2}));
  EXPECT_THAT(Values<float>(r), ElementsAre(3, 12));
  r = Reduce("Sum", x, Axes({-1}), /*keep_dims=*/true);
  EXPECT_EQ(r.shape(), TensorShape({2, 1}));
  EXPECT_THAT(Values<float>(r), ElementsAre(3, 12));
  r = Reduce("Sum", x, Axes({0, 1}));
  EXPECT_EQ(r.shape(), TensorShape({}));
  EXPECT_THAT(Values<float>(r), ElementsAre(15));
  r = Reduce("Sum", x, AsTensor<int32>({0}, TensorShape({})));  // a scalar axis
  EXPECT_THAT(Values<float>(r), ElementsAre(3, 5, 7));
  r = Reduce("Sum", x, AsTensor<int64>({1}, TensorShape({1})));
  EXPECT_THAT(Values<float>(r), ElementsAre(3, 12));
  r = Reduce("Sum", x, Tensor(DT_INT32, TensorShape({0})));  // no axes
  EXPECT_EQ(r.shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values<float>(r), ElementsAre(0, 1, 2, 3, 4, 5));
}

TEST_F(ReductionTest, EveryKind) {
  const Tensor x = AsTensor<float>({1, -2, 3, 4, 5, -6}, TensorShape({2, 3}));
  EXPECT_THAT(Values<float>(Reduce("Mean", x, Axes({1}))), ElementsAre(2.0f / 3, 1));
  EXPECT_THAT(Values<float>(Reduce("Prod", x, Axes({0}))), ElementsAre(4, -10, -18));
  EXPECT_THAT(Values<float>(Reduce("Max", x, Axes({1}))), ElementsAre(3, 5));
  EXPECT_THAT(Values<float>(Reduce("Min", x, Axes({0, 1}))), ElementsAre(-6));
  const Tensor i = AsTensor<int32>({1, 2, 4, 7}, TensorShape({4}));
  EXPECT_THAT(Values<int32>(Reduce("Mean", i, Axes({0}))), ElementsAre(3));  // 14 / 4
  EXPECT_THAT(Values<int32>(Reduce("Prod", i, Axes({0}))), ElementsAre(56));
  EXPECT_THAT(Values<int64>(Reduce("Max", AsTensor<int64>({-5, -9}, TensorShape({2})),
                                   Axes({0}))),
              ElementsAre(-5));
  EXPECT_THAT(Values<complex64>(Reduce("Sum", AsTensor<complex64>({{1, 2}, {3, -1}},
                                                                  TensorShape({2})),
                                       Axes({0}))),
              ElementsAre(complex64(4, 1)));
  EXPECT_THAT(Values<complex128>(Reduce("Mean", AsTensor<complex128>({{1, 2}, {3, -1}},
                                                                     TensorShape({2})),
                                        Axes({0}))),
              ElementsAre(complex128(2, 0.5)));
  EXPECT_THAT(Values<uint8>(Reduce("Min", AsTensor<uint8>({7, 3, 200}, TensorShape({3})),
                                   Axes({0}))),
              ElementsAre(3));
}

// Sums of `x` (shape `dims`) over the axes in `reduce`, computed naively.
std::vector<double> NaiveSum(const std::vector<double>& x, const std::vector<int64_t>& dims,
                             const std::vector<bool>& reduce) {
  std::vector<int64_t> out_dims;
  for (size_t d = 0; d < dims.size(); ++d) out_dims.push_back(reduce[d] ? 1 : dims[d]);
  int64_t n_out = 1;
  for (int64_t d : out_dims) n_out *= d;
  std::vector<double> out(n_out, 0);
  for (size_t i = 0; i < x.size(); ++i) {
    int64_t rest = static_cast<int64_t>(i), o = 0, stride = 1;
    for (size_t d = dims.size(); d-- > 0;) {
      const int64_t c = rest % dims[d];
      rest /= dims[d];
      if (!reduce[d]) o += c * stride;
      stride *= out_dims[d];
    }
    out[o] += x[i];
  }
  return out;
}

TEST_F(ReductionTest, AnyAxesOfARank4TensorMatchAReference) {
  const std::vector<int64_t> dims = {3, 4, 1, 5};
  Tensor x(DT_DOUBLE, TensorShape({3, 4, 1, 5}));
  std::vector<double> values;
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    values.push_back(static_cast<double>((i * 37) % 11) - 5);
    x.flat<double>()(i) = values.back();
  }
  for (int mask = 0; mask < 16; ++mask) {
    std::vector<bool> reduce(4);
    std::vector<int32> axes;
    for (int d = 0; d < 4; ++d) {
      reduce[d] = (mask >> d) & 1;
      if (reduce[d]) axes.push_back(d);
    }
    Tensor axes_t(DT_INT32, TensorShape({static_cast<int64_t>(axes.size())}));
    for (size_t i = 0; i < axes.size(); ++i) axes_t.flat<int32>()(i) = axes[i];
    SCOPED_TRACE(mask);
    const Tensor r = Reduce("Sum", x, axes_t, /*keep_dims=*/true);
    ASSERT_EQ(r.dims(), 4);
    const std::vector<double> want = NaiveSum(values, dims, reduce);
    EXPECT_EQ(Values<double>(r), want);
  }
}

TEST_F(ReductionTest, HalfAccumulatesInFloat) {
  // 4096 ones: a half accumulator would stop at 2048.
  Tensor x(DT_HALF, TensorShape({4096}));
  for (int64_t i = 0; i < 4096; ++i) x.flat<half>()(i) = half(1.0f);
  EXPECT_EQ(static_cast<float>(Values<half>(Reduce("Sum", x, Axes({0})))[0]), 4096.0f);
  EXPECT_EQ(static_cast<float>(Values<half>(Reduce("Mean", x, Axes({0})))[0]), 1.0f);
  Tensor b(DT_BFLOAT16, TensorShape({2, 2}));
  for (int64_t i = 0; i < 4; ++i) b.flat<bfloat16>()(i) = bfloat16(static_cast<float>(i));
  EXPECT_EQ(static_cast<float>(Values<bfloat16>(Reduce("Max", b, Axes({0, 1})))[0]), 3.0f);
}

TEST_F(ReductionTest, IntegerSumWraps) {
  const int32 max = std::numeric_limits<int32>::max();
  EXPECT_THAT(Values<int32>(Reduce("Sum", AsTensor<int32>({max, 1}, TensorShape({2})), Axes({0}))),
              ElementsAre(std::numeric_limits<int32>::min()));
  EXPECT_THAT(Values<int64>(Reduce("Prod", AsTensor<int64>({int64{1} << 40, int64{1} << 40},
                                                           TensorShape({2})),
                                   Axes({0}))),
              ElementsAre(0));
}

TEST_F(ReductionTest, NanPropagatesThroughMaxAndMin) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = AsTensor<float>({1, nan, 3, 4}, TensorShape({2, 2}));
  const std::vector<float> mx = Values<float>(Reduce("Max", x, Axes({1})));
  EXPECT_TRUE(std::isnan(mx[0]));
  EXPECT_EQ(mx[1], 4);
  const std::vector<float> mn = Values<float>(Reduce("Min", x, Axes({0})));
  EXPECT_EQ(mn[0], 1);
  EXPECT_TRUE(std::isnan(mn[1]));
}

TEST_F(ReductionTest, EmptyReductionsGiveTheIdentity) {
  const Tensor x(DT_FLOAT, TensorShape({0, 3}));
  Tensor r = Reduce("Sum", x, Axes({0}));
  EXPECT_EQ(r.shape(), TensorShape({3}));
  EXPECT_THAT(Values<float>(r), ElementsAre(0, 0, 0));
  EXPECT_THAT(Values<float>(Reduce("Prod", x, Axes({0}))), ElementsAre(1, 1, 1));
  EXPECT_THAT(Values<float>(Reduce("Max", x, Axes({0}))),
              ElementsAre(-INFINITY, -INFINITY, -INFINITY));
  EXPECT_THAT(Values<float>(Reduce("Min", x, Axes({0}))),
              ElementsAre(INFINITY, INFINITY, INFINITY));
  for (float v : Values<float>(Reduce("Mean", x, Axes({0})))) EXPECT_TRUE(std::isnan(v));
  const Tensor xi(DT_INT32, TensorShape({2, 0}));
  EXPECT_THAT(Values<int32>(Reduce("Mean", xi, Axes({1}))), ElementsAre(0, 0));
  EXPECT_THAT(Values<int32>(Reduce("Max", xi, Axes({1}))),
              ElementsAre(std::numeric_limits<int32>::lowest(),
                          std::numeric_limits<int32>::lowest()));
  // Nothing to reduce into: an empty output.
  EXPECT_EQ(Reduce("Sum", xi, Axes({0})).shape(), TensorShape({0}));
}

TEST_F(ReductionTest, ScalarInput) {
  const Tensor x = AsTensor<double>({2.5}, TensorShape({}));
  const Tensor r = Reduce("Sum", x, Tensor(DT_INT32, TensorShape({0})));
  EXPECT_EQ(r.shape(), TensorShape({}));
  EXPECT_THAT(Values<double>(r), ElementsAre(2.5));
  EXPECT_THAT(ReduceStatus("Sum", x, Axes({0})),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Invalid reduction dimension (0 for input with 0 dimension(s)")));
}

TEST_F(ReductionTest, LargeReductionsSplitAcrossThePool) {
  const int64_t n = 1 << 20;
  Tensor x(DT_FLOAT, TensorShape({n}));
  x.flat<float>().setConstant(1.0f);
  EXPECT_THAT(Values<float>(Reduce("Sum", x, Axes({0}))), ElementsAre(1048576.0f));
  Tensor m(DT_INT64, TensorShape({4, 1 << 16}));
  for (int64_t i = 0; i < m.NumElements(); ++i) m.flat<int64>()(i) = i % 5;
  const Tensor cols = Reduce("Sum", m, Axes({0}));
  ASSERT_EQ(cols.shape(), TensorShape({1 << 16}));
  for (int64_t j = 0; j < (1 << 16); ++j) {
    int64 want = 0;
    for (int64_t i = 0; i < 4; ++i) want += (i * (1 << 16) + j) % 5;
    ASSERT_EQ(cols.flat<int64>()(j), want) << j;
  }
  const Tensor rows = Reduce("Max", m, Axes({1}));
  EXPECT_THAT(Values<int64>(rows), ElementsAre(4, 4, 4, 4));
}

TEST_F(ReductionTest, BadAxesAreAnError) {
  const Tensor x = Matrix23();
  EXPECT_THAT(ReduceStatus("Sum", x, Axes({2})),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Invalid reduction dimension (2 for input with 2 dimension(s)")));
  EXPECT_THAT(ReduceStatus("Max", x, Axes({-3})),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Invalid reduction dimension (-3")));
  EXPECT_THAT(ReduceStatus("Mean", x, AsTensor<int64>({std::numeric_limits<int64>::min()},
                                                      TensorShape({1}))),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Invalid reduction dimension")));
  // An axis listed twice, directly or as its negative alias, is refused as
  // TensorFlow does (it would otherwise be silently reduced once).
  EXPECT_THAT(ReduceStatus("Sum", x, Axes({1, -1})),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Axes contains duplicate dimension: 1")));
  EXPECT_THAT(ReduceStatus("Mean", x, AsTensor<int64>({0, 0}, TensorShape({2}))),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Axes contains duplicate dimension: 0")));
  EXPECT_THAT(ReduceStatus("Sum", x, AsTensor<int32>({0, 1}, TensorShape({1, 2}))),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("reduction_indices must be a scalar or a vector")));
}

class ArgOpTest : public ReductionTest {
 protected:
  Status ArgStatus(const std::string& op, const Tensor& x, const Tensor& dim, Tensor* out,
                   DataType output_type = DT_INT64) {
    std::vector<Tensor> outs;
    OPKIT_RETURN_IF_ERROR(
        ctx_->Run(op, {x, dim}, {{"output_type", Type(output_type)}}, &outs));
    *out = outs.at(0);
    return OkStatus();
  }
  Tensor Arg(const std::string& op, const Tensor& x, int32 dim,
             DataType output_type = DT_INT64) {
    Tensor out;
    EXPECT_THAT(ArgStatus(op, x, AsTensor<int32>({dim}, TensorShape({})), &out, output_type),
                IsOk());
    EXPECT_EQ(out.dtype(), output_type);
    return out;
  }
};

TEST_F(ArgOpTest, AlongEachDimension) {
  const Tensor x = AsTensor<float>({3, 9, 1, 7, 2, 8}, TensorShape({2, 3}));
  EXPECT_THAT(Values<int64>(Arg("ArgMax", x, 0)), ElementsAre(1, 0, 1));
  EXPECT_THAT(Values<int64>(Arg("ArgMax", x, 1)), ElementsAre(1, 2));
  EXPECT_THAT(Values<int64>(Arg("ArgMin", x, -1)), ElementsAre(2, 1));
  EXPECT_THAT(Values<int32>(Arg("ArgMin", x, 0, DT_INT32)), ElementsAre(0, 1, 0));
  Tensor out;
  ASSERT_THAT(ArgStatus("ArgMax", x, AsTensor<int64>({1}, TensorShape({})), &out), IsOk());
  EXPECT_THAT(Values<int64>(out), ElementsAre(1, 2));
  const Tensor v = AsTensor<int32>({4, 9, 9, -1}, TensorShape({4}));
  const Tensor r = Arg("ArgMax", v, 0);
  EXPECT_EQ(r.shape(), TensorShape({}));
  EXPECT_THAT(Values<int64>(r), ElementsAre(1));  // the first of equal values
  EXPECT_THAT(Values<int64>(Arg("ArgMin", AsTensor<bool>({true, false, false}, TensorShape({3})),
                                0)),
              ElementsAre(1));
  EXPECT_THAT(Values<int64>(Arg("ArgMax", AsTensor<half>({half(1.0f), half(2.0f)},
                                                         TensorShape({2})),
                                0)),
              ElementsAre(1));
}

TEST_F(ArgOpTest, FirstNanWins) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = AsTensor<float>({1, nan, 5, nan}, TensorShape({4}));
  EXPECT_THAT(Values<int64>(Arg("ArgMax", x, 0)), ElementsAre(1));
  EXPECT_THAT(Values<int64>(Arg("ArgMin", x, 0)), ElementsAre(1));
}

TEST_F(ArgOpTest, Errors) {
  const Tensor x = AsTensor<float>({1, 2, 3, 4}, TensorShape({2, 2}));
  Tensor out;
  EXPECT_THAT(ArgStatus("ArgMax", x, AsTensor<int32>({2}, TensorShape({})), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Expected dimension in the range [-2, 2), but got 2")));
  EXPECT_THAT(ArgStatus("ArgMin", x, AsTensor<int32>({-3}, TensorShape({})), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Expected dimension in the range [-2, 2), but got -3")));
  EXPECT_THAT(ArgStatus("ArgMax", x, AsTensor<int32>({0}, TensorShape({1})), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("dim must be a scalar, but received tensor of shape: [1]")));
  EXPECT_THAT(ArgStatus("ArgMax", Tensor(DT_FLOAT, TensorShape({0, 3})),
                        AsTensor<int32>({0}, TensorShape({})), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Reduction axis 0 is empty in shape [0,3]")));
  EXPECT_THAT(ArgStatus("ArgMax", AsTensor<float>({1}, TensorShape({})),
                        AsTensor<int32>({0}, TensorShape({})), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Expected dimension in the range [0, 0), but got 0")));
  // Reducing a non-empty axis of an otherwise empty tensor is fine.
  ASSERT_THAT(ArgStatus("ArgMax", Tensor(DT_FLOAT, TensorShape({0, 3})),
                        AsTensor<int32>({1}, TensorShape({})), &out),
              IsOk());
  EXPECT_EQ(out.shape(), TensorShape({0}));
}

}  // namespace
}  // namespace opkit

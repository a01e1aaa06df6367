// Tests of the BatchMatMulV2 kernel: broadcast batches, adjoints, integer
// wrap-around, empty dimensions.
#include <complex>
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

template <typename T>
T FromInt(int v) {
  if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
    return T(v, (v * 3) % 4 - 1);
  } else {
    return static_cast<T>(static_cast<float>(v));
  }
}

template <typename T>
Tensor Filled(const TensorShape& shape, int seed) {
  Tensor t(DataTypeToEnum<T>::value, shape);
  auto f = t.flat<T>();
  for (int64_t i = 0; i < f.size(); ++i) f(i) = FromInt<T>(static_cast<int>((i * 7 + seed) % 5) - 2);
  return t;
}

template <typename T>
T Conj(T v) {
  if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
    return std::conj(v);
  } else {
    return v;
  }
}

// The naive batched product with numpy broadcasting of the batch dims.
template <typename T>
std::vector<T> Naive(const Tensor& x, const Tensor& y, bool adj_x, bool adj_y,
                     const TensorShape& out) {
  const int xr = x.dims(), yr = y.dims(), orank = out.dims();
  const int64_t M = out.dim_size(orank - 2), N = out.dim_size(orank - 1);
  const int64_t K = adj_x ? x.dim_size(xr - 2) : x.dim_size(xr - 1);
  const int64_t batches = out.num_elements() / (M * N);
  std::vector<T> z;
  auto xf = x.flat<T>();
  auto yf = y.flat<T>();
  for (int64_t b = 0; b < batches; ++b) {
    // Batch coordinates, then the matching batch of x and y.
    std::vector<int64_t> coord(orank - 2);
    int64_t rest = b;
    for (int d = orank - 3; d >= 0; --d) {
      coord[d] = rest % out.dim_size(d);
      rest /= out.dim_size(d);
    }
    auto batch_of = [&](const Tensor& t) {
      int64_t idx = 0;
      for (int d = 0; d < t.dims() - 2; ++d) {
        const int od = d + (orank - t.dims());
        idx = idx * t.dim_size(d) + (t.dim_size(d) == 1 ? 0 : coord[od]);
      }
      return idx;
    };
    const int64_t xb = batch_of(x), yb = batch_of(y);
    const int64_t xrows = x.dim_size(xr - 2), xcols = x.dim_size(xr - 1);
    const int64_t yrows = y.dim_size(yr - 2), ycols = y.dim_size(yr - 1);
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t j = 0; j < N; ++j) {
        T acc = T(0);
        for (int64_t k = 0; k < K; ++k) {
          const T a = adj_x ? Conj(xf(xb * xrows * xcols + k * xcols + i))
                            : xf(xb * xrows * xcols + i * xcols + k);
          const T c = adj_y ? Conj(yf(yb * yrows * ycols + j * ycols + k))
                            : yf(yb * yrows * ycols + k * ycols + j);
          acc = acc + a * c;
        }
        z.push_back(acc);
      }
    }
  }
  return z;
}

template <typename T>
double ToDouble(T v) {
  if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
    return static_cast<double>(v.real()) * 1000 + static_cast<double>(v.imag());
  } else {
    return static_cast<double>(static_cast<float>(v));
  }
}

template <typename T>
class BatchMatMulTypedTest : public ::testing::Test {};

using BatchMatMulTypes =
    ::testing::Types<float, double, half, bfloat16, int16, int32, int64, complex64, complex128>;
TYPED_TEST_SUITE(BatchMatMulTypedTest, BatchMatMulTypes);

TYPED_TEST(BatchMatMulTypedTest, MatchesNaiveReferenceWithBroadcastAndAdjoints) {
  using T = TypeParam;
  auto ctx = EagerContext::Create();
  ASSERT_THAT(ctx, IsOk());
  for (bool adj_x : {false, true}) {
    for (bool adj_y : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "adj_x=" << adj_x << " adj_y=" << adj_y);
      // op(x) is [2,1,3,4] (batch [2,1]), op(y) is [3,4,5] (batch [3]).
      const Tensor x = Filled<T>(adj_x ? TensorShape({2, 1, 4, 3}) : TensorShape({2, 1, 3, 4}), 1);
      const Tensor y = Filled<T>(adj_y ? TensorShape({3, 5, 4}) : TensorShape({3, 4, 5}), 2);
      std::vector<Tensor> out;
      ASSERT_THAT((*ctx)->Run("BatchMatMulV2", {x, y},
                              {{"adj_x", Attr(adj_x)}, {"adj_y", Attr(adj_y)}}, &out),
                  IsOk());
      ASSERT_EQ(out[0].shape(), TensorShape({2, 3, 3, 5}));
      const std::vector<T> want = Naive<T>(x, y, adj_x, adj_y, out[0].shape());
      auto got = out[0].flat<T>();
      ASSERT_EQ(static_cast<size_t>(got.size()), want.size());
      for (int64_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(ToDouble(got(i)), ToDouble(want[i])) << "element " << i;
      }
    }
  }
}

class BatchMatMulTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx, IsOk());
    ctx_ = std::move(ctx).value();
  }
  Status Run(const Tensor& x, const Tensor& y, std::vector<Tensor>* out,
             bool adj_x = false, bool adj_y = false) {
    return ctx_->Run("BatchMatMulV2", {x, y}, {{"adj_x", Attr(adj_x)}, {"adj_y", Attr(adj_y)}},
                     out);
  }
  std::unique_ptr<EagerContext> ctx_;
};

TEST_F(BatchMatMulTest, PlainMatrices) {
  std::vector<Tensor> out;
  ASSERT_THAT(Run(AsTensor<float>({1, 2, 3, 4}, TensorShape({2, 2})),
                  AsTensor<float>({5, 6, 7, 8}, TensorShape({2, 2})), &out),
              IsOk());
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(19, 22, 43, 50));
}

TEST_F(BatchMatMulTest, ComplexAdjointConjugates) {
  std::vector<Tensor> out;
  // x = [[i]], adj(x) = [[-i]]; y = [[i]]: (-i)(i) = 1.
  ASSERT_THAT(Run(AsTensor<complex64>({{0, 1}}, TensorShape({1, 1})),
                  AsTensor<complex64>({{0, 1}}, TensorShape({1, 1})), &out, true, false),
              IsOk());
  EXPECT_THAT(Values<complex64>(out[0]), ElementsAre(complex64(1, 0)));
}

TEST_F(BatchMatMulTest, IntegerOverflowWraps) {
  std::vector<Tensor> out;
  const int32 big = 1 << 16;
  ASSERT_THAT(Run(AsTensor<int32>({big, big}, TensorShape({1, 2})),
                  AsTensor<int32>({big, big}, TensorShape({2, 1})), &out),
              IsOk());
  EXPECT_THAT(Values<int32>(out[0]), ElementsAre(0));
}

TEST_F(BatchMatMulTest, EmptyDimensions) {
  std::vector<Tensor> out;
  // K = 0: zeros.
  ASSERT_THAT(Run(Tensor(DT_FLOAT, TensorShape({2, 3, 0})), Tensor(DT_FLOAT, TensorShape({0, 4})),
                  &out),
              IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({2, 3, 4}));
  for (float v : Values<float>(out[0])) EXPECT_EQ(v, 0.0f);
  // An empty batch.
  ASSERT_THAT(Run(Tensor(DT_DOUBLE, TensorShape({0, 3, 2})), Tensor(DT_DOUBLE, TensorShape({2, 4})),
                  &out),
              IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({0, 3, 4}));
  // M = 0.
  ASSERT_THAT(Run(Tensor(DT_FLOAT, TensorShape({0, 2})), Tensor(DT_FLOAT, TensorShape({2, 4})),
                  &out),
              IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({0, 4}));
}

TEST_F(BatchMatMulTest, ManyBatchesUseThePool) {
  const int64_t batches = 512;
  Tensor x(DT_FLOAT, TensorShape({batches, 8, 8}));
  Tensor y(DT_FLOAT, TensorShape({8, 8}));
  x.flat<float>().setConstant(1.0f);
  y.flat<float>().setConstant(0.5f);
  std::vector<Tensor> out;
  ASSERT_THAT(Run(x, y, &out), IsOk());
  ASSERT_EQ(out[0].shape(), TensorShape({batches, 8, 8}));
  for (int64_t i = 0; i < out[0].NumElements(); ++i) ASSERT_EQ(out[0].flat<float>()(i), 4.0f);
}

TEST(BatchMatMulPoolTest, FewLargeProductsSplitEachProductAcrossThePool) {
  // Two products of 96x80 by 80x70 on a 4-thread pool: fewer products than
  // threads, each above the size where one product is split across threads.
  EagerContext::Options options;
  options.intra_op_threads = 4;
  auto ctx = EagerContext::Create(options);
  ASSERT_THAT(ctx, IsOk());
  for (bool adj_x : {false, true}) {
    for (bool adj_y : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "adj_x=" << adj_x << " adj_y=" << adj_y);
      const Tensor x = Filled<double>(adj_x ? TensorShape({2, 80, 96}) : TensorShape({2, 96, 80}), 3);
      const Tensor y = Filled<double>(adj_y ? TensorShape({70, 80}) : TensorShape({80, 70}), 4);
      std::vector<Tensor> out;
      ASSERT_THAT((*ctx)->Run("BatchMatMulV2", {x, y},
                              {{"adj_x", Attr(adj_x)}, {"adj_y", Attr(adj_y)}}, &out),
                  IsOk());
      ASSERT_EQ(out[0].shape(), TensorShape({2, 96, 70}));
      const std::vector<double> want = Naive<double>(x, y, adj_x, adj_y, out[0].shape());
      auto got = out[0].flat<double>();
      for (int64_t i = 0; i < got.size(); ++i) ASSERT_EQ(got(i), want[i]) << "element " << i;
    }
  }
}

TEST_F(BatchMatMulTest, Errors) {
  std::vector<Tensor> out;
  EXPECT_THAT(Run(Tensor(DT_FLOAT, TensorShape({3})), Tensor(DT_FLOAT, TensorShape({3, 3})), &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("In[0] ndims must be >= 2: 1")));
  EXPECT_THAT(Run(Tensor(DT_FLOAT, TensorShape({3, 3})), Tensor(DT_FLOAT, TensorShape({})), &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("In[1] ndims must be >= 2: 0")));
  EXPECT_THAT(Run(Tensor(DT_FLOAT, TensorShape({2, 3, 4})),
                  Tensor(DT_FLOAT, TensorShape({3, 4, 5})), &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("In[0] and In[1] must have compatible batch dimensions: "
                                 "[2,3,4] vs. [3,4,5]")));
  EXPECT_THAT(Run(Tensor(DT_FLOAT, TensorShape({2, 3})), Tensor(DT_FLOAT, TensorShape({4, 5})),
                  &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]")));
  EXPECT_THAT(Run(Tensor(DT_FLOAT, TensorShape({2, 3})), Tensor(DT_FLOAT, TensorShape({2, 5})),
                  &out, /*adj_x=*/false, /*adj_y=*/true),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Matrix size-incompatible")));
  EXPECT_FALSE(ctx_->Run("BatchMatMulV2", {Tensor(DT_UINT8, TensorShape({1, 1})),
                                           Tensor(DT_UINT8, TensorShape({1, 1}))},
                         &out)
                   .ok());
}

}  // namespace
}  // namespace opkit

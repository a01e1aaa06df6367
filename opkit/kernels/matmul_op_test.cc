// Tests of the MatMul kernel: values, transposes, errors naming the node.
#include <complex>
#include <memory>
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
using test::Attr;
using ::testing::HasSubstr;

template <typename T>
T FromInt(int v) {
  if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
    return T(v, -v);
  } else {
    return static_cast<T>(static_cast<float>(v));
  }
}

template <typename T>
double ToDouble(T v) {
  if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
    return static_cast<double>(v.real()) * 1000 + static_cast<double>(v.imag());
  } else {
    return static_cast<double>(static_cast<float>(v));
  }
}

// A rows x cols matrix of small integers (exact in every type, half and
// bfloat16 included, for the sizes used here).
template <typename T>
Tensor Matrix(int64_t rows, int64_t cols, int seed) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape({rows, cols}));
  auto m = t.matrix<T>();
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      m(i, j) = FromInt<T>(static_cast<int>((i * 7 + j * 3 + seed) % 5) - 2);
    }
  }
  return t;
}

// Naive product of op(a) and op(b), where op transposes when asked.
template <typename T>
std::vector<T> NaiveMatMul(const Tensor& a, const Tensor& b, bool ta, bool tb,
                           int64_t* m_out, int64_t* n_out) {
  auto am = a.matrix<T>();
  auto bm = b.matrix<T>();
  const int64_t m = ta ? a.dim_size(1) : a.dim_size(0);
  const int64_t k = ta ? a.dim_size(0) : a.dim_size(1);
  const int64_t n = tb ? b.dim_size(0) : b.dim_size(1);
  std::vector<T> out(m * n, T(0));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      T acc = T(0);
      for (int64_t p = 0; p < k; ++p) {
        T x = ta ? am(p, i) : am(i, p);
        T y = tb ? bm(j, p) : bm(p, j);
        acc = acc + x * y;
      }
      out[i * n + j] = acc;
    }
  }
  *m_out = m;
  *n_out = n;
  return out;
}

template <typename T>
class MatMulTest : public ::testing::Test {};

using MatMulTypes = ::testing::Types<float, double, half, bfloat16, int32, int64,
                                     complex64, complex128>;
TYPED_TEST_SUITE(MatMulTest, MatMulTypes);

TYPED_TEST(MatMulTest, MatchesNaiveReferenceForEveryTranspose) {
  using T = TypeParam;
  auto ctx = EagerContext::Create();
  ASSERT_THAT(ctx, IsOk());
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "transpose_a=" << ta << " transpose_b=" << tb);
      // op(a) is 5x4, op(b) is 4x3.
      Tensor a = ta ? Matrix<T>(4, 5, 1) : Matrix<T>(5, 4, 1);
      Tensor b = tb ? Matrix<T>(3, 4, 2) : Matrix<T>(4, 3, 2);
      std::vector<Tensor> out;
      ASSERT_THAT((*ctx)->Run("MatMul", {a, b},
                              {{"transpose_a", Attr(ta)}, {"transpose_b", Attr(tb)}},
                              &out),
                  IsOk());
      int64_t m = 0, n = 0;
      std::vector<T> want = NaiveMatMul<T>(a, b, ta, tb, &m, &n);
      ASSERT_EQ(out[0].shape(), TensorShape({m, n}));
      ASSERT_EQ(out[0].dtype(), DataTypeToEnum<T>::value);
      auto got = out[0].flat<T>();
      for (int64_t i = 0; i < m * n; ++i) {
        EXPECT_EQ(ToDouble(got(i)), ToDouble(want[i])) << "element " << i;
      }
    }
  }
}

// The default float and double kernels (BlasGemm when the build has
// OpenBLAS, cut into blocks over the intra-op pool) against the
// Label("eigen") kernel, for every transpose combination, on shapes that are
// odd, empty, have an empty inner dimension, or are large enough to be cut
// into row blocks (m >= n) or column blocks (n > m) on 2 and 3 threads.
// Small integers keep both products exact, so they must agree exactly.
template <typename T>
class MatMulBlasTest : public ::testing::Test {};
using MatMulBlasTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(MatMulBlasTest, MatMulBlasTypes);

TYPED_TEST(MatMulBlasTest, MatchesEigenKernelForEveryTransposeAndShape) {
  using T = TypeParam;
  AttrValue eigen;
  eigen.set_s("eigen");
  struct Dims {
    int64_t m, k, n;
  };
  const Dims shapes[] = {{1, 1, 1},   {5, 3, 7},   {0, 4, 3},   {4, 0, 3},
                         {3, 4, 0},   {0, 0, 0},   {67, 61, 131}, {131, 61, 67},
                         {37, 71, 203}, {203, 71, 37}, {64, 784, 512}};
  for (int threads : {1, 2, 3}) {
    EagerContext::Options options;
    options.intra_op_threads = threads;
    auto ctx = EagerContext::Create(options);
    ASSERT_THAT(ctx, IsOk());
    for (const Dims& d : shapes) {
      for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
          SCOPED_TRACE(::testing::Message()
                       << "threads=" << threads << " m=" << d.m << " k=" << d.k
                       << " n=" << d.n << " transpose_a=" << ta
                       << " transpose_b=" << tb);
          Tensor a = ta ? Matrix<T>(d.k, d.m, 1) : Matrix<T>(d.m, d.k, 1);
          Tensor b = tb ? Matrix<T>(d.n, d.k, 2) : Matrix<T>(d.k, d.n, 2);
          std::vector<Tensor> got, want;
          ASSERT_THAT((*ctx)->Run("MatMul", {a, b},
                                  {{"transpose_a", Attr(ta)}, {"transpose_b", Attr(tb)}},
                                  &got),
                      IsOk());
          ASSERT_THAT((*ctx)->Run("MatMul", {a, b},
                                  {{"transpose_a", Attr(ta)},
                                   {"transpose_b", Attr(tb)},
                                   {"_kernel", eigen}},
                                  &want),
                      IsOk());
          ASSERT_EQ(got[0].shape(), TensorShape({d.m, d.n}));
          ASSERT_EQ(want[0].shape(), TensorShape({d.m, d.n}));
          auto g = got[0].flat<T>();
          auto w = want[0].flat<T>();
          int mismatches = 0;
          for (int64_t i = 0; i < d.m * d.n && mismatches < 5; ++i) {
            if (g(i) != w(i)) {
              ++mismatches;
              ADD_FAILURE() << "element " << i << ": " << g(i) << " != " << w(i);
            }
          }
        }
      }
    }
  }
}

class MatMulErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx, IsOk());
    ctx_ = std::move(ctx).value();
  }
  std::unique_ptr<EagerContext> ctx_;
};

TEST_F(MatMulErrorsTest, NonMatrixInput) {
  std::vector<Tensor> out;
  EXPECT_THAT(ctx_->Run("MatMul", {Tensor(DT_FLOAT, TensorShape({3})),
                                   Matrix<float>(3, 3, 0)}, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("In[0] is not a matrix. Instead it has shape [3]")));
}

TEST_F(MatMulErrorsTest, IncompatibleInnerDimensionsNameTheNode) {
  std::vector<Tensor> out;
  EXPECT_THAT(ctx_->Run("MatMul", {Matrix<float>(2, 3, 0), Matrix<float>(4, 5, 0)}, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]"),
                             HasSubstr("MatMul"))));
}

TEST_F(MatMulErrorsTest, EmptyInnerDimensionGivesZeros) {
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("MatMul", {Tensor(DT_FLOAT, TensorShape({2, 0})),
                                   Tensor(DT_FLOAT, TensorShape({0, 3}))}, &out),
              IsOk());
  EXPECT_EQ(out[0].shape(), TensorShape({2, 3}));
  for (float v : test::Values<float>(out[0])) EXPECT_EQ(v, 0.f);
}

TEST_F(MatMulErrorsTest, TypeOutsideTheOpIsRejected) {
  std::vector<Tensor> out;
  EXPECT_THAT(ctx_->Run("MatMul", {Tensor(DT_UINT8, TensorShape({1, 1})),
                                   Tensor(DT_UINT8, TensorShape({1, 1}))}, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("uint8")));
}

TEST_F(MatMulErrorsTest, LabelSelectsTheEigenKernel) {
  AttrValue label;
  label.set_s("eigen");
  auto explained = ctx_->Explain("MatMul", {DT_FLOAT, DT_FLOAT}, {{"_kernel", label}});
  ASSERT_THAT(explained, IsOk());
  ASSERT_GE(explained->winner, 0) << explained->ToString();
  EXPECT_EQ(explained->candidates[explained->winner].def.label(), "eigen");
}

}  // namespace
}  // namespace opkit

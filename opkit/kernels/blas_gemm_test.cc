// BlasGemm against the textbook triple loop on every backend this build and
// CPU have: float and double, leading dimensions wider than the rows, empty
// products, and output memory that must be overwritten or left alone.
#include "opkit/kernels/blas_gemm.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "gtest/gtest.h"

namespace opkit {
namespace {

template <typename T>
std::vector<T> Random(int64_t size, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<T> v(static_cast<size_t>(size));
  for (T& x : v) x = static_cast<T>(dist(gen));
  return v;
}

// The backends this build and CPU have, each set in turn by ForEachBackend.
std::vector<GemmBackend> AvailableBackends() {
  std::vector<GemmBackend> out;
  const GemmBackend chosen = BlasGemmBackend();
  for (GemmBackend b : {GemmBackend::kOpenBlas, GemmBackend::kEigenAvx512,
                        GemmBackend::kEigen}) {
    if (SetBlasGemmBackend(b).ok()) out.push_back(b);
  }
  EXPECT_TRUE(SetBlasGemmBackend(chosen).ok());
  return out;
}

// Runs `body` once on each available backend, then restores the chosen one.
template <typename Body>
void ForEachBackend(Body body) {
  const GemmBackend chosen = BlasGemmBackend();
  for (GemmBackend b : AvailableBackends()) {
    SCOPED_TRACE(GemmBackendName(b));
    ASSERT_TRUE(SetBlasGemmBackend(b).ok());
    body();
  }
  ASSERT_TRUE(SetBlasGemmBackend(chosen).ok());
}

template <typename T>
class BlasGemmTest : public ::testing::Test {};
using GemmTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BlasGemmTest, GemmTypes);

TYPED_TEST(BlasGemmTest, MatchesTripleLoopWithPaddedLeadingDimensions) {
  using T = TypeParam;
  ForEachBackend([&] {
    struct Case {
      int64_t m, n, k, pad_a, pad_b, pad_c;
    };
    // Odd sizes, a single element, and sizes past OpenBLAS's blocking.
    const Case cases[] = {{1, 1, 1, 0, 0, 0},     {7, 5, 3, 2, 1, 4},
                          {67, 33, 129, 3, 5, 1}, {130, 257, 300, 0, 7, 0},
                          {1, 300, 17, 1, 0, 2},  {300, 1, 17, 0, 1, 0}};
    uint32_t seed = 1;
    for (const Case& c : cases) {
      SCOPED_TRACE(::testing::Message()
                   << c.m << "x" << c.k << " * " << c.k << "x" << c.n);
      const int64_t lda = c.k + c.pad_a, ldb = c.n + c.pad_b, ldc = c.n + c.pad_c;
      const std::vector<T> a = Random<T>(c.m * lda, seed++);
      const std::vector<T> b = Random<T>(c.k * ldb, seed++);
      // Padding columns of c hold a marker that must survive.
      std::vector<T> out(static_cast<size_t>(c.m * ldc), T(-7));
      BlasGemm(c.m, c.n, c.k, a.data(), lda, b.data(), ldb, out.data(), ldc);
      const double tolerance = std::is_same_v<T, float> ? 1e-4 : 1e-12;
      for (int64_t i = 0; i < c.m; ++i) {
        for (int64_t j = 0; j < ldc; ++j) {
          const T got = out[i * ldc + j];
          if (j >= c.n) {
            ASSERT_EQ(got, T(-7)) << "padding (" << i << ", " << j << ")";
            continue;
          }
          double want = 0;
          for (int64_t l = 0; l < c.k; ++l) {
            want += static_cast<double>(a[i * lda + l]) *
                    static_cast<double>(b[l * ldb + j]);
          }
          ASSERT_NEAR(got, want, tolerance * (1 + std::fabs(want)))
              << "(" << i << ", " << j << ")";
        }
      }
    }
  });
}

TYPED_TEST(BlasGemmTest, TransposedOperandsMatchTripleLoop) {
  using T = TypeParam;
  ForEachBackend([&] {
    const int64_t m = 37, n = 19, k = 23;
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        SCOPED_TRACE(::testing::Message()
                     << "transpose_a " << ta << " transpose_b " << tb);
        // Stored shapes [k, m] / [n, k] when transposed, each row padded by 3.
        const int64_t lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 3, ldc = n;
        const std::vector<T> a = Random<T>((ta ? k : m) * lda, 11);
        const std::vector<T> b = Random<T>((tb ? n : k) * ldb, 12);
        std::vector<T> out(static_cast<size_t>(m * ldc));
        BlasGemm(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, out.data(), ldc);
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            double want = 0;
            for (int64_t l = 0; l < k; ++l) {
              want += static_cast<double>(ta ? a[l * lda + i] : a[i * lda + l]) *
                      static_cast<double>(tb ? b[j * ldb + l] : b[l * ldb + j]);
            }
            ASSERT_NEAR(out[i * ldc + j], want, 1e-4 * (1 + std::fabs(want)))
                << "(" << i << ", " << j << ")";
          }
        }
      }
    }
  });
}

TYPED_TEST(BlasGemmTest, OverwritesNaNInTheOutput) {
  using T = TypeParam;
  ForEachBackend([&] {
    const std::vector<T> a = {1, 2, 3, 4};  // [[1, 2], [3, 4]]
    const std::vector<T> b = {5, 6, 7, 8};  // [[5, 6], [7, 8]]
    std::vector<T> out(4, std::numeric_limits<T>::quiet_NaN());
    BlasGemm(2, 2, 2, a.data(), 2, b.data(), 2, out.data(), 2);
    EXPECT_EQ(out, (std::vector<T>{19, 22, 43, 50}));
  });
}

TYPED_TEST(BlasGemmTest, EmptyInnerDimensionWritesZeros) {
  using T = TypeParam;
  ForEachBackend([&] {
    const T unused = 0;
    std::vector<T> out(6, std::numeric_limits<T>::quiet_NaN());
    // 2 x 0 times 0 x 2 into a 2 x 3 buffer: the third column stays.
    BlasGemm(2, 2, 0, &unused, 1, &unused, 2, out.data(), 3);
    EXPECT_EQ(out[0], T(0));
    EXPECT_EQ(out[1], T(0));
    EXPECT_TRUE(std::isnan(out[2]));
    EXPECT_EQ(out[3], T(0));
    EXPECT_EQ(out[4], T(0));
    EXPECT_TRUE(std::isnan(out[5]));
  });
}

TYPED_TEST(BlasGemmTest, EmptyOutputTouchesNothing) {
  using T = TypeParam;
  ForEachBackend([&] {
    const std::vector<T> a(6, T(1));
    std::vector<T> out(6, T(-7));
    BlasGemm(0, 3, 2, a.data(), 2, a.data(), 3, out.data(), 3);
    BlasGemm(2, 0, 3, a.data(), 3, a.data(), 1, out.data(), 3);
    EXPECT_EQ(out, std::vector<T>(6, T(-7)));
  });
}

TEST(BlasGemmBackendTest, ChoosesAvx512OnlyOnACpuThatHasIt) {
  const GemmBackend chosen = BlasGemmBackend();
#if defined(__x86_64__)
  __builtin_cpu_init();
  const bool has_avx512 =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
#else
  const bool has_avx512 = false;
#endif
  if (!has_avx512) {
    EXPECT_NE(chosen, GemmBackend::kEigenAvx512);
    const Status s = SetBlasGemmBackend(GemmBackend::kEigenAvx512);
    EXPECT_EQ(s.code(), error::INVALID_ARGUMENT);
    EXPECT_NE(s.message().find("no AVX-512"), std::string::npos) << s;
    EXPECT_EQ(BlasGemmBackend(), chosen);
  }
  EXPECT_TRUE(SetBlasGemmBackend(GemmBackend::kEigen).ok());
  EXPECT_EQ(BlasGemmBackend(), GemmBackend::kEigen);
  EXPECT_TRUE(SetBlasGemmBackend(chosen).ok());
  EXPECT_STREQ(GemmBackendName(GemmBackend::kEigenAvx512), "eigen_avx512");
}

TEST(BlasGemmBackendTest, AValueOutsideTheEnumIsRefused) {
  const GemmBackend chosen = BlasGemmBackend();
  const Status s = SetBlasGemmBackend(static_cast<GemmBackend>(7));
  EXPECT_EQ(s.code(), error::INVALID_ARGUMENT);
  EXPECT_NE(s.message().find("not a GemmBackend value"), std::string::npos) << s;
  EXPECT_EQ(BlasGemmBackend(), chosen);
}

}  // namespace
}  // namespace opkit

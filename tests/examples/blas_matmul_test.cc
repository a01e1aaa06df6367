// examples/blas_matmul: loading it makes MatMul (float, double) run on the
// BLAS, with the same results as the built-in kernel for every transpose
// combination and the same errors; unloading gives the built-in back.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/runtime/library.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

template <typename T>
Tensor Random(int64_t rows, int64_t cols) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape({rows, cols}));
  t.flat<T>().setRandom();
  return t;
}

AttrValue Bool(bool b) {
  AttrValue v;
  v.set_b(b);
  return v;
}

template <typename T>
void ExpectSameAsBuiltin(double tolerance) {
  auto ctx = EagerContext::Create();
  ASSERT_THAT(ctx.status(), IsOk());
  const DataType dt = DataTypeToEnum<T>::value;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(std::to_string(ta) + std::to_string(tb));
      const Tensor a = ta ? Random<T>(37, 23) : Random<T>(23, 37);
      const Tensor b = tb ? Random<T>(19, 37) : Random<T>(37, 19);
      const EagerAttrs attrs = {{"transpose_a", Bool(ta)}, {"transpose_b", Bool(tb)}};
      std::vector<Tensor> builtin, replaced;
      ASSERT_THAT((*ctx)->Run("MatMul", {a, b}, attrs, &builtin), IsOk());
      StatusOr<OpLibrary> lib = LoadOpLibrary(BLAS_MATMUL_LIB);
      ASSERT_THAT(lib.status(), IsOk());
      auto explained = (*ctx)->Explain("MatMul", {dt, dt}, attrs);
      ASSERT_THAT(explained.status(), IsOk());
      EXPECT_EQ(explained->candidates[explained->winner].kernel_class_name,
                dt == DT_FLOAT ? "BlasMatMulOp<float>" : "BlasMatMulOp<double>");
      ASSERT_THAT((*ctx)->Run("MatMul", {a, b}, attrs, &replaced), IsOk());
      ASSERT_EQ(replaced[0].shape(), builtin[0].shape());
      auto x = replaced[0].flat<T>();
      auto y = builtin[0].flat<T>();
      for (int64_t i = 0; i < x.size(); ++i) ASSERT_NEAR(x(i), y(i), tolerance) << i;
      ASSERT_THAT(lib->Unload(), IsOk());
    }
  }
}

TEST(BlasMatMulTest, FloatMatchesTheBuiltinKernel) { ExpectSameAsBuiltin<float>(1e-4); }
TEST(BlasMatMulTest, DoubleMatchesTheBuiltinKernel) { ExpectSameAsBuiltin<double>(1e-10); }

TEST(BlasMatMulTest, BadShapesAndEmptyMatrices) {
  auto ctx = EagerContext::Create();
  ASSERT_THAT(ctx.status(), IsOk());
  StatusOr<OpLibrary> lib = LoadOpLibrary(BLAS_MATMUL_LIB);
  ASSERT_THAT(lib.status(), IsOk());
  std::vector<Tensor> out;
  EXPECT_THAT((*ctx)->Run("MatMul", {Random<float>(2, 3), Random<float>(4, 5)}, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("size-incompatible")));
  Tensor vector(DT_FLOAT, TensorShape({3}));
  vector.flat<float>().setZero();
  EXPECT_THAT((*ctx)->Run("MatMul", {vector, Random<float>(3, 2)}, &out),
              StatusIs(error::INVALID_ARGUMENT));
  // k == 0: a zero matrix, not whatever the output buffer held.
  ASSERT_THAT((*ctx)->Run("MatMul", {Random<float>(3, 0), Random<float>(0, 2)}, &out),
              IsOk());
  ASSERT_EQ(out[0].shape(), TensorShape({3, 2}));
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(out[0].flat<float>()(i), 0.f);
  ASSERT_THAT((*ctx)->Run("MatMul", {Random<float>(0, 4), Random<float>(4, 2)}, &out),
              IsOk());
  EXPECT_EQ(out[0].NumElements(), 0);
  ASSERT_THAT(lib->Unload(), IsOk());
}

}  // namespace
}  // namespace opkit

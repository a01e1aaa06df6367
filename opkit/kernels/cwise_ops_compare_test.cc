// Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual, LogicalAnd,
// LogicalOr, Select, SelectV2.
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

class CompareOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx, IsOk());
    ctx_ = std::move(ctx).value();
  }

  Tensor Run(const std::string& op, const std::vector<Tensor>& in,
             const EagerAttrs& attrs = {}) {
    std::vector<Tensor> out;
    Status s = ctx_->Run(op, in, attrs, &out);
    EXPECT_THAT(s, IsOk()) << op;
    if (!s.ok() || out.size() != 1) return Tensor();
    return out[0];
  }
  Status RunStatus(const std::string& op, const std::vector<Tensor>& in,
                   const EagerAttrs& attrs = {}) {
    std::vector<Tensor> out;
    return ctx_->Run(op, in, attrs, &out);
  }

  std::unique_ptr<EagerContext> ctx_;
};

TEST_F(CompareOpsTest, OrderedComparisons) {
  const Tensor x = AsTensor<float>({1, 2, 3}, TensorShape({3}));
  const Tensor y = AsTensor<float>({2}, TensorShape({}));
  EXPECT_THAT(Values<bool>(Run("Less", {x, y})), ElementsAre(true, false, false));
  EXPECT_THAT(Values<bool>(Run("LessEqual", {x, y})), ElementsAre(true, true, false));
  EXPECT_THAT(Values<bool>(Run("Greater", {x, y})), ElementsAre(false, false, true));
  EXPECT_THAT(Values<bool>(Run("GreaterEqual", {x, y})), ElementsAre(false, true, true));
  const Tensor z = Run("Less", {AsTensor<int64>({1, 5}, TensorShape({2, 1})),
                                AsTensor<int64>({0, 3, 9}, TensorShape({1, 3}))});
  EXPECT_EQ(z.dtype(), DT_BOOL);
  EXPECT_EQ(z.shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values<bool>(z), ElementsAre(false, true, true, false, false, true));
  EXPECT_THAT(Values<bool>(Run("Greater", {AsTensor<half>({half(1.0f)}, TensorShape({1})),
                                           AsTensor<half>({half(0.5f)}, TensorShape({1}))})),
              ElementsAre(true));
  EXPECT_THAT(Values<bool>(Run("LessEqual", {AsTensor<int32>({-1}, TensorShape({1})),
                                             AsTensor<int32>({-1}, TensorShape({1}))})),
              ElementsAre(true));
}

TEST_F(CompareOpsTest, NanComparesFalse) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = AsTensor<float>({nan}, TensorShape({1}));
  for (const char* op : {"Less", "LessEqual", "Greater", "GreaterEqual", "Equal"}) {
    EXPECT_THAT(Values<bool>(Run(op, {x, x})), ElementsAre(false)) << op;
  }
  EXPECT_THAT(Values<bool>(Run("NotEqual", {x, x})), ElementsAre(true));
}

TEST_F(CompareOpsTest, EqualityOnEveryKind) {
  EXPECT_THAT(Values<bool>(Run("Equal", {AsTensor<int32>({1, 2}, TensorShape({2})),
                                         AsTensor<int32>({1, 3}, TensorShape({2}))})),
              ElementsAre(true, false));
  EXPECT_THAT(Values<bool>(Run("NotEqual", {AsTensor<tstring>({"a", "b"}, TensorShape({2})),
                                            AsTensor<tstring>({"a"}, TensorShape({}))})),
              ElementsAre(false, true));
  EXPECT_THAT(Values<bool>(Run("Equal", {AsTensor<bool>({true, false}, TensorShape({2})),
                                         AsTensor<bool>({false}, TensorShape({1}))})),
              ElementsAre(false, true));
  EXPECT_THAT(Values<bool>(Run("Equal", {AsTensor<bfloat16>({bfloat16(1.0f)}, TensorShape({1})),
                                         AsTensor<bfloat16>({bfloat16(1.0f)}, TensorShape({1}))})),
              ElementsAre(true));
}

TEST_F(CompareOpsTest, IncompatibleShapes) {
  const Tensor x = AsTensor<float>({1, 2}, TensorShape({2}));
  const Tensor y = AsTensor<float>({1, 2, 3}, TensorShape({3}));
  EXPECT_THAT(RunStatus("Equal", {x, y}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Incompatible shapes: [2] vs. [3]")));
  EXPECT_THAT(RunStatus("Less", {x, y}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Incompatible shapes: [2] vs. [3]")));
  const Tensor eq = Run("Equal", {x, y}, {{"incompatible_shape_error", Attr(false)}});
  EXPECT_EQ(eq.shape(), TensorShape({}));
  EXPECT_THAT(Values<bool>(eq), ElementsAre(false));
  const Tensor ne = Run("NotEqual", {x, y}, {{"incompatible_shape_error", Attr(false)}});
  EXPECT_EQ(ne.shape(), TensorShape({}));
  EXPECT_THAT(Values<bool>(ne), ElementsAre(true));
  // Compatible shapes still broadcast with the attr off.
  const Tensor b = Run("Equal", {x, AsTensor<float>({2}, TensorShape({1}))},
                       {{"incompatible_shape_error", Attr(false)}});
  EXPECT_THAT(Values<bool>(b), ElementsAre(false, true));
}

TEST_F(CompareOpsTest, LogicalOps) {
  const Tensor x = AsTensor<bool>({true, false}, TensorShape({2, 1}));
  const Tensor y = AsTensor<bool>({true, false}, TensorShape({1, 2}));
  EXPECT_THAT(Values<bool>(Run("LogicalAnd", {x, y})), ElementsAre(true, false, false, false));
  EXPECT_THAT(Values<bool>(Run("LogicalOr", {x, y})), ElementsAre(true, true, true, false));
  EXPECT_THAT(RunStatus("LogicalOr", {AsTensor<bool>({true, true}, TensorShape({2})),
                                      AsTensor<bool>({true, true, true}, TensorShape({3}))}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Incompatible shapes")));
}

TEST_F(CompareOpsTest, SelectWithScalarCondition) {
  const Tensor t = AsTensor<float>({1, 2}, TensorShape({2}));
  const Tensor e = AsTensor<float>({3, 4}, TensorShape({2}));
  EXPECT_THAT(Values<float>(Run("Select", {AsTensor<bool>({true}, TensorShape({})), t, e})),
              ElementsAre(1, 2));
  EXPECT_THAT(Values<float>(Run("Select", {AsTensor<bool>({false}, TensorShape({})), t, e})),
              ElementsAre(3, 4));
  EXPECT_THAT(RunStatus("Select", {AsTensor<bool>({true}, TensorShape({})), t,
                                   AsTensor<float>({1}, TensorShape({1}))}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("'then' and 'else' must have the same shape, but saw: [2] "
                                 "vs. [1]")));
}

TEST_F(CompareOpsTest, SelectWithVectorConditionPicksRows) {
  const Tensor c = AsTensor<bool>({false, true}, TensorShape({2}));
  const Tensor t = AsTensor<int32>({1, 2, 3, 4}, TensorShape({2, 2}));
  const Tensor e = AsTensor<int32>({5, 6, 7, 8}, TensorShape({2, 2}));
  EXPECT_THAT(Values<int32>(Run("Select", {c, t, e})), ElementsAre(5, 6, 3, 4));
  EXPECT_THAT(RunStatus("Select", {AsTensor<bool>({true, false, true}, TensorShape({3})), t, e}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Number of batches of 'then' must match size of 'cond', but "
                                 "saw: 2 vs. 3")));
  EXPECT_THAT(RunStatus("Select", {c, AsTensor<int32>({1}, TensorShape({})),
                                   AsTensor<int32>({1}, TensorShape({}))}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("'then' must be at least a vector, but saw shape: []")));
  EXPECT_THAT(RunStatus("Select", {c, t, AsTensor<int32>({1, 2}, TensorShape({2, 1}))}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("'then' and 'else' must have the same shape")));
  // Empty rows.
  const Tensor z = Run("Select", {c, Tensor(DT_INT32, TensorShape({2, 0})),
                                  Tensor(DT_INT32, TensorShape({2, 0}))});
  EXPECT_EQ(z.shape(), TensorShape({2, 0}));
}

TEST_F(CompareOpsTest, SelectElementwise) {
  const Tensor c = AsTensor<bool>({true, false, false}, TensorShape({3}));
  EXPECT_THAT(Values<double>(Run("Select", {c, AsTensor<double>({1, 2, 3}, TensorShape({3})),
                                            AsTensor<double>({4, 5, 6}, TensorShape({3}))})),
              ElementsAre(1, 5, 6));
  EXPECT_THAT(Values<tstring>(Run("Select", {c, AsTensor<tstring>({"a", "b", "c"}, TensorShape({3})),
                                             AsTensor<tstring>({"x", "y", "z"}, TensorShape({3}))})),
              ElementsAre("a", "y", "z"));
  EXPECT_THAT(Values<complex128>(Run("Select", {AsTensor<bool>({false}, TensorShape({1})),
                                                AsTensor<complex128>({{1, 2}}, TensorShape({1})),
                                                AsTensor<complex128>({{3, 4}}, TensorShape({1}))})),
              ElementsAre(complex128(3, 4)));
  EXPECT_THAT(Values<bool>(Run("Select", {AsTensor<bool>({true, false}, TensorShape({1, 2})),
                                          AsTensor<bool>({true, true}, TensorShape({1, 2})),
                                          AsTensor<bool>({false, false}, TensorShape({1, 2}))})),
              ElementsAre(true, false));
  EXPECT_THAT(RunStatus("Select", {AsTensor<bool>({true, false}, TensorShape({1, 2})),
                                   AsTensor<float>({1, 2}, TensorShape({2, 1})),
                                   AsTensor<float>({1, 2}, TensorShape({2, 1}))}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("'cond', 'then' and 'else' must have the same size.  but "
                                 "received: [1,2] vs. [2,1] vs. [2,1]")));
}

TEST_F(CompareOpsTest, SelectV2Broadcasts) {
  // condition [2,1], t [1,3], e scalar.
  const Tensor z = Run("SelectV2", {AsTensor<bool>({true, false}, TensorShape({2, 1})),
                                    AsTensor<float>({1, 2, 3}, TensorShape({1, 3})),
                                    AsTensor<float>({-1}, TensorShape({}))});
  EXPECT_EQ(z.shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values<float>(z), ElementsAre(1, 2, 3, -1, -1, -1));
  // condition [3], t [2,1], e [1,3].
  const Tensor w = Run("SelectV2", {AsTensor<bool>({true, false, true}, TensorShape({3})),
                                    AsTensor<int64>({10, 20}, TensorShape({2, 1})),
                                    AsTensor<int64>({1, 2, 3}, TensorShape({1, 3}))});
  EXPECT_EQ(w.shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values<int64>(w), ElementsAre(10, 2, 10, 20, 2, 20));
  const Tensor s = Run("SelectV2", {AsTensor<bool>({false}, TensorShape({})),
                                    AsTensor<tstring>({"a"}, TensorShape({})),
                                    AsTensor<tstring>({"b"}, TensorShape({}))});
  EXPECT_EQ(s.shape(), TensorShape({}));
  EXPECT_THAT(Values<tstring>(s), ElementsAre("b"));
  const Tensor e = Run("SelectV2", {AsTensor<bool>({true}, TensorShape({1})),
                                    Tensor(DT_HALF, TensorShape({0, 1})),
                                    Tensor(DT_HALF, TensorShape({1}))});
  EXPECT_EQ(e.shape(), TensorShape({0, 1}));
}

TEST_F(CompareOpsTest, SelectV2Errors) {
  EXPECT_THAT(RunStatus("SelectV2", {AsTensor<bool>({true}, TensorShape({})),
                                     AsTensor<float>({1, 2}, TensorShape({2})),
                                     AsTensor<float>({1, 2, 3}, TensorShape({3}))}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("then [2] and else [3] must be broadcastable")));
  EXPECT_THAT(RunStatus("SelectV2", {AsTensor<bool>({true, true, true}, TensorShape({3})),
                                     AsTensor<float>({1, 2}, TensorShape({2})),
                                     AsTensor<float>({1}, TensorShape({}))}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("condition [3] and then/else [2] must be broadcastable")));
}

TEST_F(CompareOpsTest, LargeSelectAndCompare) {
  const int64_t n = 1 << 17;
  Tensor c(DT_BOOL, TensorShape({n})), t(DT_FLOAT, TensorShape({n})), e(DT_FLOAT, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) {
    c.flat<bool>()(i) = i % 3 == 0;
    t.flat<float>()(i) = 1;
    e.flat<float>()(i) = 2;
  }
  const Tensor z = Run("Select", {c, t, e});
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(z.flat<float>()(i), i % 3 == 0 ? 1 : 2) << i;
  const Tensor l = Run("Less", {t, e});
  for (int64_t i = 0; i < n; ++i) ASSERT_TRUE(l.flat<bool>()(i)) << i;
}

}  // namespace
}  // namespace opkit

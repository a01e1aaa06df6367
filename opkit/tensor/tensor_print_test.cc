// Tests of printing tensors (SummarizeValue in both layouts, DebugString).
#include "opkit/tensor/tensor.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/tensor/testing/tensor_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using tensor_test::MakeFloat;

// ---------------------------------------------------------------------------
// Printing.

TEST(TensorPrintTest, DebugString) {
  Tensor t = MakeFloat(TensorShape({2, 2}), {1, 2, 3, 4});
  EXPECT_EQ(t.DebugString(4), "Tensor<type: float shape: [2,2] values: [1 2][3 4]>");
  EXPECT_EQ(t.DebugString(), "Tensor<type: float shape: [2,2] values: [1 2][3...]...>");
  EXPECT_EQ(t.DeviceSafeDebugString(), "Tensor<type: float shape: [2,2]>");
  EXPECT_EQ(Tensor(int32{7}).DebugString(), "Tensor<type: int32 shape: [] values: 7>");
}

TEST(TensorPrintTest, SummarizeValueV1) {
  Tensor t = MakeFloat(TensorShape({2, 2}), {1, 2, 3, 4});
  EXPECT_EQ(t.SummarizeValue(-1), "[1 2][3 4]");
  EXPECT_EQ(t.SummarizeValue(10), "[1 2][3 4]");
  EXPECT_EQ(t.SummarizeValue(2), "[1 2]...");
  EXPECT_EQ(t.SummarizeValue(1), "[1...]...");
  EXPECT_EQ(t.SummarizeValue(0), "...");

  Tensor v(DT_INT32, TensorShape({5}));
  for (int i = 0; i < 5; ++i) v.flat<int32>()(i) = i + 1;
  EXPECT_EQ(v.SummarizeValue(3), "1 2 3...");
  EXPECT_EQ(v.SummarizeValue(5), "1 2 3 4 5");

  Tensor c(DT_INT64, TensorShape({2, 2, 2}));
  for (int i = 0; i < 8; ++i) c.flat<int64>()(i) = i;
  EXPECT_EQ(c.SummarizeValue(-1), "[[0 1][2 3]][[4 5][6 7]]");
  EXPECT_EQ(c.SummarizeValue(3), "[[0 1][2...]]...");

  Tensor f = MakeFloat(TensorShape({4}), {0.1f, 1e10f, 3.14159265f, -0.0f});
  EXPECT_EQ(f.SummarizeValue(-1), "0.1 1e+10 3.14159 -0");
  Tensor nan = MakeFloat(TensorShape({2}), {std::numeric_limits<float>::quiet_NaN(),
                                            -std::numeric_limits<float>::infinity()});
  EXPECT_EQ(nan.SummarizeValue(-1), "nan -inf");

  EXPECT_EQ(Tensor(half(1.5f)).SummarizeValue(1), "1.5");
  EXPECT_EQ(Tensor(bfloat16(-2.0f)).SummarizeValue(1), "-2");
  Tensor b(DT_BOOL, TensorShape({2}));
  b.flat<bool>()(0) = true;
  b.flat<bool>()(1) = false;
  EXPECT_EQ(b.SummarizeValue(-1), "1 0");
  Tensor i8(DT_INT8, TensorShape({2}));
  i8.flat<int8>()(0) = -3;
  i8.flat<int8>()(1) = 65;
  EXPECT_EQ(i8.SummarizeValue(-1), "-3 65");
  Tensor q(DT_QUINT8, TensorShape({1}));
  q.flat<quint8>()(0) = quint8(200);
  EXPECT_EQ(q.SummarizeValue(-1), "200");
  // TensorFlow prints no value for complex or qint32 elements.
  Tensor cx(DT_COMPLEX64, TensorShape({3}));
  EXPECT_EQ(cx.SummarizeValue(2), "? ?...");
  Tensor q32(DT_QINT32, TensorShape({2}));
  EXPECT_EQ(q32.SummarizeValue(-1, true), "[? ?]");
}

TEST(TensorPrintTest, Strings) {
  Tensor s(DT_STRING, TensorShape({3}));
  s.flat<tstring>()(0) = "a\nb";
  s.flat<tstring>()(1) = std::string("q\"'\\\x01", 5);
  s.flat<tstring>()(2) = "caf\xc3\xa9";
  EXPECT_EQ(s.SummarizeValue(-1), "a\\nb q\\\"\\'\\\\\\001 caf\xc3\xa9");
  EXPECT_EQ(s.SummarizeValue(-1, true), "[\"a\\nb\" \"q\\\"\\'\\\\\\001\" \"caf\xc3\xa9\"]");
}

// absl::Utf8SafeCEscape's rules, which SummarizeValue follows: named escapes
// for \n \r \t " ' and \\, three octal digits for every other byte below
// 0x20 and for 0x7f (NUL included), and bytes >= 0x80 as they are, so that
// UTF-8 text (here a two- and a three-byte character) stays readable.
TEST(TensorPrintTest, StringEscapesControlBytesAndKeepsUtf8) {
  Tensor s(DT_STRING, TensorShape({}));
  s.scalar<tstring>()() =
      std::string("\0\x1f\x7f\r\t\"'\\ \xc3\xa9\xe2\x82\xac", 14);
  EXPECT_EQ(s.SummarizeValue(-1),
            "\\000\\037\\177\\r\\t\\\"\\'\\\\ \xc3\xa9\xe2\x82\xac");
  EXPECT_EQ(s.SummarizeValue(-1, true),
            "\"\\000\\037\\177\\r\\t\\\"\\'\\\\ \xc3\xa9\xe2\x82\xac\"");
}

TEST(TensorPrintTest, SummarizeValueV2) {
  Tensor t = MakeFloat(TensorShape({2, 2}), {1, 2, 3, 4});
  EXPECT_EQ(t.SummarizeValue(-1, true), "[[1 2]\n [3 4]]");
  Tensor v = MakeFloat(TensorShape({5}), {1, 2, 3, 4, 5});
  EXPECT_EQ(v.SummarizeValue(1, true), "[1 ... 5]");
  EXPECT_EQ(v.SummarizeValue(2, true), "[1 2 ... 4 5]");
  Tensor c(DT_INT32, TensorShape({2, 2, 2}));
  for (int i = 0; i < 8; ++i) c.flat<int32>()(i) = i;
  EXPECT_EQ(c.SummarizeValue(-1, true), "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]");
  EXPECT_EQ(Tensor(3.5f).SummarizeValue(-1, true), "3.5");
}

}  // namespace
}  // namespace opkit

// Tests of the .npy reader and writer: round trips of every dtype, files
// written by numpy (tests/cli/testdata, made by make_fixtures.py), and every
// malformed header and truncation the reader must refuse.
#include "tools/opkit/npy.h"

#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/env.h"
#include "opkit/tensor/numeric_types.h"
#include "opkit/tensor/tensor.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace cli {
namespace {

using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

std::string TestFile(const std::string& name) {
  return std::string(OPKIT_NPY_TESTDATA) + "/" + name;
}

// A version 1.0 file with `header` (padded by nothing) followed by `data`.
std::string Npy1(const std::string& header, const std::string& data = "") {
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

template <typename T>
Tensor Filled(DataType dtype, const TensorShape& shape) {
  Tensor t(dtype, shape);
  auto flat = t.flat<T>();
  for (int64_t i = 0; i < flat.size(); ++i) flat(i) = static_cast<T>(i % 7);
  return t;
}

void ExpectSameTensor(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.dtype(), b.dtype());
  EXPECT_EQ(a.shape().DebugString(), b.shape().DebugString());
  ASSERT_EQ(a.tensor_data().size(), b.tensor_data().size());
  EXPECT_EQ(a.tensor_data(), b.tensor_data());
}

void RoundTrip(const Tensor& t) {
  SCOPED_TRACE(DataTypeString(t.dtype()) + " " + t.shape().DebugString());
  StatusOr<std::string> bytes = SerializeNpy(t);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  // numpy's layout: the data starts at a multiple of 64.
  EXPECT_EQ((bytes->size() - t.tensor_data().size()) % 64, 0u);
  StatusOr<Tensor> back = ParseNpy(*bytes, "roundtrip");
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameTensor(t, *back);
}

TEST(NpyTest, RoundTripsEveryDtype) {
  for (const TensorShape& shape :
       {TensorShape({}), TensorShape({5}), TensorShape({2, 3}), TensorShape({0, 4}),
        TensorShape({2, 1, 3, 2, 2})}) {
    RoundTrip(Filled<int8>(DT_INT8, shape));
    RoundTrip(Filled<int16>(DT_INT16, shape));
    RoundTrip(Filled<int32>(DT_INT32, shape));
    RoundTrip(Filled<int64>(DT_INT64, shape));
    RoundTrip(Filled<uint8>(DT_UINT8, shape));
    RoundTrip(Filled<uint16>(DT_UINT16, shape));
    RoundTrip(Filled<uint32>(DT_UINT32, shape));
    RoundTrip(Filled<uint64>(DT_UINT64, shape));
    RoundTrip(Filled<float>(DT_FLOAT, shape));
    RoundTrip(Filled<double>(DT_DOUBLE, shape));
    RoundTrip(Filled<half>(DT_HALF, shape));
    RoundTrip(Filled<complex64>(DT_COMPLEX64, shape));
    RoundTrip(Filled<complex128>(DT_COMPLEX128, shape));
    Tensor b(DT_BOOL, shape);
    for (int64_t i = 0; i < b.NumElements(); ++i) b.flat<bool>()(i) = i % 2 == 0;
    RoundTrip(b);
  }
}

TEST(NpyTest, DescrAndNames) {
  EXPECT_EQ(NpyDescr(DT_FLOAT), "<f4");
  EXPECT_EQ(NpyDescr(DT_BOOL), "|b1");
  EXPECT_EQ(NpyDescr(DT_UINT8), "|u1");
  EXPECT_EQ(NpyDescr(DT_COMPLEX128), "<c16");
  EXPECT_EQ(NpyDescr(DT_STRING), "");
  EXPECT_EQ(NumpyDtypeName(DT_HALF), "float16");
  EXPECT_EQ(NumpyDtypeName(DT_BFLOAT16), "bfloat16");
}

TEST(NpyTest, WritesWhatNumpyWrites) {
  std::string numpy_bytes;
  OPKIT_ASSERT_OK(ReadFileToString(TestFile("x_2x2_float32.npy"), &numpy_bytes));
  Tensor t(DT_FLOAT, TensorShape({2, 2}));
  float values[] = {1, 2, 3, 4};
  std::memcpy(t.data(), values, sizeof(values));
  StatusOr<std::string> ours = SerializeNpy(t);
  ASSERT_TRUE(ours.ok());
  EXPECT_EQ(*ours, numpy_bytes);
}

TEST(NpyTest, RefusesDtypesNpyCannotHold) {
  Tensor s(DT_STRING, TensorShape({2}));
  EXPECT_THAT(SerializeNpy(s).status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("dtype string cannot be written")));
  Tensor bf(DT_BFLOAT16, TensorShape({2}));
  EXPECT_THAT(SerializeNpy(bf).status(), StatusIs(error::INVALID_ARGUMENT));
}

TEST(NpyTest, ReadsNumpyFiles) {
  StatusOr<Tensor> t = ReadNpyFile(TestFile("x_int32.npy"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DT_INT32);
  EXPECT_EQ(t->shape().DebugString(), "[2,2]");
  EXPECT_EQ(t->flat<int32>()(3), 4);

  t = ReadNpyFile(TestFile("big_f64_be.npy"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DT_DOUBLE);
  EXPECT_EQ(t->shape().DebugString(), "[2,3]");
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t->flat<double>()(i), i);

  t = ReadNpyFile(TestFile("bool_vec.npy"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DT_BOOL);
  EXPECT_TRUE(t->flat<bool>()(0));
  EXPECT_FALSE(t->flat<bool>()(1));

  t = ReadNpyFile(TestFile("complex64_scalar.npy"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dims(), 0);
  EXPECT_EQ(t->flat<complex64>()(0), complex64(1.5f, -2.0f));

  t = ReadNpyFile(TestFile("float16_empty.npy"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DT_HALF);
  EXPECT_EQ(t->shape().DebugString(), "[0,3]");

  t = ReadNpyFile(TestFile("uint16_3d.npy"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->shape().DebugString(), "[2,3,4]");
  EXPECT_EQ(t->flat<uint16>()(23), 23);

  t = ReadNpyFile(TestFile("v2_int64.npy"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DT_INT64);
  EXPECT_EQ(t->flat<int64>()(4), 4);

  t = ReadNpyFile(TestFile("v3_float32.npy"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->flat<float>()(3), 3.0f);
}

TEST(NpyTest, RefusesFortranOrderAndObjects) {
  EXPECT_THAT(ReadNpyFile(TestFile("fortran.npy")).status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Fortran-order")));
  EXPECT_THAT(ReadNpyFile(TestFile("object.npy")).status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("object dtype")));
}

TEST(NpyTest, MissingFile) {
  EXPECT_THAT(ReadNpyFile(TestFile("no_such_file.npy")).status(),
              StatusIs(error::NOT_FOUND, HasSubstr("no_such_file.npy")));
}

struct BadCase {
  std::string name;
  std::string bytes;
  std::string message;
};

TEST(NpyTest, RefusesMalformedFiles) {
  const std::string good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n";
  const std::string eight(8, '\0');
  std::string v2_huge("\x93NUMPY\x02\x00\xff\xff\xff\x7f", 12);
  std::string v1_short_len("\x93NUMPY\x01\x00\x05", 9);
  std::string v2_short_len("\x93NUMPY\x02\x00\x05\x00", 10);
  std::vector<BadCase> cases = {
      {"empty", "", "magic string"},
      {"bad magic", "\x93NUMPX\x01\x00\x00\x00", "magic string"},
      {"text file", "hello world, not numpy", "magic string"},
      {"version 4.0", std::string("\x93NUMPY\x04\x00\x00\x00", 10), "version 4.0"},
      {"version 1.1", std::string("\x93NUMPY\x01\x01\x00\x00", 10), "version 1.1"},
      {"short length field v1", v1_short_len, "header length field"},
      {"short length field v2", v2_short_len, "header length field"},
      {"huge header length", v2_huge, "exceeds the limit"},
      {"header beyond the end", Npy1(good).substr(0, 30), "only"},
      {"not a dict", Npy1("['descr']\n", ""), "expected '{'"},
      {"unterminated dict", Npy1("{'descr': '<f4'", ""), "expected ',' or '}'"},
      {"unterminated string", Npy1("{'descr: '<f4'}", ""), "':'"},
      {"missing key", Npy1("{'descr': '<f4', 'shape': (2,), }\n", eight), "lacks the key 'fortran_order'"},
      {"extra key", Npy1("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}\n", eight),
       "unexpected header key 'x'"},
      {"duplicate key", Npy1("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", eight),
       "appears twice"},
      {"structured dtype",
       Npy1("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }\n", eight),
       "structured dtype"},
      {"unicode dtype", Npy1("{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }\n", eight),
       "dtype '<U3' is not supported"},
      {"odd float size", Npy1("{'descr': '<f3', 'fortran_order': False, 'shape': (2,), }\n", eight),
       "dtype '<f3' is not supported"},
      {"no byte order", Npy1("{'descr': 'f4', 'fortran_order': False, 'shape': (2,), }\n", eight),
       "dtype 'f4' is not supported"},
      {"huge item size",
       Npy1("{'descr': '<f99999999999999', 'fortran_order': False, 'shape': (2,), }\n", eight),
       "not supported"},
      {"fortran not bool", Npy1("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }\n", eight),
       "must be True or False"},
      {"shape not tuple", Npy1("{'descr': '<f4', 'fortran_order': False, 'shape': [2], }\n", eight),
       "must be a tuple"},
      {"shape of strings", Npy1("{'descr': '<f4', 'fortran_order': False, 'shape': ('2',), }\n", eight),
       "expected an integer"},
      {"negative dim", Npy1("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }\n", eight),
       "negative dimension"},
      {"huge dim", Npy1("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }\n"),
       "too large"},
      {"overflowing shape",
       Npy1("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }\n"),
       "int64"},
      {"shape too large for bytes",
       Npy1("{'descr': '<c16', 'fortran_order': False, 'shape': (4611686018427387904,), }\n"),
       "too large"},
      {"truncated data", Npy1(good, std::string(7, '\0')), "truncated"},
      {"trailing data", Npy1(good, std::string(9, '\0')), "unexpected bytes after the data"},
      {"bool byte 2", Npy1("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }\n",
                           std::string("\x01\x02", 2)),
       "byte value 2"},
      {"NUL in header", Npy1(std::string("{'descr': '<f4'\0", 16)), "NUL"},
      {"text after dict", Npy1("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } x\n", eight),
       "after the header dict"},
      {"bad value", Npy1("{'descr': '<f4', 'fortran_order': Nope, 'shape': (2,), }\n", eight),
       "expected a value"},
  };
  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.name);
    StatusOr<Tensor> t = ParseNpy(c.bytes, "bad.npy");
    EXPECT_THAT(t.status(), StatusIs(error::INVALID_ARGUMENT, HasSubstr(c.message)));
    EXPECT_THAT(t.status(), StatusIs(error::INVALID_ARGUMENT, HasSubstr("'bad.npy'")));
  }
}

TEST(NpyTest, EveryTruncationOfAGoodFileIsRefused) {
  std::string bytes;
  OPKIT_ASSERT_OK(ReadFileToString(TestFile("uint16_3d.npy"), &bytes));
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(ParseNpy(std::string_view(bytes).substr(0, n), "cut").ok()) << n;
  }
  EXPECT_TRUE(ParseNpy(bytes, "whole").ok());
}

}  // namespace
}  // namespace cli
}  // namespace opkit

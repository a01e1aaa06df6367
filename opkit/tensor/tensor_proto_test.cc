// Tests of Tensor to and from TensorProto: typed fields for every dtype,
// the compact form, tensor_content, and malformed protos.
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

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using tensor_test::BaseTypes;
using tensor_test::FailingAllocator;
using tensor_test::HasElementStorage;
using tensor_test::MakeFloat;

// ---------------------------------------------------------------------------
// Protos.

TensorProto ProtoWithShape(DataType dt, const std::vector<int64_t>& dims) {
  TensorProto p;
  p.set_dtype(dt);
  for (int64_t d : dims) p.mutable_tensor_shape()->add_dim()->set_size(d);
  return p;
}

TEST(TensorProtoTest, TypedFieldsForEveryDtype) {
  Tensor t;
  {
    TensorProto p = ProtoWithShape(DT_FLOAT, {3});
    p.add_float_val(1.5f);
    p.add_float_val(-2);
    p.add_float_val(3);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_THAT(std::vector<float>(t.flat<float>().data(), t.flat<float>().data() + 3),
                ElementsAre(1.5f, -2, 3));
  }
  {
    TensorProto p = ProtoWithShape(DT_DOUBLE, {2});
    p.add_double_val(0.25);
    p.add_double_val(1e300);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<double>()(1), 1e300);
  }
  auto check_int = [&](DataType dt, auto tag) {
    using T = decltype(tag);
    TensorProto p = ProtoWithShape(dt, {2});
    p.add_int_val(7);
    p.add_int_val(-1);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk()) << DataTypeString(dt);
    EXPECT_EQ(t.dtype(), dt);
    EXPECT_EQ(t.flat<T>()(0), T(7)) << DataTypeString(dt);
    EXPECT_EQ(t.flat<T>()(1), static_cast<T>(-1)) << DataTypeString(dt);
  };
  check_int(DT_INT32, int32{});
  check_int(DT_INT16, int16{});
  check_int(DT_INT8, int8{});
  check_int(DT_UINT8, uint8{});
  check_int(DT_UINT16, uint16{});
  {
    TensorProto p = ProtoWithShape(DT_QINT8, {2});
    p.add_int_val(-100);
    p.add_int_val(100);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<qint8>()(0).value, -100);
    p.set_dtype(DT_QUINT8);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<quint8>()(1).value, 100);
    p.set_dtype(DT_QINT16);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<qint16>()(0).value, -100);
    p.set_dtype(DT_QUINT16);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<quint16>()(1).value, 100);
    p.set_dtype(DT_QINT32);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<qint32>()(0).value, -100);
  }
  {
    TensorProto p = ProtoWithShape(DT_INT64, {1});
    p.add_int64_val(int64_t{1} << 50);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<int64>()(0), int64_t{1} << 50);
  }
  {
    TensorProto p = ProtoWithShape(DT_UINT32, {1});
    p.add_uint32_val(4000000000u);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<uint32>()(0), 4000000000u);
  }
  {
    TensorProto p = ProtoWithShape(DT_UINT64, {1});
    p.add_uint64_val(uint64_t{1} << 63);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<uint64>()(0), uint64_t{1} << 63);
  }
  {
    TensorProto p = ProtoWithShape(DT_BOOL, {2});
    p.add_bool_val(true);
    p.add_bool_val(false);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_TRUE(t.flat<bool>()(0));
    EXPECT_FALSE(t.flat<bool>()(1));
  }
  {
    TensorProto p = ProtoWithShape(DT_STRING, {2});
    p.add_string_val("a");
    p.add_string_val(std::string("b\0c", 3));
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<tstring>()(1), std::string("b\0c", 3));
  }
  {
    TensorProto p = ProtoWithShape(DT_HALF, {2});
    p.add_half_val(Eigen::numext::bit_cast<uint16_t>(half(1.5f)));
    p.add_half_val(Eigen::numext::bit_cast<uint16_t>(half(-2.0f)));
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(static_cast<float>(t.flat<half>()(0)), 1.5f);
    EXPECT_EQ(static_cast<float>(t.flat<half>()(1)), -2.0f);
  }
  {
    TensorProto p = ProtoWithShape(DT_BFLOAT16, {1});
    p.add_half_val(Eigen::numext::bit_cast<uint16_t>(bfloat16(3.0f)));
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(static_cast<float>(t.flat<bfloat16>()(0)), 3.0f);
  }
  {
    TensorProto p = ProtoWithShape(DT_COMPLEX64, {2});
    for (float v : {1.f, 2.f, 3.f, 4.f}) p.add_scomplex_val(v);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<complex64>()(1), complex64(3, 4));
  }
  {
    TensorProto p = ProtoWithShape(DT_COMPLEX128, {1});
    p.add_dcomplex_val(5);
    p.add_dcomplex_val(-6);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<complex128>()(0), complex128(5, -6));
  }
  {
    TensorProto p = ProtoWithShape(DT_FLOAT8_E4M3FN, {2});
    p.set_float8_val(std::string("\x38\x40", 2));
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(static_cast<const uint8_t*>(t.data())[1], 0x40);
  }
  {
    TensorProto p = ProtoWithShape(DT_INT4, {2});
    p.add_int_val(-8);
    p.add_int_val(7);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(static_cast<const int8_t*>(t.data())[0], -8);
  }
}

TEST(TensorProtoTest, FewerValuesArePaddedWithTheLast) {
  Tensor t;
  TensorProto p = ProtoWithShape(DT_INT32, {2, 3});
  p.add_int_val(4);
  p.add_int_val(5);
  ASSERT_TRUE(t.FromProto(p));
  EXPECT_EQ(t.SummarizeValue(-1), "[4 5 5][5 5 5]");

  TensorProto s = ProtoWithShape(DT_STRING, {3});
  s.add_string_val("x");
  ASSERT_THAT(Tensor::BuildFromProto(s, &t), IsOk());
  EXPECT_EQ(t.flat<tstring>()(2), "x");

  TensorProto c = ProtoWithShape(DT_COMPLEX64, {3});
  c.add_scomplex_val(1);
  c.add_scomplex_val(2);
  ASSERT_THAT(Tensor::BuildFromProto(c, &t), IsOk());
  EXPECT_EQ(t.flat<complex64>()(2), complex64(1, 2));
}

TEST(TensorProtoTest, NoValuesGiveZeros) {
  Tensor t;
  for (DataType dt : BaseTypes()) {
    if (!HasElementStorage(dt)) continue;
    TensorProto p = ProtoWithShape(dt, {4});
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk()) << DataTypeString(dt);
    if (dt == DT_STRING) {
      for (int i = 0; i < 4; ++i) EXPECT_EQ(t.flat<tstring>()(i), "");
    } else {
      const std::string_view bytes = t.tensor_data();
      EXPECT_EQ(bytes, std::string(bytes.size(), '\0')) << DataTypeString(dt);
    }
  }
  // A scalar shape with no values.
  ASSERT_THAT(Tensor::BuildFromProto(ProtoWithShape(DT_FLOAT, {}), &t), IsOk());
  EXPECT_EQ(t.scalar<float>()(), 0.0f);
}

TEST(TensorProtoTest, TensorContent) {
  Tensor t;
  TensorProto p = ProtoWithShape(DT_FLOAT, {2});
  const float values[] = {1.25f, -7};
  p.set_tensor_content(reinterpret_cast<const char*>(values), sizeof(values));
  p.add_float_val(99);  // Ignored when tensor_content is set, as in TensorFlow.
  ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
  EXPECT_EQ(t.flat<float>()(0), 1.25f);
  EXPECT_EQ(t.flat<float>()(1), -7);

  // Bytes other than 0/1 in a bool tensor are normalised.
  TensorProto b = ProtoWithShape(DT_BOOL, {3});
  b.set_tensor_content(std::string("\x00\x01\x07", 3));
  ASSERT_THAT(Tensor::BuildFromProto(b, &t), IsOk());
  EXPECT_EQ(t.tensor_data(), std::string("\x00\x01\x01", 3));
}

TEST(TensorProtoTest, RoundTripsForEveryDtype) {
  for (DataType dt : BaseTypes()) {
    if (!HasElementStorage(dt)) continue;
    Tensor t(dt, TensorShape({2, 3}));
    if (dt == DT_STRING) {
      auto f = t.flat<tstring>();
      for (int i = 0; i < 6; ++i) f(i) = std::string(i * 50, static_cast<char>('a' + i));
    } else {
      // Bytes that are valid for every type (bool needs 0/1; float8 any).
      uint8_t* bytes = static_cast<uint8_t*>(t.data());
      for (size_t i = 0; i < t.TotalBytes(); ++i) {
        bytes[i] = dt == DT_BOOL ? (i % 2) : static_cast<uint8_t>(i * 7 + 1);
      }
      if (dt == DT_INT4 || dt == DT_INT2 || dt == DT_UINT4 || dt == DT_UINT2) {
        for (size_t i = 0; i < t.TotalBytes(); ++i) bytes[i] = i % 2;
      }
    }
    for (bool content : {false, true}) {
      TensorProto p;
      if (content) {
        t.AsProtoTensorContent(&p);
        EXPECT_FALSE(p.tensor_content().empty()) << DataTypeString(dt);
      } else {
        t.AsProtoField(&p);
        EXPECT_TRUE(p.tensor_content().empty()) << DataTypeString(dt);
      }
      EXPECT_EQ(p.dtype(), dt);
      EXPECT_EQ(p.tensor_shape().dim_size(), 2);
      Tensor back;
      ASSERT_THAT(Tensor::BuildFromProto(p, &back), IsOk())
          << DataTypeString(dt) << " content=" << content;
      EXPECT_EQ(back.dtype(), dt);
      EXPECT_EQ(back.shape(), t.shape());
      if (dt == DT_STRING) {
        for (int i = 0; i < 6; ++i) {
          EXPECT_EQ(back.flat<tstring>()(i), t.flat<tstring>()(i));
        }
      } else {
        EXPECT_EQ(back.tensor_data(), t.tensor_data())
            << DataTypeString(dt) << " content=" << content;
      }
    }
  }
}

TEST(TensorProtoTest, HalfFieldHoldsBits) {
  Tensor t(DT_HALF, TensorShape({1}));
  t.flat<half>()(0) = half(1.0f);
  TensorProto p;
  t.AsProtoField(&p);
  ASSERT_EQ(p.half_val_size(), 1);
  EXPECT_EQ(p.half_val(0), 0x3c00);
  Tensor c(DT_COMPLEX64, TensorShape({1}));
  c.flat<complex64>()(0) = complex64(1, 2);
  c.AsProtoField(&p);
  EXPECT_THAT(std::vector<float>(p.scomplex_val().begin(), p.scomplex_val().end()),
              ElementsAre(1, 2));
}

TEST(TensorProtoTest, EmptyTensors) {
  Tensor t(DT_FLOAT, TensorShape({0, 3}));
  TensorProto p;
  t.AsProtoTensorContent(&p);
  Tensor back;
  ASSERT_THAT(Tensor::BuildFromProto(p, &back), IsOk());
  EXPECT_EQ(back.shape(), TensorShape({0, 3}));
  EXPECT_TRUE(back.IsInitialized());
}

TEST(TensorProtoTest, MalformedProtosAreRejected) {
  Tensor t = MakeFloat(TensorShape({1}), {42});
  const Tensor original = t;

  TensorProto wrong_size = ProtoWithShape(DT_FLOAT, {2});
  wrong_size.set_tensor_content(std::string(7, 'x'));
  EXPECT_THAT(Tensor::BuildFromProto(wrong_size, &t),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("tensor_content holds 7 bytes but a float tensor of "
                                 "shape [2] needs 8")));

  TensorProto too_many = ProtoWithShape(DT_INT32, {2});
  for (int i = 0; i < 3; ++i) too_many.add_int_val(i);
  EXPECT_THAT(Tensor::BuildFromProto(too_many, &t),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("int_val has 3 values but a tensor of shape [2] has "
                                 "only 2 elements")));

  TensorProto values_for_empty = ProtoWithShape(DT_FLOAT, {0});
  values_for_empty.add_float_val(1);
  EXPECT_THAT(Tensor::BuildFromProto(values_for_empty, &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("float_val has 1 values")));

  TensorProto negative = ProtoWithShape(DT_FLOAT, {2, -1});
  EXPECT_THAT(Tensor::BuildFromProto(negative, &t),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("tensor_shape: Shape [2,-1] has negative dimensions")));

  TensorProto huge = ProtoWithShape(DT_FLOAT, {int64_t{1} << 40, int64_t{1} << 40});
  EXPECT_THAT(Tensor::BuildFromProto(huge, &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("too large")));

  TensorProto unknown_rank = ProtoWithShape(DT_FLOAT, {});
  unknown_rank.mutable_tensor_shape()->set_unknown_rank(true);
  EXPECT_THAT(Tensor::BuildFromProto(unknown_rank, &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("unknown rank")));

  TensorProto unknown_dtype = ProtoWithShape(static_cast<DataType>(50), {1});
  EXPECT_THAT(Tensor::BuildFromProto(unknown_dtype, &t),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("dtype unknown dtype enum (50) is not a valid")));

  EXPECT_THAT(Tensor::BuildFromProto(ProtoWithShape(DT_INVALID, {1}), &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("dtype INVALID")));
  EXPECT_THAT(Tensor::BuildFromProto(ProtoWithShape(DT_INT32_REF, {1}), &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("ref dtype int32_ref")));
  EXPECT_THAT(Tensor::BuildFromProto(ProtoWithShape(DT_VARIANT, {1}), &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("variant")));

  TensorProto odd_complex = ProtoWithShape(DT_COMPLEX128, {2});
  for (int i = 0; i < 3; ++i) odd_complex.add_dcomplex_val(i);
  EXPECT_THAT(Tensor::BuildFromProto(odd_complex, &t),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("dcomplex_val has 3 values; complex numbers need "
                                 "(real, imaginary) pairs")));

  TensorProto bad_strings = ProtoWithShape(DT_STRING, {2});
  bad_strings.set_tensor_content(std::string("\x03\x01" "abcdef", 8));
  EXPECT_THAT(Tensor::BuildFromProto(bad_strings, &t),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("declares 4 bytes of string data but holds 6")));
  TensorProto truncated = ProtoWithShape(DT_STRING, {2});
  truncated.set_tensor_content(std::string("\x80", 1));
  EXPECT_THAT(Tensor::BuildFromProto(truncated, &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("truncated or corrupt")));

  // A handle's dtypes_and_shapes must hold valid partial shapes
  // (TensorFlow's TFSA-2022-030).
  TensorProto bad_handle_shape = ProtoWithShape(DT_RESOURCE, {});
  auto* ds = bad_handle_shape.add_resource_handle_val()->add_dtypes_and_shapes();
  ds->set_dtype(DT_FLOAT);
  ds->mutable_shape()->add_dim()->set_size(-5);
  EXPECT_THAT(Tensor::BuildFromProto(bad_handle_shape, &t),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("resource_handle_val[0].dtypes_and_shapes[0].shape")));

  // The compat form returns false and leaves the tensor alone.
  EXPECT_FALSE(t.FromProto(too_many));
  EXPECT_TRUE(t.SharesBufferWith(original));
  EXPECT_EQ(t.flat<float>()(0), 42);
}

TEST(TensorProtoTest, AllocatorFailureIsReported) {
  FailingAllocator failing;
  Tensor t;
  TensorProto p = ProtoWithShape(DT_FLOAT, {2});
  EXPECT_THAT(Tensor::BuildFromProto(p, &t, &failing),
              StatusIs(error::RESOURCE_EXHAUSTED, ::testing::_));
  EXPECT_FALSE(t.FromProto(&failing, p));
}

}  // namespace
}  // namespace opkit

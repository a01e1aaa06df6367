// Tests of the DataType helpers and type sets, against TensorFlow's ops.pbtxt.
#include "opkit/tensor/types.h"

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/testing/test_data.h"

namespace opkit {
namespace {

using ::testing::ElementsAre;

// Every value of the DataType enum (base and ref), from the proto descriptor.
std::vector<DataType> AllEnumValues() {
  std::vector<DataType> out;
  const auto* desc = DataType_descriptor();
  for (int i = 0; i < desc->value_count(); ++i) {
    out.push_back(static_cast<DataType>(desc->value(i)->number()));
  }
  return out;
}

TEST(DataTypeStringTest, NamesRoundTripForEveryEnumValue) {
  for (DataType dt : AllEnumValues()) {
    if (dt == DT_INVALID) continue;
    const std::string name = DataTypeString(dt);
    DataType parsed = DT_INVALID;
    ASSERT_TRUE(DataTypeFromString(name, &parsed)) << name;
    EXPECT_EQ(parsed, dt) << name;
    // The name is the enum name without "DT_", lower-cased.
    std::string expected = DataType_Name(dt).substr(3);
    for (char& c : expected) c = static_cast<char>(std::tolower(c));
    EXPECT_EQ(name, expected);
  }
}

TEST(DataTypeStringTest, TensorFlowNames) {
  EXPECT_EQ(DataTypeString(DT_FLOAT), "float");
  EXPECT_EQ(DataTypeString(DT_HALF), "half");
  EXPECT_EQ(DataTypeString(DT_BFLOAT16), "bfloat16");
  EXPECT_EQ(DataTypeString(DT_INT32_REF), "int32_ref");
  EXPECT_EQ(DataTypeString(DT_FLOAT8_E4M3B11FNUZ), "float8_e4m3b11fnuz");
  EXPECT_EQ(DataTypeString(DT_UINT4_REF), "uint4_ref");
  EXPECT_EQ(DataTypeString(DT_INVALID), "INVALID");
  EXPECT_EQ(DataTypeString(static_cast<DataType>(77)), "unknown dtype enum (77)");
  EXPECT_EQ(DataTypeString(static_cast<DataType>(177)),
            "unknown dtype enum (177)");
}

TEST(DataTypeStringTest, AliasesAndRejections) {
  DataType dt = DT_INVALID;
  EXPECT_TRUE(DataTypeFromString("float32", &dt));
  EXPECT_EQ(dt, DT_FLOAT);
  EXPECT_TRUE(DataTypeFromString("float64", &dt));
  EXPECT_EQ(dt, DT_DOUBLE);
  EXPECT_TRUE(DataTypeFromString("float16_ref", &dt));
  EXPECT_EQ(dt, DT_HALF_REF);
  dt = DT_BOOL;
  for (const char* bad : {"DT_FLOAT", "Float", "", "_ref", "float_ref_ref",
                          "INVALID", "int", "float ", "quint32"}) {
    EXPECT_FALSE(DataTypeFromString(bad, &dt)) << bad;
    EXPECT_EQ(dt, DT_BOOL) << "unchanged on failure: " << bad;
  }
}

TEST(DataTypeStringTest, SliceString) {
  EXPECT_EQ(DataTypeSliceString({}), "");
  EXPECT_EQ(DataTypeSliceString({DT_FLOAT, DT_INT32_REF}), "float, int32_ref");
}

TEST(DataTypeTest, Sizes) {
  EXPECT_EQ(DataTypeSize(DT_FLOAT), 4);
  EXPECT_EQ(DataTypeSize(DT_DOUBLE), 8);
  EXPECT_EQ(DataTypeSize(DT_INT32), 4);
  EXPECT_EQ(DataTypeSize(DT_UINT8), 1);
  EXPECT_EQ(DataTypeSize(DT_INT16), 2);
  EXPECT_EQ(DataTypeSize(DT_INT8), 1);
  EXPECT_EQ(DataTypeSize(DT_COMPLEX64), 8);
  EXPECT_EQ(DataTypeSize(DT_COMPLEX128), 16);
  EXPECT_EQ(DataTypeSize(DT_INT64), 8);
  EXPECT_EQ(DataTypeSize(DT_BOOL), 1);
  EXPECT_EQ(DataTypeSize(DT_QINT8), 1);
  EXPECT_EQ(DataTypeSize(DT_QUINT8), 1);
  EXPECT_EQ(DataTypeSize(DT_QINT16), 2);
  EXPECT_EQ(DataTypeSize(DT_QUINT16), 2);
  EXPECT_EQ(DataTypeSize(DT_QINT32), 4);
  EXPECT_EQ(DataTypeSize(DT_BFLOAT16), 2);
  EXPECT_EQ(DataTypeSize(DT_HALF), 2);
  EXPECT_EQ(DataTypeSize(DT_UINT16), 2);
  EXPECT_EQ(DataTypeSize(DT_UINT32), 4);
  EXPECT_EQ(DataTypeSize(DT_UINT64), 8);
  EXPECT_EQ(DataTypeSize(DT_FLOAT8_E5M2), 1);
  EXPECT_EQ(DataTypeSize(DT_INT4), 1);
  EXPECT_EQ(DataTypeSize(DT_UINT2), 1);
  EXPECT_EQ(DataTypeSize(DT_STRING), 0);
  EXPECT_EQ(DataTypeSize(DT_RESOURCE), 0);
  EXPECT_EQ(DataTypeSize(DT_VARIANT), 0);
  EXPECT_EQ(DataTypeSize(DT_INVALID), 0);
  EXPECT_EQ(DataTypeSize(DT_FLOAT_REF), 0);
}

TEST(DataTypeTest, RefHelpers) {
  EXPECT_TRUE(IsRefType(DT_FLOAT_REF));
  EXPECT_FALSE(IsRefType(DT_FLOAT));
  EXPECT_EQ(MakeRefType(DT_INT8), DT_INT8_REF);
  EXPECT_EQ(MakeRefType(DT_INT8_REF), DT_INT8_REF);
  EXPECT_EQ(RemoveRefType(DT_INT8_REF), DT_INT8);
  EXPECT_EQ(BaseType(DT_UINT2_REF), DT_UINT2);
  EXPECT_EQ(BaseType(DT_HALF), DT_HALF);
  static_assert(DataTypeToEnum<float>::value == DT_FLOAT);
  static_assert(DataTypeToEnum<float>::ref() == DT_FLOAT_REF);
  static_assert(std::is_same_v<EnumToDataType<DT_HALF>::Type, half>);
}

TEST(DataTypeTest, IsValid) {
  for (DataType dt : AllEnumValues()) {
    EXPECT_EQ(DataTypeIsValid(dt), dt != DT_INVALID) << DataTypeString(dt);
  }
  EXPECT_FALSE(DataTypeIsValid(-1));
  EXPECT_FALSE(DataTypeIsValid(33));
  EXPECT_FALSE(DataTypeIsValid(100));
  EXPECT_FALSE(DataTypeIsValid(133));
  EXPECT_FALSE(DataTypeIsValid(1000));
}

TEST(DataTypeTest, Predicates) {
  EXPECT_TRUE(DataTypeIsFloating(DT_HALF));
  EXPECT_TRUE(DataTypeIsFloating(DT_FLOAT8_E5M2));
  EXPECT_FALSE(DataTypeIsFloating(DT_INT32));
  EXPECT_FALSE(DataTypeIsFloating(DT_COMPLEX64));
  EXPECT_TRUE(DataTypeIsComplex(DT_COMPLEX128));
  EXPECT_FALSE(DataTypeIsComplex(DT_FLOAT));
  EXPECT_TRUE(DataTypeIsQuantized(DT_QUINT16));
  EXPECT_FALSE(DataTypeIsQuantized(DT_UINT16));
  EXPECT_TRUE(DataTypeIsInteger(DT_UINT64));
  EXPECT_TRUE(DataTypeIsInteger(DT_INT4));
  EXPECT_FALSE(DataTypeIsInteger(DT_QINT8));
  EXPECT_FALSE(DataTypeIsInteger(DT_BOOL));
  EXPECT_TRUE(DataTypeIsSigned(DT_INT64));
  EXPECT_FALSE(DataTypeIsSigned(DT_UINT8));
  EXPECT_TRUE(DataTypeIsUnsigned(DT_UINT32));
  EXPECT_FALSE(DataTypeIsUnsigned(DT_INT32));
  EXPECT_FALSE(DataTypeIsInteger(DT_INT32_REF));
  EXPECT_TRUE(DataTypeCanUseMemcpy(DT_BFLOAT16));
  EXPECT_TRUE(DataTypeCanUseMemcpy(DT_BOOL));
  EXPECT_FALSE(DataTypeCanUseMemcpy(DT_STRING));
  EXPECT_FALSE(DataTypeCanUseMemcpy(DT_RESOURCE));
  EXPECT_FALSE(DataTypeCanUseMemcpy(DT_VARIANT));
  EXPECT_FALSE(DataTypeCanUseMemcpy(DT_INVALID));
}

TEST(DataTypeSetsTest, ExactContents) {
  EXPECT_THAT(RealNumberTypes(),
              ElementsAre(DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16,
                          DT_INT8, DT_INT64, DT_BFLOAT16, DT_UINT16, DT_HALF,
                          DT_UINT32, DT_UINT64));
  EXPECT_THAT(NumberTypes(),
              ElementsAre(DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16,
                          DT_INT8, DT_COMPLEX64, DT_INT64, DT_QINT8, DT_QUINT8,
                          DT_QINT32, DT_BFLOAT16, DT_UINT16, DT_COMPLEX128,
                          DT_HALF, DT_UINT32, DT_UINT64));
  EXPECT_THAT(QuantizedTypes(),
              ElementsAre(DT_QINT8, DT_QUINT8, DT_QINT32, DT_QINT16, DT_QUINT16));
  EXPECT_THAT(RealAndQuantizedTypes(),
              ElementsAre(DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16,
                          DT_INT8, DT_INT64, DT_QINT8, DT_QUINT8, DT_QINT32,
                          DT_BFLOAT16, DT_QINT16, DT_QUINT16, DT_UINT16,
                          DT_HALF, DT_UINT32, DT_UINT64));
  DataTypeVector all;
  for (int i = DT_FLOAT; i <= DT_UINT64; ++i) all.push_back(static_cast<DataType>(i));
  EXPECT_EQ(AllTypes(), all);
}

// Reads the allowed_values type list of attr `attr` of op `op` from
// TensorFlow's ops.pbtxt (a line-oriented scan is enough for this file).
DataTypeVector AllowedTypesFromOpsPbtxt(const std::string& op,
                                        const std::string& attr) {
  std::ifstream in(testing::TestDataDir() + "/tensorflow/ops.pbtxt");
  EXPECT_TRUE(in.good()) << "cannot open ops.pbtxt under " << testing::TestDataDir();
  std::string line;
  bool in_op = false, in_attr = false, in_allowed = false;
  DataTypeVector out;
  while (std::getline(in, line)) {
    if (line == "op {") {
      in_op = in_attr = in_allowed = false;
      continue;
    }
    if (line == "  name: \"" + op + "\"") in_op = true;
    if (!in_op) continue;
    if (line == "    name: \"" + attr + "\"") in_attr = true;
    if (in_attr && line.find("allowed_values {") != std::string::npos) {
      in_allowed = true;
    }
    if (in_allowed) {
      const auto pos = line.find("type: DT_");
      if (pos != std::string::npos) {
        DataType dt;
        EXPECT_TRUE(DataType_Parse(line.substr(pos + 6), &dt)) << line;
        out.push_back(dt);
      } else if (line == "    }" || line == "  }") {
        if (!out.empty()) return out;
      }
    }
  }
  return out;
}

TEST(DataTypeSetsTest, MatchTensorFlowOpsPbtxt) {
  // Ops whose spec is `T: realnumbertype`, `T: quantizedtype`,
  // `dtype: numbertype` (see registrations.jsonl).
  EXPECT_EQ(AllowedTypesFromOpsPbtxt("HistogramSummary", "T"), RealNumberTypes());
  EXPECT_EQ(AllowedTypesFromOpsPbtxt("QuantizeV2", "T"), QuantizedTypes());
  EXPECT_EQ(AllowedTypesFromOpsPbtxt("ConditionalAccumulator", "dtype"),
            NumberTypes());
}

}  // namespace
}  // namespace opkit

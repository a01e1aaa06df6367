// Loads examples/attr_examples and runs every attr and polymorphism example
// of the guide: constrained attrs accept what the constraint allows and
// reject the rest with the op's message, defaults of every kind arrive at the
// kernel, and list inputs and outputs keep their types and lengths.
#include <complex>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/op/op_registry.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/runtime/library.h"
#include "opkit/testing/status_matchers.h"
#include "tests/examples/example_test_util.h"

#ifndef ATTR_EXAMPLES_LIB
#error "ATTR_EXAMPLES_LIB must name the built attr_examples library"
#endif

namespace opkit {
namespace {

using ::opkit::examples_test::AsTensor;
using ::opkit::examples_test::Attr;
using ::opkit::examples_test::OpNames;
using ::opkit::examples_test::Values;
using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsSupersetOf;

class AttrExamplesTest : public examples_test::OpLibraryTest {
 protected:
  AttrExamplesTest() : OpLibraryTest(ATTR_EXAMPLES_LIB) {}

  std::vector<Tensor> Run(const std::string& op,
                          const std::vector<Tensor>& inputs,
                          const EagerAttrs& attrs = {}) {
    std::vector<Tensor> out;
    EXPECT_THAT(ctx_->Run(op, inputs, attrs, &out), IsOk()) << op;
    return out;
  }
  // The string scalar `op` outputs.
  std::string RunString(const std::string& op, const EagerAttrs& attrs = {},
                        const std::vector<Tensor>& inputs = {}) {
    std::vector<Tensor> out = Run(op, inputs, attrs);
    if (out.size() != 1 || out[0].dtype() != DT_STRING ||
        out[0].NumElements() != 1) {
      ADD_FAILURE() << op << " did not return one string";
      return "";
    }
    return out[0].flat<tstring>()(0);
  }
  int64 RunInt64(const std::string& op, const EagerAttrs& attrs = {}) {
    std::vector<Tensor> out = Run(op, {}, attrs);
    if (out.size() != 1 || out[0].dtype() != DT_INT64) {
      ADD_FAILURE() << op << " did not return an int64";
      return -1;
    }
    return out[0].scalar<int64>()();
  }
  static const OpDef& Def(const std::string& op) {
    const OpDef* def = nullptr;
    Status s = OpRegistry::Global()->LookUpOpDef(op, &def);
    EXPECT_THAT(s, IsOk());
    static const OpDef* const kEmpty = new OpDef;
    return def == nullptr ? *kEmpty : *def;
  }
};

TEST_F(AttrExamplesTest, LibraryRegistersEveryExample) {
  EXPECT_THAT(
      OpNames(library_),
      ElementsAre("ArbitraryTensorSequenceExample", "AttrDefaultExample",
                  "AttrDefaultExampleForAllTypes", "BuiltInTypesExample",
                  "EnumExample", "Int32SequenceExample", "IntListInputExample",
                  "ListTypeRestrictionExample", "MinIntExample",
                  "MinLengthIntListExample",
                  "MinimumLengthPolymorphicListExample", "MultipleInsAndOuts",
                  "MyGeneralUnaryOp", "NumberOrBooleanType", "NumberType",
                  "PolymorphicListExample", "PolymorphicSingleInput",
                  "RestrictedPolymorphicSingleInput",
                  "RestrictedTensorSequenceExample", "RestrictedTypeExample",
                  "SameListInputExample", "SameTypeSequenceExample",
                  "StringToNumber", "TypeListExample"));
}

// --- Attr constraints ---------------------------------------------------------

TEST_F(AttrExamplesTest, EnumStrings) {
  EXPECT_EQ(RunString("EnumExample", {{"e", Attr("apple")}}), "apple");
  EXPECT_EQ(RunString("EnumExample", {{"e", Attr("orange")}}), "orange");
  EXPECT_THAT(RunStatus("EnumExample", {}, {{"e", Attr("banana")}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("banana")));
  EXPECT_THAT(RunStatus("EnumExample", {}, {{"e", Attr(3)}}),
              StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(RunStatus("EnumExample", {}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("'e'")));
}

TEST_F(AttrExamplesTest, RestrictedTypes) {
  EXPECT_EQ(RunString("RestrictedTypeExample", {{"t", Attr(DT_INT32)}}),
            "int32");
  EXPECT_EQ(RunString("RestrictedTypeExample", {{"t", Attr(DT_FLOAT)}}),
            "float");
  EXPECT_EQ(RunString("RestrictedTypeExample", {{"t", Attr(DT_BOOL)}}),
            "bool");
  EXPECT_THAT(
      RunStatus("RestrictedTypeExample", {}, {{"t", Attr(DT_DOUBLE)}}),
      StatusIs(error::INVALID_ARGUMENT, HasSubstr("double")));
}

TEST_F(AttrExamplesTest, NumberTypeAndNumberOrBoolean) {
  // The guide: number_type(t=tf.int32) valid, t=tf.bool invalid.
  EXPECT_EQ(RunString("NumberType", {{"t", Attr(DT_INT32)}}), "int32");
  EXPECT_EQ(RunString("NumberType", {{"t", Attr(DT_COMPLEX64)}}),
            "complex64");
  EXPECT_EQ(RunString("NumberType", {{"t", Attr(DT_QINT8)}}), "qint8");
  EXPECT_THAT(RunStatus("NumberType", {}, {{"t", Attr(DT_BOOL)}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("bool")));
  EXPECT_THAT(RunStatus("NumberType", {}, {{"t", Attr(DT_STRING)}}),
              StatusIs(error::INVALID_ARGUMENT));
  // number_or_boolean_type: int32 and bool valid, string invalid.
  EXPECT_EQ(RunString("NumberOrBooleanType", {{"t", Attr(DT_INT32)}}),
            "int32");
  EXPECT_EQ(RunString("NumberOrBooleanType", {{"t", Attr(DT_BOOL)}}), "bool");
  EXPECT_THAT(RunStatus("NumberOrBooleanType", {}, {{"t", Attr(DT_STRING)}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("string")));
}

TEST_F(AttrExamplesTest, MinimumInt) {
  EXPECT_EQ(RunInt64("MinIntExample", {{"a", Attr(2)}}), 2);
  EXPECT_EQ(RunInt64("MinIntExample", {{"a", Attr(int64{1} << 40)}}),
            int64{1} << 40);
  EXPECT_THAT(RunStatus("MinIntExample", {}, {{"a", Attr(1)}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("2")));
  EXPECT_THAT(RunStatus("MinIntExample", {}, {{"a", Attr(-5)}}),
              StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(AttrExamplesTest, TypeListWithMinimumLength) {
  EXPECT_EQ(RunString("TypeListExample",
                      {{"a", Attr({DT_INT32, DT_FLOAT, DT_FLOAT})}}),
            "int32, float, float");
  EXPECT_EQ(RunString("TypeListExample",
                      {{"a", Attr({DT_FLOAT, DT_FLOAT, DT_FLOAT, DT_INT32})}}),
            "float, float, float, int32");
  EXPECT_THAT(RunStatus("TypeListExample", {},
                        {{"a", Attr({DT_INT32, DT_FLOAT})}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("3")));
  EXPECT_THAT(RunStatus("TypeListExample", {},
                        {{"a", Attr({DT_INT32, DT_FLOAT, DT_DOUBLE})}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("double")));
}

// --- Defaults -------------------------------------------------------------------

TEST_F(AttrExamplesTest, IntDefault) {
  EXPECT_EQ(RunInt64("AttrDefaultExample"), 0);
  EXPECT_EQ(RunInt64("AttrDefaultExample", {{"i", Attr(-5)}}), -5);
}

TEST_F(AttrExamplesTest, DefaultsOfEveryKind) {
  EXPECT_EQ(RunString("AttrDefaultExampleForAllTypes"),
            "s=foo i=0 f=1 b=true ty=int32 sh=[1,2] te=5 l_empty=[] "
            "l_int=[2,3,5,7]");
  Tensor te(int32{-8});
  PartialTensorShape sh({4, -1});
  EXPECT_EQ(RunString("AttrDefaultExampleForAllTypes",
                      {{"s", Attr("bar")},
                       {"i", Attr(9)},
                       {"f", Attr(0.5f)},
                       {"b", Attr(false)},
                       {"ty", Attr(DT_HALF)},
                       {"sh", Attr(sh)},
                       {"te", Attr(te)},
                       {"l_empty", Attr(std::vector<int64>{1})},
                       {"l_int", Attr(std::vector<int64>{})}}),
            "s=bar i=9 f=0.5 b=false ty=half sh=[4,?] te=-8 l_empty=[1] "
            "l_int=[]");

  // The defaults as the OpDef holds them (TensorFlow's text-proto syntax).
  const OpDef& def = Def("AttrDefaultExampleForAllTypes");
  ASSERT_EQ(def.attr_size(), 9);
  EXPECT_EQ(def.attr(0).default_value().s(), "foo");
  EXPECT_EQ(def.attr(1).default_value().i(), 0);
  EXPECT_EQ(def.attr(2).default_value().f(), 1.0f);
  EXPECT_TRUE(def.attr(3).default_value().b());
  EXPECT_EQ(def.attr(4).default_value().type(), DT_INT32);
  const TensorShapeProto& shape = def.attr(5).default_value().shape();
  ASSERT_EQ(shape.dim_size(), 2);
  EXPECT_EQ(shape.dim(0).size(), 1);
  EXPECT_EQ(shape.dim(1).size(), 2);
  const TensorProto& tensor = def.attr(6).default_value().tensor();
  EXPECT_EQ(tensor.dtype(), DT_INT32);
  EXPECT_THAT(tensor.int_val(), ElementsAre(5));
  EXPECT_TRUE(def.attr(7).default_value().has_list());
  EXPECT_EQ(def.attr(7).default_value().list().i_size(), 0);
  EXPECT_THAT(def.attr(8).default_value().list().i(), ElementsAre(2, 3, 5, 7));

  EXPECT_THAT(RunStatus("AttrDefaultExampleForAllTypes", {},
                        {{"ty", Attr(7)}}),
              StatusIs(error::INVALID_ARGUMENT));
}

// --- Inputs, outputs and polymorphism ------------------------------------------

TEST_F(AttrExamplesTest, BuiltInTypes) {
  std::vector<Tensor> out =
      Run("BuiltInTypesExample",
          {AsTensor<int32>({1, 2}),
           AsTensor<complex64>({complex64(1, 1), complex64(2, -1)})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(Values<complex64>(out[0]), ElementsAre(complex64(6, 0)));
  EXPECT_THAT(RunStatus("BuiltInTypesExample",
                        {AsTensor<int32>({1}), AsTensor<float>({1.0f})}),
              StatusIs(error::INVALID_ARGUMENT));
  EXPECT_THAT(RunStatus("BuiltInTypesExample", {AsTensor<int32>({1})}),
              StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(AttrExamplesTest, PolymorphicSingleInput) {
  EXPECT_EQ(RunString("PolymorphicSingleInput", {},
                      {AsTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3})}),
            "float [2,3]");
  EXPECT_EQ(RunString("PolymorphicSingleInput", {}, {Tensor("s")}),
            "string []");
  EXPECT_EQ(RunString("RestrictedPolymorphicSingleInput", {},
                      {AsTensor<int64>({1, 2, 3, 4})}),
            "int64 [4]");
  EXPECT_EQ(RunString("RestrictedPolymorphicSingleInput", {},
                      {AsTensor<int32>({1})}),
            "int32 [1]");
  EXPECT_THAT(RunStatus("RestrictedPolymorphicSingleInput",
                        {AsTensor<float>({1.0f})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("float")));
}

TEST_F(AttrExamplesTest, TypeListInputsAndOutputs) {
  const std::vector<Tensor> mixed = {AsTensor<int32>({1, 2}), Tensor("x"),
                                     AsTensor<double>({0.5})};
  for (const char* op :
       {"ArbitraryTensorSequenceExample", "PolymorphicListExample"}) {
    SCOPED_TRACE(op);
    std::vector<Tensor> out = Run(op, mixed);
    ASSERT_EQ(out.size(), 3u);
    EXPECT_THAT(Values<int32>(out[0]), ElementsAre(1, 2));
    EXPECT_EQ(out[1].flat<tstring>()(0), "x");
    EXPECT_THAT(Values<double>(out[2]), ElementsAre(0.5));
  }

  std::vector<Tensor> out = Run("RestrictedTensorSequenceExample",
                                {AsTensor<int64>({7}), AsTensor<int32>({8})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(Values<int64>(out[0]), ElementsAre(7));
  EXPECT_THAT(Values<int32>(out[1]), ElementsAre(8));
  EXPECT_THAT(RunStatus("RestrictedTensorSequenceExample",
                        {AsTensor<int32>({1}), AsTensor<float>({1.0f})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("float")));

  // The guide: input types (float, double, float) give the same outputs.
  out = Run("ListTypeRestrictionExample",
            {AsTensor<float>({1.0f}), AsTensor<double>({2.0}),
             AsTensor<float>({3.0f})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].dtype(), DT_FLOAT);
  EXPECT_EQ(out[1].dtype(), DT_DOUBLE);
  EXPECT_EQ(out[2].dtype(), DT_FLOAT);
  EXPECT_THAT(RunStatus("ListTypeRestrictionExample", {AsTensor<int32>({1})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("int32")));

  out = Run("MinimumLengthPolymorphicListExample",
            {AsTensor<int32>({1}), Tensor("a"), AsTensor<float>({2.0f})});
  EXPECT_EQ(out.size(), 3u);
  EXPECT_THAT(RunStatus("MinimumLengthPolymorphicListExample",
                        {AsTensor<int32>({1}), AsTensor<int32>({2})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("3")));
}

TEST_F(AttrExamplesTest, NTimesTypeInputs) {
  std::vector<Tensor> out = Run("Int32SequenceExample",
                                {AsTensor<int32>({1}), AsTensor<int32>({2, 3})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(Values<int32>(out[0]), ElementsAre(2));
  EXPECT_THAT(RunStatus("Int32SequenceExample", {AsTensor<float>({1.0f})}),
              StatusIs(error::INVALID_ARGUMENT));

  out = Run("SameTypeSequenceExample",
            {AsTensor<float>({1.0f}), AsTensor<float>({2.0f}),
             AsTensor<float>({3.0f})});
  EXPECT_THAT(Values<int32>(out[0]), ElementsAre(3));
  EXPECT_THAT(RunStatus("SameTypeSequenceExample",
                        {AsTensor<float>({1.0f}), AsTensor<int32>({2})}),
              StatusIs(error::INVALID_ARGUMENT));

  // IntListInputExample and MinLengthIntListExample sum their inputs.
  out = Run("IntListInputExample",
            {AsTensor<int32>({1, 2}), AsTensor<int32>({10, 20}),
             AsTensor<int32>({100, 200})});
  EXPECT_THAT(Values<int32>(out[0]), ElementsAre(111, 222));
  out = Run("IntListInputExample", {AsTensor<int32>({4})});
  EXPECT_THAT(Values<int32>(out[0]), ElementsAre(4));
  EXPECT_THAT(RunStatus("IntListInputExample",
                        {AsTensor<int32>({1, 2}), AsTensor<int32>({1})}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("input 0 is [2] but input 1 is [1]")));
  // A list attr N defaults to a minimum length of 1.
  EXPECT_THAT(RunStatus("IntListInputExample", {}),
              StatusIs(error::INVALID_ARGUMENT));

  out = Run("MinLengthIntListExample",
            {AsTensor<int32>({std::numeric_limits<int32>::max()}), AsTensor<int32>({1})});
  EXPECT_THAT(Values<int32>(out[0]), ElementsAre(std::numeric_limits<int32>::min()));
  EXPECT_THAT(RunStatus("MinLengthIntListExample", {AsTensor<int32>({1})}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("2")));

  out = Run("SameListInputExample", {Tensor("first"), Tensor("second")});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].flat<tstring>()(0), "first");
  EXPECT_THAT(RunStatus("SameListInputExample",
                        {Tensor("a"), AsTensor<int32>({1})}),
              StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(AttrExamplesTest, GeneralUnaryOpMadePolymorphic) {
  std::vector<Tensor> out = Run("MyGeneralUnaryOp", {AsTensor<float>({1.5f})});
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(1.5f));
  out = Run("MyGeneralUnaryOp", {AsTensor<complex128>({complex128(1, 2)})});
  EXPECT_THAT(Values<complex128>(out[0]), ElementsAre(complex128(1, 2)));
  out = Run("MyGeneralUnaryOp", {AsTensor<qint8>({qint8(-3)})});
  EXPECT_EQ(out[0].dtype(), DT_QINT8);
  EXPECT_THAT(RunStatus("MyGeneralUnaryOp", {Tensor(true)}),
              StatusIs(error::INVALID_ARGUMENT));
  // The default keeps the op's original float signature.
  const OpDef& def = Def("MyGeneralUnaryOp");
  ASSERT_EQ(def.attr_size(), 1);
  EXPECT_EQ(def.attr(0).default_value().type(), DT_FLOAT);

  // The guide's spelling "numerictype" is TensorFlow's other name of
  // "numbertype": the same OpDef.
  OpRegistrationData data;
  ASSERT_THAT(OpDefBuilder("MyGeneralUnaryOp")
                  .Input("in: T")
                  .Output("out: T")
                  .Attr("T: numbertype = DT_FLOAT")
                  .Finalize(&data),
              IsOk());
  EXPECT_EQ(data.op_def.SerializeAsString(), def.SerializeAsString());
  EXPECT_EQ(def.attr(0).allowed_values().list().type_size(),
            static_cast<int>(NumberTypes().size()));
}

TEST_F(AttrExamplesTest, MultipleInputsAndOutputs) {
  std::vector<Tensor> out =
      Run("MultipleInsAndOuts",
          {AsTensor<int32>({1, -2, 3}), AsTensor<float>({0.5f, 0.25f})});
  ASSERT_EQ(out.size(), 2u);
  ASSERT_EQ(out[0].dtype(), DT_STRING);
  EXPECT_EQ(out[0].shape(), TensorShape({3}));
  EXPECT_EQ(out[0].flat<tstring>()(0), "1");
  EXPECT_EQ(out[0].flat<tstring>()(1), "-2");
  EXPECT_EQ(out[0].flat<tstring>()(2), "3");
  EXPECT_THAT(Values<int32>(out[1]), ElementsAre(2));
  EXPECT_THAT(RunStatus("MultipleInsAndOuts",
                        {AsTensor<float>({1.0f}), AsTensor<float>({1.0f})}),
              StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(AttrExamplesTest, StringToNumber) {
  Tensor strings(DT_STRING, TensorShape({4}));
  auto s = strings.flat<tstring>();
  s(0) = "1.5";
  s(1) = " -2 ";
  s(2) = "+3e2";
  s(3) = "inf";
  std::vector<Tensor> out = Run("StringToNumber", {strings});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dtype(), DT_FLOAT);  // out_type's default
  EXPECT_THAT(Values<float>(out[0]),
              ElementsAre(1.5f, -2.0f, 300.0f,
                          std::numeric_limits<float>::infinity()));

  Tensor ints(DT_STRING, TensorShape({3}));
  ints.flat<tstring>()(0) = "7";
  ints.flat<tstring>()(1) = "42";
  ints.flat<tstring>()(2) = "-2147483648";
  out = Run("StringToNumber", {ints}, {{"out_type", Attr(DT_INT32)}});
  EXPECT_THAT(Values<int32>(out[0]), ElementsAre(7, 42, std::numeric_limits<int32>::min()));

  for (const char* bad : {"x", "", "1.5.2", "12abc", "- 1"}) {
    EXPECT_THAT(RunStatus("StringToNumber", {Tensor(bad)}),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr(std::string("StringToNumberOp could not "
                                               "correctly convert string: ") +
                                   bad)))
        << "'" << bad << "'";
  }
  for (const char* bad : {"1.5", "2147483648", "1e3"}) {
    EXPECT_THAT(RunStatus("StringToNumber", {Tensor(bad)},
                          {{"out_type", Attr(DT_INT32)}}),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("could not correctly convert string")))
        << bad;
  }
  EXPECT_THAT(RunStatus("StringToNumber", {Tensor("1")},
                        {{"out_type", Attr(DT_DOUBLE)}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("double")));
  EXPECT_THAT(RunStatus("StringToNumber", {AsTensor<float>({1.0f})}),
              StatusIs(error::INVALID_ARGUMENT));
  EXPECT_EQ(Def("StringToNumber").summary() + Def("StringToNumber").description(),
            "Converts each string in the input Tensor to the specified numeric "
            "type.");
}

}  // namespace
}  // namespace opkit

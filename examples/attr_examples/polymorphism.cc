// Every input/output and polymorphism example of TensorFlow's "Adding a new
// op" guide (its "Polymorphism", "Inputs and outputs" and "Backwards
// compatibility" sections), with the guide's registrations and a kernel
// for each so that they run:
//   BuiltInTypesExample            fixed types: int32 and complex64 inputs
//   PolymorphicSingleInput         T: type
//   RestrictedPolymorphicSingleInput  T: {int32, int64}
//   ArbitraryTensorSequenceExample T: list(type), in and out
//   RestrictedTensorSequenceExample   T: list({int32, int64})
//   Int32SequenceExample           NumTensors * int32
//   SameTypeSequenceExample        NumTensors * T
//   MyGeneralUnaryOp               made polymorphic with a default type
//   PolymorphicListExample         T: list(type)
//   ListTypeRestrictionExample     T: list({float, double})
//   IntListInputExample            N * int32 -> int32
//   SameListInputExample           N * T -> T
//   MinLengthIntListExample        N: int >= 2
//   MinimumLengthPolymorphicListExample  T: list(type) >= 3
//   MultipleInsAndOuts             two inputs, two outputs of fixed types
//
// Registrations the guide gives without outputs gain one, saying what the
// kernel received (see each kernel). MyGeneralUnaryOp keeps the guide's
// spelling "numerictype", which TensorFlow (and opkit) accept as another
// name of "numbertype".
#include <string>
#include <vector>

#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"
#include "tensorflow/core/lib/strings/strcat.h"

using namespace tensorflow;

REGISTER_OP("BuiltInTypesExample")
    .Input("integers: int32")
    .Input("complex_numbers: complex64")
    .Output("sum: complex64");

REGISTER_OP("PolymorphicSingleInput")
    .Attr("T: type")
    .Input("in: T")
    .Output("description: string");

REGISTER_OP("RestrictedPolymorphicSingleInput")
    .Attr("T: {int32, int64}")
    .Input("in: T")
    .Output("description: string");

REGISTER_OP("ArbitraryTensorSequenceExample")
    .Attr("T: list(type)")
    .Input("in: T")
    .Output("out: T");

REGISTER_OP("RestrictedTensorSequenceExample")
    .Attr("T: list({int32, int64})")
    .Input("in: T")
    .Output("out: T");

REGISTER_OP("Int32SequenceExample")
    .Attr("NumTensors: int")
    .Input("in: NumTensors * int32")
    .Output("count: int32");

REGISTER_OP("SameTypeSequenceExample")
    .Attr("NumTensors: int")
    .Attr("T: type")
    .Input("in: NumTensors * T")
    .Output("count: int32");

REGISTER_OP("MyGeneralUnaryOp")
    .Input("in: T")
    .Output("out: T")
    .Attr("T: numerictype = DT_FLOAT");

REGISTER_OP("PolymorphicListExample")
    .Attr("T: list(type)")
    .Input("in: T")
    .Output("out: T");

REGISTER_OP("ListTypeRestrictionExample")
    .Attr("T: list({float, double})")
    .Input("in: T")
    .Output("out: T");

REGISTER_OP("IntListInputExample")
    .Attr("N: int")
    .Input("in: N * int32")
    .Output("out: int32");

REGISTER_OP("SameListInputExample")
    .Attr("N: int")
    .Attr("T: type")
    .Input("in: N * T")
    .Output("out: T");

REGISTER_OP("MinLengthIntListExample")
    .Attr("N: int >= 2")
    .Input("in: N * int32")
    .Output("out: int32");

REGISTER_OP("MinimumLengthPolymorphicListExample")
    .Attr("T: list(type) >= 3")
    .Input("in: T")
    .Output("out: T");

REGISTER_OP("MultipleInsAndOuts")
    .Input("y: int32")
    .Input("z: float")
    .Output("a: string")
    .Output("b: int32");

namespace {

void SetStringOutput(OpKernelContext* context, const string& value) {
  Tensor* output = NULL;
  OP_REQUIRES_OK(context,
                 context->allocate_output(0, TensorShape({}), &output));
  output->scalar<tstring>()() = value;
}

void SetInt32Output(OpKernelContext* context, int32 value) {
  Tensor* output = NULL;
  OP_REQUIRES_OK(context,
                 context->allocate_output(0, TensorShape({}), &output));
  output->scalar<int32>()() = value;
}

// The sum of every integer and every complex number, as one complex64.
class BuiltInTypesExampleOp : public OpKernel {
 public:
  explicit BuiltInTypesExampleOp(OpKernelConstruction* context)
      : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {
    auto integers = context->input(0).flat<int32>();
    auto complex_numbers = context->input(1).flat<complex64>();
    complex64 sum(0, 0);
    for (int64 i = 0; i < integers.size(); ++i) {
      sum += complex64(static_cast<float>(integers(i)), 0);
    }
    for (int64 i = 0; i < complex_numbers.size(); ++i) {
      sum += complex_numbers(i);
    }
    Tensor* output = NULL;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, TensorShape({}), &output));
    output->scalar<complex64>()() = sum;
  }
};

// "<T> <shape>" of its one input, e.g. "float [2,3]": T was inferred from
// the input.
class DescribeInputOp : public OpKernel {
 public:
  explicit DescribeInputOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("T", &t_));
  }
  void Compute(OpKernelContext* context) override {
    SetStringOutput(context,
                    strings::StrCat(DataTypeString(t_), " ",
                                    context->input(0).shape().DebugString()));
  }

 private:
  DataType t_;
};

// Outputs its inputs unchanged: for `in: T` / `out: T` with T a
// list(type), the list passes through whole.
class PassThroughOp : public OpKernel {
 public:
  explicit PassThroughOp(OpKernelConstruction* context) : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {
    OpInputList ins;
    OP_REQUIRES_OK(context, context->input_list("in", &ins));
    OpOutputList outs;
    OP_REQUIRES_OK(context, context->output_list("out", &outs));
    for (int i = 0; i < ins.size(); ++i) outs.set(i, ins[i]);
  }
};

// How many tensors the N * T input received (the NumTensors attr, checked
// against the list).
class CountInputsOp : public OpKernel {
 public:
  explicit CountInputsOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("NumTensors", &num_tensors_));
  }
  void Compute(OpKernelContext* context) override {
    OpInputList ins;
    OP_REQUIRES_OK(context, context->input_list("in", &ins));
    OP_REQUIRES(context, ins.size() == num_tensors_,
                errors::Internal("NumTensors is ", num_tensors_, " but got ",
                                 ins.size(), " inputs"));
    SetInt32Output(context, num_tensors_);
  }

 private:
  int32 num_tensors_;
};

// MyGeneralUnaryOp: the identity, for every number type.
template <typename T>
class MyGeneralUnaryOp : public OpKernel {
 public:
  explicit MyGeneralUnaryOp(OpKernelConstruction* context)
      : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {
    context->set_output(0, context->input(0));
  }
};

// The element-wise sum of N int32 tensors of one shape.
class SumInt32ListOp : public OpKernel {
 public:
  explicit SumInt32ListOp(OpKernelConstruction* context) : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {
    OpInputList ins;
    OP_REQUIRES_OK(context, context->input_list("in", &ins));
    OP_REQUIRES(context, ins.size() >= 1,
                errors::InvalidArgument("Expected at least one input"));
    for (int i = 1; i < ins.size(); ++i) {
      OP_REQUIRES(context, ins[i].shape() == ins[0].shape(),
                  errors::InvalidArgument(
                      "Inputs must have one shape: input 0 is ",
                      ins[0].shape().DebugString(), " but input ", i, " is ",
                      ins[i].shape().DebugString()));
    }
    Tensor* output = NULL;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, ins[0].shape(), &output));
    auto out = output->flat<int32>();
    out.setZero();
    for (int i = 0; i < ins.size(); ++i) {
      auto in = ins[i].flat<int32>();
      // Wrap-around as int32 addition would, without signed overflow.
      for (int64 k = 0; k < out.size(); ++k) {
        out(k) = static_cast<int32>(static_cast<uint32>(out(k)) +
                                    static_cast<uint32>(in(k)));
      }
    }
  }
};

// SameListInputExample: the first tensor of the list, whatever its type.
class FirstOfListOp : public OpKernel {
 public:
  explicit FirstOfListOp(OpKernelConstruction* context) : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {
    OpInputList ins;
    OP_REQUIRES_OK(context, context->input_list("in", &ins));
    OP_REQUIRES(context, ins.size() >= 1,
                errors::InvalidArgument("Expected at least one input"));
    context->set_output(0, ins[0]);
  }
};

// MultipleInsAndOuts: a = y printed element by element, b = how many
// elements z has.
class MultipleInsAndOutsOp : public OpKernel {
 public:
  explicit MultipleInsAndOutsOp(OpKernelConstruction* context)
      : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {
    const Tensor& y = context->input(0);
    const Tensor& z = context->input(1);
    Tensor* a = NULL;
    OP_REQUIRES_OK(context, context->allocate_output("a", y.shape(), &a));
    auto y_flat = y.flat<int32>();
    auto a_flat = a->flat<tstring>();
    for (int64 i = 0; i < y_flat.size(); ++i) {
      a_flat(i) = strings::StrCat(y_flat(i));
    }
    OP_REQUIRES(context, z.NumElements() <= kint32max,
                errors::InvalidArgument("z has too many elements: ",
                                        z.NumElements()));
    Tensor* b = NULL;
    OP_REQUIRES_OK(context, context->allocate_output("b", TensorShape({}), &b));
    b->scalar<int32>()() = static_cast<int32>(z.NumElements());
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("BuiltInTypesExample").Device(DEVICE_CPU),
                        BuiltInTypesExampleOp);
REGISTER_KERNEL_BUILDER(Name("PolymorphicSingleInput").Device(DEVICE_CPU),
                        DescribeInputOp);
REGISTER_KERNEL_BUILDER(
    Name("RestrictedPolymorphicSingleInput").Device(DEVICE_CPU),
    DescribeInputOp);
REGISTER_KERNEL_BUILDER(
    Name("ArbitraryTensorSequenceExample").Device(DEVICE_CPU), PassThroughOp);
REGISTER_KERNEL_BUILDER(
    Name("RestrictedTensorSequenceExample").Device(DEVICE_CPU), PassThroughOp);
REGISTER_KERNEL_BUILDER(Name("Int32SequenceExample").Device(DEVICE_CPU),
                        CountInputsOp);
REGISTER_KERNEL_BUILDER(Name("SameTypeSequenceExample").Device(DEVICE_CPU),
                        CountInputsOp);

#define REGISTER_UNARY(type)                                  \
  REGISTER_KERNEL_BUILDER(Name("MyGeneralUnaryOp")            \
                              .Device(DEVICE_CPU)             \
                              .TypeConstraint<type>("T"),     \
                          MyGeneralUnaryOp<type>)
TF_CALL_NUMBER_TYPES(REGISTER_UNARY)
TF_CALL_QUANTIZED_TYPES(REGISTER_UNARY)
#undef REGISTER_UNARY

REGISTER_KERNEL_BUILDER(Name("PolymorphicListExample").Device(DEVICE_CPU),
                        PassThroughOp);
REGISTER_KERNEL_BUILDER(Name("ListTypeRestrictionExample").Device(DEVICE_CPU),
                        PassThroughOp);
REGISTER_KERNEL_BUILDER(Name("IntListInputExample").Device(DEVICE_CPU),
                        SumInt32ListOp);
REGISTER_KERNEL_BUILDER(Name("SameListInputExample").Device(DEVICE_CPU),
                        FirstOfListOp);
REGISTER_KERNEL_BUILDER(Name("MinLengthIntListExample").Device(DEVICE_CPU),
                        SumInt32ListOp);
REGISTER_KERNEL_BUILDER(
    Name("MinimumLengthPolymorphicListExample").Device(DEVICE_CPU),
    PassThroughOp);
REGISTER_KERNEL_BUILDER(Name("MultipleInsAndOuts").Device(DEVICE_CPU),
                        MultipleInsAndOutsOp);

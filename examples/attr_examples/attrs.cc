// Every attr example of TensorFlow's "Adding a new op" guide (its "Attrs",
// "Attr types" and "Default values and constraints" sections), with the
// guide's registrations and a kernel for each so that they run.
//
// The guide's ops have no outputs (they only show the attr grammar); here
// each registration gains one output that reports what the kernel received,
// so that a caller can see the attr (or its default) arrive:
//   EnumExample(e='apple')                       -> "apple"
//   RestrictedTypeExample(t=DT_BOOL)             -> "bool"
//   NumberType(t=DT_INT32)                       -> "int32"
//   NumberOrBooleanType(t=DT_BOOL)               -> "bool"
//   MinIntExample(a=2)                           -> 2
//   TypeListExample(a=[DT_INT32, DT_FLOAT, DT_FLOAT]) -> "int32, float, float"
//   AttrDefaultExample()                         -> 0
//   AttrDefaultExampleForAllTypes()              -> "s=foo i=0 f=1 b=true ..."
// Values outside a constraint (e='banana', t=DT_STRING, a=1, a list of two
// types) are rejected before any kernel runs, with the op's message.
#include <string>
#include <vector>

#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow/core/lib/strings/strcat.h"

using namespace tensorflow;

REGISTER_OP("EnumExample")
    .Attr("e: {'apple', 'orange'}")
    .Output("e_out: string");

REGISTER_OP("RestrictedTypeExample")
    .Attr("t: {int32, float, bool}")
    .Output("t_out: string");

REGISTER_OP("NumberType")
    .Attr("t: numbertype")
    .Output("t_out: string");

REGISTER_OP("NumberOrBooleanType")
    .Attr("t: {numbertype, bool}")
    .Output("t_out: string");

REGISTER_OP("MinIntExample")
    .Attr("a: int >= 2")
    .Output("a_out: int64");

REGISTER_OP("TypeListExample")
    .Attr("a: list({int32, float}) >= 3")
    .Output("a_out: string");

REGISTER_OP("AttrDefaultExample")
    .Attr("i: int = 0")
    .Output("i_out: int64");

REGISTER_OP("AttrDefaultExampleForAllTypes")
    .Attr("s: string = 'foo'")
    .Attr("i: int = 0")
    .Attr("f: float = 1.0")
    .Attr("b: bool = true")
    .Attr("ty: type = DT_INT32")
    .Attr("sh: shape = { dim { size: 1 } dim { size: 2 } }")
    .Attr("te: tensor = { dtype: DT_INT32 int_val: 5 }")
    .Attr("l_empty: list(int) = []")
    .Attr("l_int: list(int) = [2, 3, 5, 7]")
    .Output("summary: string");

namespace {

// Writes `value` as the op's only output, a string scalar.
void SetStringOutput(OpKernelContext* context, const string& value) {
  Tensor* output = NULL;
  OP_REQUIRES_OK(context,
                 context->allocate_output(0, TensorShape({}), &output));
  output->scalar<tstring>()() = value;
}

// Writes `value` as the op's only output, an int64 scalar.
void SetInt64Output(OpKernelContext* context, int64 value) {
  Tensor* output = NULL;
  OP_REQUIRES_OK(context,
                 context->allocate_output(0, TensorShape({}), &output));
  output->scalar<int64>()() = value;
}

class EnumExampleOp : public OpKernel {
 public:
  explicit EnumExampleOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("e", &e_));
  }
  void Compute(OpKernelContext* context) override {
    SetStringOutput(context, e_);
  }

 private:
  string e_;
};

// RestrictedTypeExample, NumberType and NumberOrBooleanType: the type attr
// `t`, printed.
class TypeAttrOp : public OpKernel {
 public:
  explicit TypeAttrOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("t", &t_));
  }
  void Compute(OpKernelContext* context) override {
    SetStringOutput(context, DataTypeString(t_));
  }

 private:
  DataType t_;
};

class MinIntExampleOp : public OpKernel {
 public:
  explicit MinIntExampleOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("a", &a_));
  }
  void Compute(OpKernelContext* context) override {
    SetInt64Output(context, a_);
  }

 private:
  int64 a_;
};

class TypeListExampleOp : public OpKernel {
 public:
  explicit TypeListExampleOp(OpKernelConstruction* context)
      : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("a", &a_));
  }
  void Compute(OpKernelContext* context) override {
    SetStringOutput(context, DataTypeSliceString(a_));
  }

 private:
  DataTypeVector a_;
};

class AttrDefaultExampleOp : public OpKernel {
 public:
  explicit AttrDefaultExampleOp(OpKernelConstruction* context)
      : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("i", &i_));
  }
  void Compute(OpKernelContext* context) override {
    SetInt64Output(context, i_);
  }

 private:
  int64 i_;
};

// Reads every attr, of every kind, and prints them in declaration order:
// "s=foo i=0 f=1 b=true ty=int32 sh=[1,2] te=5 l_empty=[] l_int=[2,3,5,7]".
class AttrDefaultExampleForAllTypesOp : public OpKernel {
 public:
  explicit AttrDefaultExampleForAllTypesOp(OpKernelConstruction* context)
      : OpKernel(context) {
    string s;
    int64 i;
    float f;
    bool b;
    DataType ty;
    PartialTensorShape sh;
    Tensor te;
    std::vector<int64> l_empty;
    std::vector<int32> l_int;
    OP_REQUIRES_OK(context, context->GetAttr("s", &s));
    OP_REQUIRES_OK(context, context->GetAttr("i", &i));
    OP_REQUIRES_OK(context, context->GetAttr("f", &f));
    OP_REQUIRES_OK(context, context->GetAttr("b", &b));
    OP_REQUIRES_OK(context, context->GetAttr("ty", &ty));
    OP_REQUIRES_OK(context, context->GetAttr("sh", &sh));
    OP_REQUIRES_OK(context, context->GetAttr("te", &te));
    OP_REQUIRES_OK(context, context->GetAttr("l_empty", &l_empty));
    OP_REQUIRES_OK(context, context->GetAttr("l_int", &l_int));
    OP_REQUIRES(context, te.dtype() == DT_INT32 && te.NumElements() == 1,
                errors::InvalidArgument(
                    "AttrDefaultExampleForAllTypes expects te to be one "
                    "int32, got ",
                    te.DebugString()));
    summary_ = strings::StrCat(
        "s=", s, " i=", i, " f=", f, " b=", b, " ty=", DataTypeString(ty),
        " sh=", sh.DebugString(), " te=", te.flat<int32>()(0), " l_empty=",
        List(l_empty), " l_int=", List(l_int));
  }
  void Compute(OpKernelContext* context) override {
    SetStringOutput(context, summary_);
  }

 private:
  template <typename T>
  static string List(const std::vector<T>& values) {
    string out = "[";
    for (size_t k = 0; k < values.size(); ++k) {
      strings::StrAppend(&out, k == 0 ? "" : ",", values[k]);
    }
    return out + "]";
  }

  string summary_;
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("EnumExample").Device(DEVICE_CPU),
                        EnumExampleOp);
REGISTER_KERNEL_BUILDER(Name("RestrictedTypeExample").Device(DEVICE_CPU),
                        TypeAttrOp);
REGISTER_KERNEL_BUILDER(Name("NumberType").Device(DEVICE_CPU), TypeAttrOp);
REGISTER_KERNEL_BUILDER(Name("NumberOrBooleanType").Device(DEVICE_CPU),
                        TypeAttrOp);
REGISTER_KERNEL_BUILDER(Name("MinIntExample").Device(DEVICE_CPU),
                        MinIntExampleOp);
REGISTER_KERNEL_BUILDER(Name("TypeListExample").Device(DEVICE_CPU),
                        TypeListExampleOp);
REGISTER_KERNEL_BUILDER(Name("AttrDefaultExample").Device(DEVICE_CPU),
                        AttrDefaultExampleOp);
REGISTER_KERNEL_BUILDER(
    Name("AttrDefaultExampleForAllTypes").Device(DEVICE_CPU),
    AttrDefaultExampleForAllTypesOp);

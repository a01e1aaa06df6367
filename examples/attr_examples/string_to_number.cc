// StringToNumber as TensorFlow's guide registers it ("Polymorphism"
// section): a type attr that decides the output type, with a default, so
// the caller names it (out_type) instead of it being inferred from an input.
//
// StringToNumber(["1.5", " -2 "])                  -> float[1.5, -2]
// StringToNumber(["7", "42"], out_type=DT_INT32)   -> int32[7, 42]
// StringToNumber(["x"])  -> InvalidArgument "StringToNumberOp could not
//                           correctly convert string: x"
//
// A string converts when, after surrounding spaces, it is one number of the
// output type (an optional sign, digits, for float a fraction, an exponent,
// or inf/nan) that fits the type. (The guide's registration has a stray `;`
// before .Doc; it is dropped here.)
#include <cctype>
#include <charconv>
#include <string_view>
#include <system_error>

#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"

using namespace tensorflow;

REGISTER_OP("StringToNumber")
    .Input("string_tensor: string")
    .Output("output: out_type")
    .Attr("out_type: {float, int32} = DT_FLOAT")
    .Doc(R"doc(
Converts each string in the input Tensor to the specified numeric type.
)doc");

namespace {

// Parses all of `text` but surrounding spaces as a T; false if it is not
// exactly one number in range.
template <typename T>
bool ParseNumber(std::string_view text, T* value) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  // from_chars takes '-' but not '+'.
  if (text.size() > 1 && text.front() == '+' && text[1] != '-') {
    text.remove_prefix(1);
  }
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  std::from_chars_result result = std::from_chars(text.data(), end, *value);
  return result.ec == std::errc() && result.ptr == end;
}

template <typename OutputType>
class StringToNumberOp : public OpKernel {
 public:
  explicit StringToNumberOp(OpKernelConstruction* context)
      : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& input_tensor = context->input(0);
    auto input_flat = input_tensor.flat<tstring>();

    Tensor* output_tensor = NULL;
    OP_REQUIRES_OK(context, context->allocate_output("output",
                                                     input_tensor.shape(),
                                                     &output_tensor));
    auto output_flat = output_tensor->flat<OutputType>();

    for (int64 i = 0; i < input_flat.size(); ++i) {
      OP_REQUIRES(
          context, ParseNumber(input_flat(i), &output_flat(i)),
          errors::InvalidArgument(
              "StringToNumberOp could not correctly convert string: ",
              input_flat(i)));
    }
  }
};

}  // namespace

#define REGISTER(type)                                                \
  REGISTER_KERNEL_BUILDER(Name("StringToNumber")                      \
                              .Device(DEVICE_CPU)                     \
                              .TypeConstraint<type>("out_type"),      \
                          StringToNumberOp<type>)
REGISTER(float);
REGISTER(int32);
#undef REGISTER

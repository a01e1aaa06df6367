// TensorFlow's v1 control-flow ops: Switch, RefSwitch, Merge, Enter, Exit,
// NextIteration, LoopCond. OpDefs are TensorFlow's for the same names
// (ops_conformance_test checks them); the executor gives them their meaning
// (dead tensors, frames and iterations; see opkit/runtime/executor.h).
#include "opkit/core/errors.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/op/op.h"
#include "opkit/shape/shape_inference.h"

namespace opkit {
namespace {

using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// Both outputs have the data's shape; the predicate is a scalar.
Status SwitchShape(InferenceContext* c) {
  ShapeHandle unused;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  ShapeHandle out = c->input(0);
  c->set_output(0, out);
  c->set_output(1, out);
  return OkStatus();
}

// The output is whichever input arrives, so only what all inputs agree on
// is known: the rank when every rank matches, and each dimension that has
// the same known value in every input.
Status MergeShape(InferenceContext* c) {
  ShapeHandle out = c->input(0);
  if (!InferenceContext::RankKnown(out)) {
    out = c->UnknownShape();
  } else {
    const int64_t rank = InferenceContext::Rank(out);
    for (int i = 1; i < c->num_inputs(); ++i) {
      ShapeHandle in = c->input(i);
      if (!InferenceContext::RankKnown(in) ||
          InferenceContext::Rank(in) != rank) {
        out = c->UnknownShape();
        break;
      }
      for (int64_t d = 0; d < rank; ++d) {
        if (InferenceContext::Value(c->Dim(in, d)) !=
            InferenceContext::Value(c->Dim(out, d))) {
          OPKIT_RETURN_IF_ERROR(c->ReplaceDim(out, d, c->UnknownDim(), &out));
        }
      }
    }
  }
  c->set_output(0, out);
  c->set_output(1, c->Scalar());
  return OkStatus();
}

}  // namespace

REGISTER_OP("Switch")
    .Input("data: T")
    .Input("pred: bool")
    .Output("output_false: T")
    .Output("output_true: T")
    .Attr("T: type")
    .SetShapeFn(SwitchShape);

REGISTER_OP("RefSwitch")
    .Input("data: Ref(T)")
    .Input("pred: bool")
    .Output("output_false: Ref(T)")
    .Output("output_true: Ref(T)")
    .Attr("T: type")
    .SetAllowsUninitializedInput()
    .SetShapeFn(SwitchShape);

REGISTER_OP("Merge")
    .Input("inputs: N * T")
    .Output("output: T")
    .Output("value_index: int32")
    .Attr("T: type")
    .Attr("N: int >= 1")
    .SetShapeFn(MergeShape);

REGISTER_OP("Enter")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("frame_name: string")
    .Attr("is_constant: bool = false")
    .Attr("parallel_iterations: int = 10")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("Exit")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("NextIteration")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("LoopCond")
    .Input("input: bool")
    .Output("output: bool")
    .SetShapeFn([](InferenceContext* c) {
      return shape_inference::UnchangedShapeWithRank(c, 0);
    });

}  // namespace opkit

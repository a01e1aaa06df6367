// TensorFlow's TensorArray ops (v3): an array of tensors that a v1 while
// loop writes one element per iteration into, as a resource of the graph
// run (opkit/kernels/tensor_array_ops.cc). OpDefs are TensorFlow's for the
// same names (ops_conformance_test checks them). One difference in the
// shape functions: TensorArrayV3's handle output is a scalar, the shape
// opkit's kernel gives it, where TensorFlow's shape function still says
// [2] (the shape of the old string handles).
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/op/op.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/shape/shape_inference.h"

namespace opkit {
namespace {

using shape_inference::InferenceContext;
using shape_inference::ShapeAndType;
using shape_inference::ShapeHandle;

// The element shape the handle (input 0) carries, merged with the shape attr
// `attr` when it is not empty.
Status ArrayElementShape(InferenceContext* c, const char* attr,
                         ShapeHandle* out) {
  *out = c->UnknownShape();
  if (attr != nullptr) {
    PartialTensorShape p;
    OPKIT_RETURN_IF_ERROR(c->GetAttr(attr, &p));
    OPKIT_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(p, out));
  }
  const std::vector<ShapeAndType>* data = c->input_handle_shapes_and_types(0);
  if (data != nullptr && data->size() == 1) {
    OPKIT_RETURN_IF_ERROR(c->Merge(*out, (*data)[0].shape, out));
  }
  return OkStatus();
}

Status ScalarInputs(InferenceContext* c, std::initializer_list<int> inputs) {
  ShapeHandle unused;
  for (int i : inputs) {
    OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(i), 0, &unused));
  }
  return OkStatus();
}

}  // namespace

REGISTER_OP("TensorArrayV3")
    .Input("size: int32")
    .Attr("dtype: type")
    .Attr("element_shape: shape = { unknown_rank: true }")
    .Attr("dynamic_size: bool = false")
    .Attr("clear_after_read: bool = true")
    .Attr("identical_element_shapes: bool = false")
    .Attr("tensor_array_name: string = ''")
    .Output("handle: resource")
    .Output("flow: float")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      OPKIT_RETURN_IF_ERROR(ScalarInputs(c, {0}));
      c->set_output(0, c->Scalar());
      c->set_output(1, c->Scalar());
      bool identical;
      OPKIT_RETURN_IF_ERROR(c->GetAttr("identical_element_shapes", &identical));
      DataType dtype;
      OPKIT_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype));
      PartialTensorShape p;
      OPKIT_RETURN_IF_ERROR(c->GetAttr("element_shape", &p));
      ShapeHandle s;
      OPKIT_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(p, &s));
      if (c->FullyDefined(s) || identical) {
        c->set_output_handle_shapes_and_types(
            0, std::vector<ShapeAndType>{{s, dtype}});
      }
      return OkStatus();
    });

REGISTER_OP("TensorArrayWriteV3")
    .Input("handle: resource")
    .Input("index: int32")
    .Input("value: T")
    .Input("flow_in: float")
    .Output("flow_out: float")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      OPKIT_RETURN_IF_ERROR(ScalarInputs(c, {1, 3}));
      ShapeHandle element;
      OPKIT_RETURN_IF_ERROR(ArrayElementShape(c, nullptr, &element));
      ShapeHandle unused;
      OPKIT_RETURN_IF_ERROR(c->Merge(c->input(2), element, &unused));
      c->set_output(0, c->Scalar());
      return OkStatus();
    });

REGISTER_OP("TensorArrayReadV3")
    .Input("handle: resource")
    .Input("index: int32")
    .Input("flow_in: float")
    .Output("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      OPKIT_RETURN_IF_ERROR(ScalarInputs(c, {1, 2}));
      ShapeHandle element;
      OPKIT_RETURN_IF_ERROR(ArrayElementShape(c, nullptr, &element));
      c->set_output(0, element);
      return OkStatus();
    });

REGISTER_OP("TensorArrayGatherV3")
    .Input("handle: resource")
    .Input("indices: int32")
    .Input("flow_in: float")
    .Output("value: dtype")
    .Attr("dtype: type")
    .Attr("element_shape: shape = { unknown_rank: true }")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle indices;
      OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &indices));
      OPKIT_RETURN_IF_ERROR(ScalarInputs(c, {2}));
      ShapeHandle element;
      OPKIT_RETURN_IF_ERROR(ArrayElementShape(c, "element_shape", &element));
      ShapeHandle out;
      OPKIT_RETURN_IF_ERROR(c->Concatenate(indices, element, &out));
      c->set_output(0, out);
      return OkStatus();
    });

REGISTER_OP("TensorArrayScatterV3")
    .Input("handle: resource")
    .Input("indices: int32")
    .Input("value: T")
    .Input("flow_in: float")
    .Output("flow_out: float")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle indices;
      OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &indices));
      ShapeHandle value;
      OPKIT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(2), 1, &value));
      OPKIT_RETURN_IF_ERROR(ScalarInputs(c, {3}));
      c->set_output(0, c->Scalar());
      return OkStatus();
    });

REGISTER_OP("TensorArrayConcatV3")
    .Input("handle: resource")
    .Input("flow_in: float")
    .Output("value: dtype")
    .Output("lengths: int64")
    .Attr("dtype: type")
    .Attr("element_shape_except0: shape = { unknown_rank: true }")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      OPKIT_RETURN_IF_ERROR(ScalarInputs(c, {1}));
      PartialTensorShape p;
      OPKIT_RETURN_IF_ERROR(c->GetAttr("element_shape_except0", &p));
      ShapeHandle rest;
      OPKIT_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(p, &rest));
      ShapeHandle out;
      OPKIT_RETURN_IF_ERROR(
          c->Concatenate(c->Vector(c->UnknownDim()), rest, &out));
      c->set_output(0, out);
      c->set_output(1, c->Vector(c->UnknownDim()));
      return OkStatus();
    });

REGISTER_OP("TensorArraySplitV3")
    .Input("handle: resource")
    .Input("value: T")
    .Input("lengths: int64")
    .Input("flow_in: float")
    .Output("flow_out: float")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle unused;
      OPKIT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, &unused));
      OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &unused));
      OPKIT_RETURN_IF_ERROR(ScalarInputs(c, {3}));
      c->set_output(0, c->Scalar());
      return OkStatus();
    });

REGISTER_OP("TensorArraySizeV3")
    .Input("handle: resource")
    .Input("flow_in: float")
    .Output("size: int32")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      OPKIT_RETURN_IF_ERROR(ScalarInputs(c, {1}));
      c->set_output(0, c->Scalar());
      return OkStatus();
    });

REGISTER_OP("TensorArrayCloseV3")
    .Input("handle: resource")
    .SetIsStateful()
    .SetShapeFn(shape_inference::NoOutputs);

}  // namespace opkit

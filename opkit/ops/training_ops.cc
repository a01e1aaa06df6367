// TensorFlow's optimizer updates on resource variables, the ops its
// optimizers (tf.keras.optimizers.SGD, Adam; tf.compat.v1.train's) run:
// ResourceApplyGradientDescent, ResourceApplyMomentum,
// ResourceApplyKerasMomentum and ResourceApplyAdam. OpDefs are TensorFlow's
// for the same names (ops_conformance_test checks them); the shape
// functions check that every slot and the gradient have the variable's
// shape and every hyperparameter is a scalar, as TensorFlow's do.
#include <initializer_list>

#include "opkit/op/op.h"
#include "opkit/shape/shape_inference.h"

namespace opkit {
namespace {

using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// The shape of the variable behind resource input `i` (from the handle's
// data), or unknown.
ShapeHandle HandleShape(InferenceContext* c, int i) {
  const auto* data = c->input_handle_shapes_and_types(i);
  if (data != nullptr && data->size() == 1) return (*data)[0].shape;
  return c->UnknownShape();
}

// Inputs `vars` are the variable and its slots (resources of one shape),
// `scalars` the hyperparameters, `grad` the gradient.
Status ApplyShape(InferenceContext* c, std::initializer_list<int> vars,
                  std::initializer_list<int> scalars, int grad) {
  ShapeHandle s = c->UnknownShape();
  for (int i : vars) OPKIT_RETURN_IF_ERROR(c->Merge(s, HandleShape(c, i), &s));
  ShapeHandle unused;
  for (int i : scalars) OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(i), 0, &unused));
  return c->Merge(s, c->input(grad), &s);
}

}  // namespace

REGISTER_OP("ResourceApplyGradientDescent")
    .Input("var: resource")
    .Input("alpha: T")
    .Input("delta: T")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetShapeFn([](InferenceContext* c) { return ApplyShape(c, {0}, {1}, 2); });

REGISTER_OP("ResourceApplyMomentum")
    .Input("var: resource")
    .Input("accum: resource")
    .Input("lr: T")
    .Input("grad: T")
    .Input("momentum: T")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetShapeFn([](InferenceContext* c) { return ApplyShape(c, {0, 1}, {2, 4}, 3); });

REGISTER_OP("ResourceApplyKerasMomentum")
    .Input("var: resource")
    .Input("accum: resource")
    .Input("lr: T")
    .Input("grad: T")
    .Input("momentum: T")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetShapeFn([](InferenceContext* c) { return ApplyShape(c, {0, 1}, {2, 4}, 3); });

REGISTER_OP("ResourceApplyAdam")
    .Input("var: resource")
    .Input("m: resource")
    .Input("v: resource")
    .Input("beta1_power: T")
    .Input("beta2_power: T")
    .Input("lr: T")
    .Input("beta1: T")
    .Input("beta2: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetShapeFn([](InferenceContext* c) {
      return ApplyShape(c, {0, 1, 2}, {3, 4, 5, 6, 7, 8}, 9);
    });

}  // namespace opkit

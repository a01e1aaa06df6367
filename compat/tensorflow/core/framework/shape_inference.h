// TensorFlow compatibility: shape_inference::InferenceContext, ShapeHandle
// and DimensionHandle (opkit/shape/shape_inference.h), what a shape
// function works on.
//
//   .SetShapeFn([](::tensorflow::shape_inference::InferenceContext* c) {
//     ::tensorflow::shape_inference::ShapeHandle input;
//     TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &input));
//     c->set_output(0, input);
//     return Status::OK();
//   });
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_SHAPE_INFERENCE_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_SHAPE_INFERENCE_H_

#include "opkit/shape/shape_inference.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow/core/platform/errors.h"
#include "tensorflow/core/platform/status.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_SHAPE_INFERENCE_H_

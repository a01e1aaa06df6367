// TensorFlow compatibility: the shape-function test helpers
// ShapeInferenceTestOp, ShapeInferenceTestutil, INFER_OK and INFER_ERROR
// (opkit/shape/shape_inference_testutil.h), so that an op library's own
// shape-function tests build out of tree against the installed package.
//
//   #include "tensorflow/core/framework/shape_inference_testutil.h"
//   TEST(ZeroOutOpTest, ShapeFn) {
//     ShapeInferenceTestOp op("ZeroOut");
//     INFER_OK(op, "[2,?]", "in0");
//     INFER_ERROR("Shape must be rank 1", op, "[1,2]");
//   }
//
// Link the test with GoogleTest (-lgtest -lgtest_main) as well as opkit.
#ifndef OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_SHAPE_INFERENCE_TESTUTIL_H_
#define OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_SHAPE_INFERENCE_TESTUTIL_H_

#include "gtest/gtest.h"
#include "opkit/shape/shape_inference_testutil.h"
#include "tensorflow/core/framework/node_def_util.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/shape_inference.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/platform/types.h"

#endif  // OPKIT_COMPAT_TENSORFLOW_CORE_FRAMEWORK_SHAPE_INFERENCE_TESTUTIL_H_

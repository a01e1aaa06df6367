// Testing shape functions in TensorFlow's compact syntax.
//
//   ShapeInferenceTestOp op("MatMul");
//   INFER_OK(op, "[1,?];[?,2]", "[d0_0,d1_1]");
//   INFER_OK(op, "?;?", "[?,?]");
//   INFER_ERROR("Shape must be rank 2 but is rank 1", op, "[1];[2,3]");
//
// Input shapes are separated by ';': "?" is an unknown rank, "[2,?]" a known
// rank with a known and an unknown dimension, "[]" a scalar. Every input
// dimension is a distinct handle.
//
// Expected outputs are separated by ';', one per output of the node:
//   "?"          unknown rank (and not an input's shape handle);
//   "in0"        the very same shape handle as input 0 ("in0|in1": either);
//   "[a,b,...]"  known rank, each entry one of
//                  "d0_1"  the very same dimension handle as dimension 1 of
//                          input 0 ("d0_1|d1_0": either);
//                  "7"     a known dimension of value 7 that is NOT an input
//                          dimension's handle;
//                  "?"     an unknown dimension that is not an input's.
// Handle identity is checked because it is what tells later shape functions
// that two unknown dimensions are equal.
// An output the shape function left unset is a failure (TensorFlow would
// accept it as "?").
//
// The op is looked up in op.registry (OpRegistry::Global() when null); the
// node_def's op defaults to op.name and gets the op's attr defaults.
//
// Part of the library (not of the test-only opkit/testing/) so that an op
// author can test a shape function out of tree; TensorFlow's include path
// tensorflow/core/framework/shape_inference_testutil.h reaches it. The
// macros expand to GoogleTest's EXPECT_*: include gtest before using them
// (this header does not, so the library does not depend on gtest).
#ifndef OPKIT_SHAPE_SHAPE_INFERENCE_TESTUTIL_H_
#define OPKIT_SHAPE_SHAPE_INFERENCE_TESTUTIL_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/op/op_registry.h"
#include "opkit/shape/shape_inference.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/node_def.pb.h"

namespace opkit {

// The node a test runs a shape function for. In namespace opkit, as
// TensorFlow has it in namespace tensorflow.
struct ShapeInferenceTestOp {
  explicit ShapeInferenceTestOp(std::string_view op_name) : name(op_name) {}

  // The op's name in the registry.
  std::string name;
  // Attrs (and optionally name/op) of the node. Inputs need not be listed.
  NodeDef node_def;
  // Known constant inputs by index (nullptr or missing for unknown); the
  // tensors must outlive the InferShapes call.
  std::vector<const Tensor*> input_tensors;
  // Per input, what is known behind a resource handle (nullptr for none);
  // empty for none at all.
  std::vector<std::vector<std::pair<PartialTensorShape, DataType>>*>
      input_resource_handle_shapes_and_types;
  int graph_def_version = 0;
  // Where to find the op; nullptr means OpRegistry::Global().
  const OpRegistryInterface* registry = nullptr;
};

namespace shape_inference {

// Also reachable here, where opkit's own tests name it.
using ::opkit::ShapeInferenceTestOp;

class OPKIT_EXPORT ShapeInferenceTestutil {
 public:
  // Runs op's shape function on the inputs `ins` and compares with
  // `expected_outs` (syntax above). "e" as expected_outs means the function
  // must fail: its error (with context) is returned, or Unknown "Shape
  // inference should have returned error" if it succeeded. Otherwise OK when
  // everything matches, else Unknown naming the first mismatch. A malformed
  // spec or a missing op/shape function is InvalidArgument / NotFound.
  static Status InferShapes(ShapeInferenceTestOp op, const std::string& ins,
                            const std::string& expected_outs);

  // Parses one input spec ("?", "[1,?]") into *out.
  static Status ParseShape(std::string_view spec, PartialTensorShape* out);
};

}  // namespace shape_inference
}  // namespace opkit

// Expects the shape function of `op` to accept inputs `i` and produce `o`.
#define INFER_OK(op, i, o)                                                    \
  EXPECT_EQ("", ::opkit::shape_inference::ShapeInferenceTestutil::InferShapes( \
                    op, i, o)                                                 \
                    .error_message())                                         \
      << "for inputs " << (i) << ", expected outputs " << (o)

// Expects the shape function of `op` to fail on inputs `i` with a message
// containing `error_substring`.
#define INFER_ERROR(error_substring, op, i)                                       \
  do {                                                                            \
    const std::string opkit_infer_error_message =                                 \
        ::opkit::shape_inference::ShapeInferenceTestutil::InferShapes(op, i, "e") \
            .error_message();                                                     \
    const std::string opkit_infer_error_substring = (error_substring);            \
    EXPECT_NE("", opkit_infer_error_message) << "for inputs " << (i);             \
    EXPECT_NE(std::string::npos,                                                  \
              opkit_infer_error_message.find(opkit_infer_error_substring))        \
        << "Expected to see '" << opkit_infer_error_substring << "' in '"        \
        << opkit_infer_error_message << "' for inputs " << (i);                   \
  } while (false)

#endif  // OPKIT_SHAPE_SHAPE_INFERENCE_TESTUTIL_H_

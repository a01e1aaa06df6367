// Built-in math ops: element-wise arithmetic, comparisons, logic, selection,
// casts, reductions, segment reductions, matrix products, and the gradient
// ops TensorFlow's gradient functions build on (SigmoidGrad, ...,
// BroadcastGradientArgs). OpDefs are TensorFlow's for the same
// names (ops_conformance_test checks them against TensorFlow's ops.pbtxt);
// the shape functions behave as TensorFlow's and report bad shapes, axes and
// constant inputs as InvalidArgument.
#include <cstdint>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/op/op.h"
#include "opkit/shape/shape_inference.h"

namespace opkit {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeAndType;
using shape_inference::ShapeHandle;

// AddN: every input has the same shape; the merge of all of them is the
// output. For variant inputs the shapes behind the handles merge as well.
Status AddNShape(InferenceContext* c) {
  if (c->num_inputs() < 1) {
    return errors::InvalidArgument("AddN needs at least one input, got ",
                                   c->num_inputs());
  }
  ShapeHandle cur = c->input(c->num_inputs() - 1);
  for (int i = c->num_inputs() - 2; i >= 0; --i) {
    Status s = c->Merge(c->input(i), cur, &cur);
    if (!s.ok()) {
      return errors::AppendToMessage(s, "\n\tFrom merging shape ", i,
                                     " with other shapes.");
    }
  }
  c->set_output(0, cur);

  DataType dtype;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("T", &dtype));
  if (dtype != DT_VARIANT) return OkStatus();

  const std::vector<ShapeAndType>* first =
      c->input_handle_shapes_and_types(c->num_inputs() - 1);
  std::vector<ShapeAndType> merged;
  if (first != nullptr) merged = *first;
  for (int i = c->num_inputs() - 2; i >= 0; --i) {
    const std::vector<ShapeAndType>* other = c->input_handle_shapes_and_types(i);
    if (other == nullptr) continue;
    if (first == nullptr) {
      // The first input that carries handle data sets the reference.
      first = other;
      merged = *other;
      continue;
    }
    if (other->size() != first->size()) {
      return errors::InvalidArgument("shapes_and_types[", i, "].size() == ",
                                     other->size(),
                                     " != shapes_and_types[0].size() == ",
                                     first->size());
    }
    for (size_t j = 0; j < first->size(); ++j) {
      if ((*other)[j].dtype != (*first)[j].dtype) {
        return errors::InvalidArgument(
            "shapes_and_types[", i, "][", j, "].dtype() == ",
            DataTypeString((*other)[j].dtype), " != shapes_and_types[0][", j,
            "].dtype == ", DataTypeString((*first)[j].dtype));
      }
      Status s = c->Merge((*other)[j].shape, merged[j].shape, &merged[j].shape);
      if (!s.ok()) {
        return errors::AppendToMessage(
            s, "\n\tFrom merging shapes_and_types[", i, "][", j,
            "].shape with shapes_and_types[0][", j, "].shape");
      }
    }
  }
  if (first != nullptr) c->set_output_handle_shapes_and_types(0, merged);
  return OkStatus();
}

// Equal / NotEqual: broadcasting, or (incompatible_shape_error=false) a
// scalar result for shapes that do not broadcast.
Status EqualityComparisonShape(InferenceContext* c) {
  bool incompatible_shape_error = true;
  OPKIT_RETURN_IF_ERROR(
      c->GetAttr("incompatible_shape_error", &incompatible_shape_error));
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(shape_inference::BroadcastBinaryOpOutputShapeFnHelper(
      c, c->input(0), c->input(1), incompatible_shape_error, &out));
  c->set_output(0, out);
  return OkStatus();
}

// Select / SelectV2 pass through what is known behind resource or variant
// handles of `t` and `e` when both carry it.
Status MergeSelectHandleData(InferenceContext* c) {
  const std::vector<ShapeAndType>* t = c->input_handle_shapes_and_types(1);
  const std::vector<ShapeAndType>* e = c->input_handle_shapes_and_types(2);
  if (t == nullptr || e == nullptr) return OkStatus();
  if (t->size() != e->size()) {
    return errors::InvalidArgument(
        "Trying to merge handles pointing to different numbers of tensors.");
  }
  std::vector<ShapeAndType> merged(t->size());
  for (size_t i = 0; i < t->size(); ++i) {
    if ((*t)[i].dtype != (*e)[i].dtype) {
      return errors::InvalidArgument(
          "Trying to merge handles pointing to different dtypes.");
    }
    merged[i].dtype = (*t)[i].dtype;
    OPKIT_RETURN_IF_ERROR(
        c->Merge((*t)[i].shape, (*e)[i].shape, &merged[i].shape));
  }
  c->set_output_handle_shapes_and_types(0, merged);
  return OkStatus();
}

// Select: `t` and `e` have one shape; `condition` is a scalar, has that
// shape too, or is a vector as long as their first dimension.
Status SelectShape(InferenceContext* c) {
  OPKIT_RETURN_IF_ERROR(MergeSelectHandleData(c));
  ShapeHandle data = c->input(1);
  OPKIT_RETURN_IF_ERROR(c->Merge(data, c->input(2), &data));
  ShapeHandle cond = c->input(0);
  if (!c->RankKnown(cond) || !c->RankKnown(data)) {
    c->set_output(0, data);
    return OkStatus();
  }
  const int32_t cond_rank = c->Rank(cond);
  const int32_t data_rank = c->Rank(data);
  if (cond_rank == 0) {
    c->set_output(0, data);
    return OkStatus();
  }
  if (cond_rank != 1 || data_rank == 0) {
    OPKIT_RETURN_IF_ERROR(c->Merge(data, cond, &data));
    c->set_output(0, data);
    return OkStatus();
  }
  // A vector condition picks whole rows of t / e.
  OPKIT_RETURN_IF_ERROR(c->Merge(cond, c->Vector(c->Dim(data, 0)), &cond));
  c->set_output(0, data);
  return OkStatus();
}

// SelectV2: condition, t and e broadcast together.
Status SelectV2Shape(InferenceContext* c) {
  OPKIT_RETURN_IF_ERROR(MergeSelectHandleData(c));
  ShapeHandle values;
  OPKIT_RETURN_IF_ERROR(shape_inference::BroadcastBinaryOpOutputShapeFnHelper(
      c, c->input(1), c->input(2), /*incompatible_shape_error=*/true, &values));
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(shape_inference::BroadcastBinaryOpOutputShapeFnHelper(
      c, c->input(0), values, /*incompatible_shape_error=*/true, &out));
  c->set_output(0, out);
  return OkStatus();
}

// ArgMax / ArgMin: the input without the reduced dimension (a scalar for
// inputs of rank <= 1); `dimension` must be a scalar.
Status ArgOpShape(InferenceContext* c) {
  ShapeHandle unused;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  ShapeHandle input = c->input(0);
  if (!c->RankKnown(input)) return shape_inference::UnknownShape(c);
  const int32_t rank = c->Rank(input);
  if (rank <= 1) return shape_inference::ScalarShape(c);

  const Tensor* dim_t = c->input_tensor(1);
  if (dim_t == nullptr) {
    c->set_output(0, c->UnknownShapeOfRank(rank - 1));
    return OkStatus();
  }
  int64_t dimension = 0;
  OPKIT_RETURN_IF_ERROR(c->GetScalarFromTensor(dim_t, &dimension));
  const int64_t axis = dimension < 0 ? dimension + rank : dimension;
  if (axis < 0 || axis >= rank) {
    return errors::InvalidArgument("Dimension (", dimension,
                                   ") must be in the range [", -rank, ", ",
                                   rank, "), where ", rank,
                                   " is the number of dimensions in the input.");
  }
  std::vector<DimensionHandle> dims;
  dims.reserve(rank - 1);
  for (int32_t i = 0; i < rank; ++i) {
    if (i != axis) dims.push_back(c->Dim(input, i));
  }
  c->set_output(0, c->MakeShape(dims));
  return OkStatus();
}

// BroadcastGradientArgs: two shape vectors in, two index vectors of unknown
// length out.
Status BroadcastGradientArgsShape(InferenceContext* c) {
  ShapeHandle unused;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &unused));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &unused));
  c->set_output(0, c->Vector(InferenceContext::kUnknownDim));
  c->set_output(1, c->Vector(InferenceContext::kUnknownDim));
  return OkStatus();
}

// UnsortedSegment*: segment_ids' shape is a prefix of data's; the output is
// [num_segments] followed by data's dimensions after that prefix.
Status UnsortedSegmentReductionShape(InferenceContext* c) {
  ShapeHandle data = c->input(0);
  ShapeHandle ids = c->input(1);
  ShapeHandle unused;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  if (!c->RankKnown(ids)) {
    c->set_output(0, c->UnknownShape());
    return OkStatus();
  }
  OPKIT_RETURN_IF_ERROR(c->MergePrefix(data, ids, &data, &ids));
  DimensionHandle num_segments;
  OPKIT_RETURN_IF_ERROR(c->MakeDimForScalarInput(2, &num_segments));
  ShapeHandle suffix, out;
  OPKIT_RETURN_IF_ERROR(c->Subshape(data, c->Rank(ids), &suffix));
  OPKIT_RETURN_IF_ERROR(c->Concatenate(c->Vector(num_segments), suffix, &out));
  c->set_output(0, out);
  return OkStatus();
}

}  // namespace

// --- Element-wise arithmetic ---------------------------------------------

REGISTER_OP("AddN")
    .Input("inputs: N * T")
    .Output("sum: T")
    .Attr("N: int >= 1")
    .Attr("T: {numbertype, variant}")
    .SetIsCommutative()
    .SetIsAggregate()
    .SetShapeFn(AddNShape);

REGISTER_OP("Add")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double, uint8, int8, int16, int32, "
          "int64, complex64, complex128, string}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("AddV2")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double, uint8, uint16, uint32, uint64, "
          "int8, int16, int32, int64, complex64, complex128}")
    .SetIsAggregate()
    .SetIsCommutative()
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("Sub")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double, uint8, int8, uint16, int16, "
          "int32, int64, complex64, complex128, uint32, uint64}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("Mul")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double, uint8, int8, uint16, int16, "
          "int32, uint32, uint64, int64, complex64, complex128}")
    .SetIsCommutative()
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("Div")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double, uint8, int8, uint16, int16, "
          "int32, uint32, uint64, int64, complex64, complex128}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("FloorDiv")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double, uint8, int8, uint16, int16, "
          "int32, uint32, uint64, int64, complex64, complex128}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("RealDiv")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double, uint8, int8, uint16, int16, "
          "int32, uint32, uint64, int64, complex64, complex128}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("SquaredDifference")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double, int32, int64, complex64, "
          "complex128}")
    .SetIsCommutative()
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("Maximum")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double, int8, uint8, int16, uint16, "
          "int32, uint32, int64, uint64}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("Minimum")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double, int8, uint8, int16, uint16, "
          "int32, uint32, int64, uint64}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("Pow")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, float, half, double, int8, int16, int32, int64, "
          "complex64, complex128}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("FloorMod")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
          "bfloat16, half, float, double}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("Atan2")
    .Input("y: T")
    .Input("x: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

// --- Element-wise unary ----------------------------------------------------

REGISTER_OP("Abs")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {bfloat16, half, float, double, int8, int16, int32, int64}")
    .SetShapeFn(shape_inference::UnchangedShape);

// Neg and Square take every signed number type, the transcendental ones only
// floating-point and complex types (TensorFlow's UNARY / UNARY_COMPLEX).
#define OPKIT_UNARY_OP(name)                                               \
  REGISTER_OP(name)                                                        \
      .Input("x: T")                                                       \
      .Output("y: T")                                                      \
      .Attr("T: {bfloat16, half, float, double, int8, int16, int32, int64, " \
            "complex64, complex128}")                                      \
      .SetShapeFn(shape_inference::UnchangedShape)
#define OPKIT_UNARY_COMPLEX_OP(name)                                        \
  REGISTER_OP(name)                                                         \
      .Input("x: T")                                                        \
      .Output("y: T")                                                       \
      .Attr("T: {bfloat16, half, float, double, complex64, complex128}")    \
      .SetShapeFn(shape_inference::UnchangedShape)

OPKIT_UNARY_OP("Neg");
OPKIT_UNARY_OP("Square");
OPKIT_UNARY_COMPLEX_OP("Sqrt");
OPKIT_UNARY_COMPLEX_OP("Rsqrt");
OPKIT_UNARY_COMPLEX_OP("Exp");
OPKIT_UNARY_COMPLEX_OP("Log");
OPKIT_UNARY_COMPLEX_OP("Tanh");
OPKIT_UNARY_COMPLEX_OP("Sigmoid");
OPKIT_UNARY_COMPLEX_OP("Sin");
OPKIT_UNARY_COMPLEX_OP("Cos");
OPKIT_UNARY_OP("Round");
OPKIT_UNARY_OP("Reciprocal");

// Floor and Ceil take the real floating-point types only.
REGISTER_OP("Floor")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("Ceil")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(shape_inference::UnchangedShape);

#undef OPKIT_UNARY_OP
#undef OPKIT_UNARY_COMPLEX_OP

// --- Gradients of element-wise unary ops -----------------------------------

// The gradient of y = f(x) written in terms of y (not x) and the incoming
// gradient dy; y and dy have one shape, which is the output's.
#define OPKIT_UNARY_GRAD_OP(name)                                          \
  REGISTER_OP(name)                                                        \
      .Input("y: T")                                                       \
      .Input("dy: T")                                                      \
      .Output("z: T")                                                      \
      .Attr("T: {bfloat16, half, float, double, complex64, complex128}")   \
      .SetShapeFn(shape_inference::MergeBothInputsShapeFn)

OPKIT_UNARY_GRAD_OP("SigmoidGrad");
OPKIT_UNARY_GRAD_OP("TanhGrad");
OPKIT_UNARY_GRAD_OP("SqrtGrad");
OPKIT_UNARY_GRAD_OP("RsqrtGrad");
OPKIT_UNARY_GRAD_OP("ReciprocalGrad");

#undef OPKIT_UNARY_GRAD_OP

// BroadcastGradientArgs: for the shapes s0 and s1 of a broadcasting binary
// op's inputs, the output dimensions each input's gradient is summed over.
REGISTER_OP("BroadcastGradientArgs")
    .Input("s0: T")
    .Input("s1: T")
    .Output("r0: T")
    .Output("r1: T")
    .Attr("T: {int32, int64} = DT_INT32")
    .SetShapeFn(BroadcastGradientArgsShape);

// --- Comparisons and logic -------------------------------------------------

#define OPKIT_COMPARISON_OP(name)      \
  REGISTER_OP(name)                    \
      .Input("x: T")                   \
      .Input("y: T")                   \
      .Output("z: bool")               \
      .Attr("T: realnumbertype")       \
      .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn)

OPKIT_COMPARISON_OP("Less");
OPKIT_COMPARISON_OP("LessEqual");
OPKIT_COMPARISON_OP("Greater");
OPKIT_COMPARISON_OP("GreaterEqual");

#undef OPKIT_COMPARISON_OP

#define OPKIT_EQUALITY_OP(name)                          \
  REGISTER_OP(name)                                      \
      .Input("x: T")                                     \
      .Input("y: T")                                     \
      .Output("z: bool")                                 \
      .SetIsCommutative()                                \
      .Attr("T: type")                                   \
      .Attr("incompatible_shape_error: bool = true")     \
      .SetShapeFn(EqualityComparisonShape)

OPKIT_EQUALITY_OP("Equal");
OPKIT_EQUALITY_OP("NotEqual");

#undef OPKIT_EQUALITY_OP

REGISTER_OP("LogicalNot")
    .Input("x: bool")
    .Output("y: bool")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("LogicalAnd")
    .Input("x: bool")
    .Input("y: bool")
    .Output("z: bool")
    .SetIsCommutative()
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("LogicalOr")
    .Input("x: bool")
    .Input("y: bool")
    .Output("z: bool")
    .SetIsCommutative()
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn);

REGISTER_OP("Select")
    .Input("condition: bool")
    .Input("t: T")
    .Input("e: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(SelectShape);

REGISTER_OP("SelectV2")
    .Input("condition: bool")
    .Input("t: T")
    .Input("e: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(SelectV2Shape);

// --- Casts -------------------------------------------------------------------

REGISTER_OP("Cast")
    .Input("x: SrcT")
    .Output("y: DstT")
    .Attr("SrcT: type")
    .Attr("DstT: type")
    .Attr("Truncate: bool = false")
    .SetShapeFn(shape_inference::UnchangedShape);

// --- Matrix products ---------------------------------------------------------

REGISTER_OP("MatMul")
    .Input("a: T")
    .Input("b: T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("T: {bfloat16, half, float, double, int32, int64, complex64, "
          "complex128}")
    .SetShapeFn(shape_inference::MatMulShape);

REGISTER_OP("BatchMatMulV2")
    .Input("x: T")
    .Input("y: T")
    .Output("output: T")
    .Attr("T: {bfloat16, half, float, double, int16, int32, int64, complex64, "
          "complex128}")
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .SetShapeFn(shape_inference::BatchMatMulV2Shape);

// --- Reductions --------------------------------------------------------------

#define OPKIT_REDUCTION_OP(name, types)                 \
  REGISTER_OP(name)                                     \
      .Input("input: T")                                \
      .Input("reduction_indices: Tidx")                 \
      .Output("output: T")                              \
      .Attr("keep_dims: bool = false")                  \
      .Attr("T: " types)                                \
      .Attr("Tidx: {int32, int64} = DT_INT32")          \
      .SetShapeFn(shape_inference::ReductionShape)

OPKIT_REDUCTION_OP("Sum", "numbertype");
OPKIT_REDUCTION_OP("Mean", "numbertype");
OPKIT_REDUCTION_OP("Prod", "numbertype");
OPKIT_REDUCTION_OP("Min", "{realnumbertype, quantizedtype}");
OPKIT_REDUCTION_OP("Max", "{realnumbertype, quantizedtype}");

#undef OPKIT_REDUCTION_OP

#define OPKIT_ARG_OP(name)                                 \
  REGISTER_OP(name)                                        \
      .Input("input: T")                                   \
      .Input("dimension: Tidx")                            \
      .Output("output: output_type")                       \
      .Attr("T: {numbertype, bool}")                       \
      .Attr("Tidx: {int32, int64} = DT_INT32")             \
      .Attr("output_type: {int32, int64} = DT_INT64")      \
      .SetShapeFn(ArgOpShape)

OPKIT_ARG_OP("ArgMax");
OPKIT_ARG_OP("ArgMin");

#undef OPKIT_ARG_OP

// --- Segment reductions ------------------------------------------------------

#define OPKIT_UNSORTED_SEGMENT_OP(name, types)                 \
  REGISTER_OP(name)                                            \
      .Input("data: T")                                        \
      .Input("segment_ids: Tindices")                          \
      .Input("num_segments: Tnumsegments")                     \
      .Output("output: T")                                     \
      .Attr("T: " types)                                       \
      .Attr("Tindices: {int32,int64}")                         \
      .Attr("Tnumsegments: {int32,int64} = DT_INT32")          \
      .SetShapeFn(UnsortedSegmentReductionShape)

OPKIT_UNSORTED_SEGMENT_OP("UnsortedSegmentSum", "numbertype");
OPKIT_UNSORTED_SEGMENT_OP("UnsortedSegmentProd", "numbertype");
OPKIT_UNSORTED_SEGMENT_OP("UnsortedSegmentMax", "realnumbertype");
OPKIT_UNSORTED_SEGMENT_OP("UnsortedSegmentMin", "realnumbertype");

#undef OPKIT_UNSORTED_SEGMENT_OP

}  // namespace opkit

// Common shape functions: outputs unchanged, unknown or scalar; MatMul,
// BatchMatMul, BiasAdd and numpy broadcasting. The other families are in
// nn_shape_fns.cc (convolution, pooling, batch normalization) and
// array_shape_fns.cc (reduction, concat, reshape, transpose). Behaviour and
// messages follow TensorFlow's common_shape_fns.cc.
#include "opkit/shape/common_shape_fns.h"

#include <cstdint>
#include <string>
#include <vector>

#include "opkit/core/errors.h"

namespace opkit {
namespace shape_inference {
namespace {

// A negative rank is a bug in the op's shape function, reported, not fatal.
Status CheckRankArgument(int32_t rank) {
  if (rank < 0) {
    return errors::InvalidArgument("A shape function asked for rank ", rank,
                                   "; a rank must be >= 0");
  }
  return OkStatus();
}

// BatchMatMul's batch dimensions merge; BatchMatMulV2's broadcast.
Status BatchMatMulShapeImpl(InferenceContext* c, bool broadcast_batch) {
  ShapeHandle a, b;
  OPKIT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &a));
  OPKIT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 2, &b));
  bool adj_x, adj_y;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("adj_x", &adj_x));
  OPKIT_RETURN_IF_ERROR(c->GetAttr("adj_y", &adj_y));
  DimensionHandle rows = c->Dim(a, adj_x ? -1 : -2);
  DimensionHandle cols = c->Dim(b, adj_y ? -2 : -1);
  DimensionHandle inner;
  OPKIT_RETURN_IF_ERROR(
      c->Merge(c->Dim(a, adj_x ? -2 : -1), c->Dim(b, adj_y ? -1 : -2), &inner));
  ShapeHandle a_batch, b_batch, batch;
  OPKIT_RETURN_IF_ERROR(c->Subshape(a, 0, -2, &a_batch));
  OPKIT_RETURN_IF_ERROR(c->Subshape(b, 0, -2, &b_batch));
  if (broadcast_batch) {
    OPKIT_RETURN_IF_ERROR(BroadcastBinaryOpOutputShapeFnHelper(
        c, a_batch, b_batch, /*incompatible_shape_error=*/true, &batch));
  } else {
    OPKIT_RETURN_IF_ERROR(c->Merge(a_batch, b_batch, &batch));
  }
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->Concatenate(batch, c->Matrix(rows, cols), &out));
  c->set_output(0, out);
  return OkStatus();
}

}  // namespace

Status UnchangedShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  // A resource handle passes its handle data along with its shape.
  const std::vector<ShapeAndType>* handle_data =
      c->input_handle_shapes_and_types(0);
  if (handle_data != nullptr) {
    c->set_output_handle_shapes_and_types(0, *handle_data);
  }
  return OkStatus();
}

Status UnknownShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, c->UnknownShape());
  }
  return OkStatus();
}

Status ScalarShape(InferenceContext* c) {
  c->set_output(0, c->Scalar());
  return OkStatus();
}

Status NoOutputs(InferenceContext* c) { return OkStatus(); }

Status MergeBothInputsShapeFn(InferenceContext* c) {
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(1), &out));
  c->set_output(0, out);
  return OkStatus();
}

Status DatasetIteratorShape(InferenceContext* c) {
  ShapeHandle unused;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, &unused));
  std::vector<PartialTensorShape> output_shapes;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("output_shapes", &output_shapes));
  if (static_cast<int64_t>(output_shapes.size()) != c->num_outputs()) {
    return errors::InvalidArgument(
        "`output_shapes` must be the same length as `output_types` (",
        output_shapes.size(), " vs. ", c->num_outputs());
  }
  for (size_t i = 0; i < output_shapes.size(); ++i) {
    ShapeHandle shape;
    OPKIT_RETURN_IF_ERROR(
        c->MakeShapeFromPartialTensorShape(output_shapes[i], &shape));
    c->set_output(static_cast<int>(i), shape);
  }
  return OkStatus();
}

Status MakeShapeFromFormat(TensorFormat format, DimensionOrConstant N,
                           const std::vector<DimensionOrConstant>& spatial,
                           DimensionOrConstant C, ShapeHandle* out,
                           InferenceContext* context) {
  std::vector<DimensionHandle> dims;
  dims.reserve(spatial.size() + 2);
  dims.push_back(context->MakeDim(N));
  if (format == TensorFormat::kNCHW) dims.push_back(context->MakeDim(C));
  for (const DimensionOrConstant& d : spatial) {
    dims.push_back(context->MakeDim(d));
  }
  if (format == TensorFormat::kNHWC) dims.push_back(context->MakeDim(C));
  *out = context->MakeShape(dims);
  return OkStatus();
}

Status RandomShape(InferenceContext* c) {
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status ExplicitShape(InferenceContext* c) {
  PartialTensorShape shape;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shape, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status ExplicitShapes(InferenceContext* c) {
  std::vector<PartialTensorShape> shapes;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("shapes", &shapes));
  if (shapes.empty()) return errors::Internal("shapes attribute is empty");
  for (size_t i = 0; i < shapes.size(); ++i) {
    ShapeHandle out;
    OPKIT_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shapes[i], &out));
    c->set_output(static_cast<int>(i), out);
  }
  return OkStatus();
}

Status ValidateSparseTensor(InferenceContext* c, ShapeHandle indices_shape,
                            ShapeHandle values_shape, ShapeHandle shape_shape) {
  return c->ValidateSparseTensor(indices_shape, values_shape, shape_shape);
}

Status ValidateVariableResourceHandle(
    InferenceContext* c, std::vector<ShapeAndType>* shape_and_type) {
  const std::vector<ShapeAndType>* handle_data =
      c->input_handle_shapes_and_types(0);
  if (handle_data == nullptr || handle_data->empty()) {
    shape_and_type->emplace_back(c->UnknownShape(), DT_INVALID);
    return OkStatus();
  }
  *shape_and_type = *handle_data;
  DataType value_dtype;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("dtype", &value_dtype));
  if (shape_and_type->at(0).dtype != value_dtype) {
    return errors::InvalidArgument(
        "Trying to read variable with wrong dtype. Expected ",
        DataTypeString(shape_and_type->at(0).dtype), " got ",
        DataTypeString(value_dtype));
  }
  return OkStatus();
}

Status UnchangedShapeWithRank(InferenceContext* c, int32_t rank) {
  OPKIT_RETURN_IF_ERROR(CheckRankArgument(rank));
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), rank, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status UnchangedShapeWithRankAtLeast(InferenceContext* c, int32_t rank) {
  OPKIT_RETURN_IF_ERROR(CheckRankArgument(rank));
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), rank, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status UnchangedShapeWithRankAtMost(InferenceContext* c, int32_t rank) {
  OPKIT_RETURN_IF_ERROR(CheckRankArgument(rank));
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->WithRankAtMost(c->input(0), rank, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status MatMulShape(InferenceContext* c) {
  ShapeHandle a, b;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &a));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &b));
  bool transpose_a, transpose_b;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("transpose_a", &transpose_a));
  OPKIT_RETURN_IF_ERROR(c->GetAttr("transpose_b", &transpose_b));
  DimensionHandle rows = c->Dim(a, transpose_a ? 1 : 0);
  DimensionHandle cols = c->Dim(b, transpose_b ? 0 : 1);
  DimensionHandle inner;
  OPKIT_RETURN_IF_ERROR(c->Merge(c->Dim(a, transpose_a ? 0 : 1),
                                 c->Dim(b, transpose_b ? 1 : 0), &inner));
  c->set_output(0, c->Matrix(rows, cols));
  return OkStatus();
}

Status BatchMatMulV2Shape(InferenceContext* c) {
  return BatchMatMulShapeImpl(c, /*broadcast_batch=*/true);
}

Status BatchMatMulShape(InferenceContext* c) {
  return BatchMatMulShapeImpl(c, /*broadcast_batch=*/false);
}

Status BiasAddShape(InferenceContext* c) {
  std::string data_format;
  const bool nchw =
      c->GetAttr("data_format", &data_format).ok() && data_format == "NCHW";
  ShapeHandle input;
  OPKIT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), nchw ? 3 : 2, &input));
  ShapeHandle bias;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &bias));
  DimensionHandle bias_dim = c->Dim(bias, 0);
  if (!c->RankKnown(input)) {
    c->set_output(0, c->UnknownShape());
    return OkStatus();
  }
  const int64_t channel = nchw ? 1 : c->Rank(input) - 1;
  DimensionHandle merged;
  OPKIT_RETURN_IF_ERROR(c->Merge(c->Dim(input, channel), bias_dim, &merged));
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->ReplaceDim(input, channel, merged, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status BiasAddGradShape(InferenceContext* c) {
  std::string data_format;
  const bool nchw =
      c->GetAttr("data_format", &data_format).ok() && data_format == "NCHW";
  ShapeHandle input;
  OPKIT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), nchw ? 3 : 2, &input));
  c->set_output(0, c->Vector(c->Dim(input, nchw ? 1 : -1)));
  return OkStatus();
}

Status BroadcastBinaryOpOutputShapeFnHelper(InferenceContext* c,
                                            ShapeHandle shape_x,
                                            ShapeHandle shape_y,
                                            bool incompatible_shape_error,
                                            ShapeHandle* out) {
  if (!c->RankKnown(shape_x) || !c->RankKnown(shape_y)) {
    *out = c->UnknownShape();
    return OkStatus();
  }
  const int32_t rank_x = c->Rank(shape_x);
  const int32_t rank_y = c->Rank(shape_y);
  const int32_t rank_out = rank_x > rank_y ? rank_x : rank_y;
  // The shorter shape is padded on the left with 1s.
  DimensionHandle one;
  if (rank_x != rank_y) one = c->MakeDim(1);
  std::vector<DimensionHandle> dims;
  dims.reserve(rank_out);
  for (int32_t i = 0; i < rank_out; ++i) {
    const bool x_padded = i < rank_out - rank_x;
    const bool y_padded = i < rank_out - rank_y;
    DimensionHandle dx = x_padded ? one : c->Dim(shape_x, i - (rank_out - rank_x));
    DimensionHandle dy = y_padded ? one : c->Dim(shape_y, i - (rank_out - rank_y));
    const int64_t vx = c->Value(dx);
    const int64_t vy = c->Value(dy);
    if (!c->ValueKnown(dx) || !c->ValueKnown(dy)) {
      // With one side unknown: a known side > 1 wins (the program is assumed
      // correct), a known 1 yields the other side, two unknowns stay unknown
      // unless they are the same handle.
      if (vx > 1 || vy > 1) {
        if (!incompatible_shape_error) {
          *out = c->UnknownShape();
          return OkStatus();
        }
        dims.push_back(vx > 1 ? dx : dy);
      } else if (vx == 1) {
        dims.push_back(dy);
      } else if (vy == 1) {
        dims.push_back(dx);
      } else if (dx.SameHandle(dy)) {
        dims.push_back(dx);
      } else if (!c->ValueKnown(dx) && !c->ValueKnown(dy)) {
        dims.push_back(c->UnknownDim());
      } else {
        // One side is a known 0 against an unknown.
        if (!incompatible_shape_error) {
          *out = c->UnknownShape();
          return OkStatus();
        }
        dims.push_back(c->UnknownDim());
      }
    } else if (vx == 1 || vy == 1) {
      if (vx == 1 && !y_padded) {
        dims.push_back(dy);
      } else {
        dims.push_back(dx);
      }
    } else {
      DimensionHandle merged;
      Status s = c->Merge(dx, dy, &merged);
      if (!s.ok()) {
        if (!incompatible_shape_error) {
          *out = c->Scalar();
          return OkStatus();
        }
        return s;
      }
      dims.push_back(merged);
    }
  }
  *out = c->MakeShape(dims);
  return OkStatus();
}

Status BroadcastBinaryOpOutputShapeFn(InferenceContext* c, int output_index) {
  if (c->num_inputs() < 2) {
    return errors::InvalidArgument(
        "A broadcasting binary op needs 2 inputs, but has ", c->num_inputs());
  }
  if (output_index < 0 || output_index >= c->num_outputs()) {
    return errors::InvalidArgument("Output index ", output_index,
                                   " is out of range for an op with ",
                                   c->num_outputs(), " outputs");
  }
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(BroadcastBinaryOpOutputShapeFnHelper(
      c, c->input(0), c->input(1), /*incompatible_shape_error=*/true, &out));
  c->set_output(output_index, out);
  return OkStatus();
}

Status BroadcastBinaryOpShapeFn(InferenceContext* c) {
  return BroadcastBinaryOpOutputShapeFn(c, 0);
}

}  // namespace shape_inference
}  // namespace opkit

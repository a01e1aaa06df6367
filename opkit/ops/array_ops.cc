// Built-in array ops that make or pass on a tensor: Const, Placeholder*,
// Identity*, StopGradient, Shape/Size/Rank, Fill, ZerosLike/OnesLike, Range,
// OneHot, GatherNd, BroadcastTo and Where. OpDefs are TensorFlow's for the same names
// (ops_conformance_test checks them against TensorFlow's ops.pbtxt); the
// shape functions follow TensorFlow's behaviour and error texts but never
// abort on what a graph supplies.
#include <cmath>
#include <cstdint>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/op/op.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/shape/shape_inference.h"
#include "opkit/tensor.pb.h"

namespace opkit {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ReadIntTensor;
using shape_inference::ShapeHandle;

Status ConstShape(InferenceContext* c) {
  const AttrValue* value = nullptr;
  OPKIT_RETURN_IF_ERROR(c->attrs().Find("value", &value));
  if (value->value_case() != AttrValue::kTensor) {
    return errors::InvalidArgument("Attr 'value' of Const must be a tensor");
  }
  const TensorProto& proto = value->tensor();
  DataType dtype;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype));
  if (proto.dtype() != dtype) {
    return errors::InvalidArgument("Type mismatch between value (",
                                   DataTypeString(proto.dtype()), ") and dtype (",
                                   DataTypeString(dtype), ")");
  }
  OPKIT_RETURN_IF_ERROR(TensorShape::IsValidShape(proto.tensor_shape()));
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->MakeShapeFromShapeProto(proto.tensor_shape(), &out));
  c->set_output(0, out);
  return Status::OK();
}

Status PlaceholderWithDefaultShape(InferenceContext* c) {
  PartialTensorShape shape;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shape, &out));
  // The declared shape may be less precise than the default's: check they
  // agree, but promise only the declared one (a feed may differ).
  ShapeHandle unused;
  OPKIT_RETURN_IF_ERROR(c->Merge(c->input(0), out, &unused));
  c->set_output(0, out);
  return Status::OK();
}

Status IdentityNShape(InferenceContext* c) {
  std::vector<ShapeHandle> inputs;
  OPKIT_RETURN_IF_ERROR(c->input("input", &inputs));
  return c->set_output("output", inputs);
}

Status ShapeShape(InferenceContext* c) {
  c->set_output(0, c->Vector(c->RankKnown(c->input(0)) ? c->Rank(c->input(0))
                                                        : InferenceContext::kUnknownDim));
  return Status::OK();
}

Status FillShape(InferenceContext* c) {
  ShapeHandle unused;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &unused));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  if (const Tensor* t = c->input_tensor(0)) {
    std::vector<int64_t> dims;
    OPKIT_RETURN_IF_ERROR(ReadIntTensor(*t, "dims", &dims));
    for (int64_t d : dims) {
      if (d < 0) return errors::InvalidArgument("Fill dimensions must be >= 0");
    }
  }
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
  c->set_output(0, out);
  return Status::OK();
}

// The number of elements Range produces, for one element type.
template <typename T>
Status RangeSize(const Tensor& start_t, const Tensor& limit_t, const Tensor& delta_t,
                 int64_t* size) {
  const double start = static_cast<double>(start_t.unaligned_flat<T>()(0));
  const double limit = static_cast<double>(limit_t.unaligned_flat<T>()(0));
  const double delta = static_cast<double>(delta_t.unaligned_flat<T>()(0));
  if (delta == 0) return errors::InvalidArgument("Requires delta != 0");
  if (delta > 0 && start > limit) {
    return errors::InvalidArgument("Requires start <= limit when delta > 0: ", start,
                                   "/", limit);
  }
  if (delta < 0 && start < limit) {
    return errors::InvalidArgument("Requires start >= limit when delta < 0: ", start,
                                   "/", limit);
  }
  const double n = std::ceil(std::abs((limit - start) / delta));
  if (!(n <= 9.2e18)) {
    return errors::InvalidArgument("Requires ((limit - start) / delta) <= ",
                                   INT64_MAX);
  }
  *size = static_cast<int64_t>(n);
  return Status::OK();
}

Status RangeShape(InferenceContext* c) {
  ShapeHandle unused;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, &unused));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  const Tensor* start = c->input_tensor(0);
  const Tensor* limit = c->input_tensor(1);
  const Tensor* delta = c->input_tensor(2);
  if (start == nullptr || limit == nullptr || delta == nullptr ||
      start->dims() != 0 || limit->dims() != 0 || delta->dims() != 0 ||
      start->dtype() != limit->dtype() || start->dtype() != delta->dtype()) {
    c->set_output(0, c->Vector(InferenceContext::kUnknownDim));
    return Status::OK();
  }
  // Integer ranges are counted exactly; floating ones as the kernel does.
  int64_t size = 0;
  switch (start->dtype()) {
    case DT_INT32: case DT_INT64: case DT_INT16: case DT_INT8: case DT_UINT32: {
      std::vector<int64_t> s, l, d;
      if (start->dtype() == DT_INT32 || start->dtype() == DT_INT64) {
        OPKIT_RETURN_IF_ERROR(ReadIntTensor(*start, "start", &s));
        OPKIT_RETURN_IF_ERROR(ReadIntTensor(*limit, "limit", &l));
        OPKIT_RETURN_IF_ERROR(ReadIntTensor(*delta, "delta", &d));
      } else {
        c->set_output(0, c->Vector(InferenceContext::kUnknownDim));
        return Status::OK();
      }
      const int64_t a = s[0], b = l[0], step = d[0];
      if (step == 0) return errors::InvalidArgument("Requires delta != 0");
      if (step > 0 && a > b) {
        return errors::InvalidArgument("Requires start <= limit when delta > 0: ", a,
                                       "/", b);
      }
      if (step < 0 && a < b) {
        return errors::InvalidArgument("Requires start >= limit when delta < 0: ", a,
                                       "/", b);
      }
      const uint64_t span = step > 0 ? static_cast<uint64_t>(b) - static_cast<uint64_t>(a)
                                     : static_cast<uint64_t>(a) - static_cast<uint64_t>(b);
      const uint64_t mag = step > 0 ? static_cast<uint64_t>(step)
                                    : uint64_t{0} - static_cast<uint64_t>(step);
      size = static_cast<int64_t>(span / mag + (span % mag != 0 ? 1 : 0));
      break;
    }
    case DT_FLOAT:
      OPKIT_RETURN_IF_ERROR(RangeSize<float>(*start, *limit, *delta, &size));
      break;
    case DT_DOUBLE:
      OPKIT_RETURN_IF_ERROR(RangeSize<double>(*start, *limit, *delta, &size));
      break;
    default:
      c->set_output(0, c->Vector(InferenceContext::kUnknownDim));
      return Status::OK();
  }
  c->set_output(0, c->Vector(size));
  return Status::OK();
}

Status OneHotShape(InferenceContext* c) {
  int64_t axis;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  if (axis < -1) return errors::InvalidArgument("axis must be >= -1");
  DimensionHandle depth;
  ShapeHandle unused;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(3), 0, &unused));
  OPKIT_RETURN_IF_ERROR(c->MakeDimForScalarInput(1, &depth));
  ShapeHandle indices = c->input(0);
  if (!c->RankKnown(indices)) {
    c->set_output(0, c->UnknownShape());
    return Status::OK();
  }
  const int64_t rank = c->Rank(indices);
  if (axis > rank) {
    return errors::InvalidArgument("Expected axis to be -1 or between [0, ", rank,
                                   "].  But received: ", axis);
  }
  const int64_t at = axis == -1 ? rank : axis;
  ShapeHandle head, tail, out;
  OPKIT_RETURN_IF_ERROR(c->Subshape(indices, 0, at, &head));
  OPKIT_RETURN_IF_ERROR(c->Subshape(indices, at, &tail));
  OPKIT_RETURN_IF_ERROR(c->Concatenate(head, c->Vector(depth), &out));
  OPKIT_RETURN_IF_ERROR(c->Concatenate(out, tail, &out));
  c->set_output(0, out);
  return Status::OK();
}

// BroadcastTo: the shape is the `shape` input's value. Known input
// dimensions larger than 1 must equal the output dimension they align with
// (from the right); the input may not have more dimensions than the output.
Status BroadcastToShape(InferenceContext* c) {
  ShapeHandle shape_in;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &shape_in));
  ShapeHandle out;
  OPKIT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &out));
  ShapeHandle in = c->input(0);
  if (!c->RankKnown(out) || !c->RankKnown(in)) {
    c->set_output(0, out);
    return OkStatus();
  }
  const int32_t out_rank = c->Rank(out);
  OPKIT_RETURN_IF_ERROR(c->WithRankAtMost(in, out_rank, &in));
  const int32_t in_rank = c->Rank(in);
  for (int32_t i = 1; i <= in_rank; ++i) {
    DimensionHandle in_dim = c->Dim(in, in_rank - i);
    if (c->Value(in_dim) > 1) {
      DimensionHandle out_dim = c->Dim(out, out_rank - i);
      OPKIT_RETURN_IF_ERROR(c->Merge(in_dim, out_dim, &out_dim));
      OPKIT_RETURN_IF_ERROR(c->ReplaceDim(out, out_rank - i, out_dim, &out));
    }
  }
  c->set_output(0, out);
  return OkStatus();
}

// Where: one row of coordinates per true element, as many columns as the
// input has dimensions (unknown when the rank is).
Status WhereShape(InferenceContext* c) {
  const ShapeHandle in = c->input(0);
  const DimensionHandle cols =
      c->RankKnown(in) ? c->MakeDim(c->Rank(in)) : c->UnknownDim();
  c->set_output(0, c->Matrix(c->UnknownDim(), cols));
  return OkStatus();
}

}  // namespace

REGISTER_OP("Const")
    .Output("output: dtype")
    .Attr("value: tensor")
    .Attr("dtype: type")
    .SetShapeFn(ConstShape);

REGISTER_OP("Placeholder")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape = { unknown_rank: true }")
    .SetShapeFn(shape_inference::ExplicitShape);

REGISTER_OP("PlaceholderWithDefault")
    .Input("input: dtype")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape")
    .SetShapeFn(PlaceholderWithDefaultShape);

REGISTER_OP("Identity")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("IdentityN")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 1")
    .SetShapeFn(IdentityNShape);

REGISTER_OP("StopGradient")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("Shape")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetShapeFn(ShapeShape);

REGISTER_OP("Size")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_inference::ScalarShape);

REGISTER_OP("Rank")
    .Input("input: T")
    .Output("output: int32")
    .Attr("T: type")
    .SetShapeFn(shape_inference::ScalarShape);

REGISTER_OP("Fill")
    .Input("dims: index_type")
    .Input("value: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index_type: {int32, int64} = DT_INT32")
    .SetShapeFn(FillShape);

REGISTER_OP("ZerosLike")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("OnesLike")
    .Input("x: T")
    .Output("y: T")
    .Attr(
        "T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, "
        "int64, complex64, complex128, bool}")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("GatherNd")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Output("output: Tparams")
    .Attr("Tparams: type")
    .Attr("Tindices: {int32,int64}")
    .SetShapeFn(shape_inference::GatherNdShape);

REGISTER_OP("BroadcastTo")
    .Input("input: T")
    .Input("shape: Tidx")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(BroadcastToShape);

REGISTER_OP("Where")
    .Input("input: T")
    .Attr("T: {numbertype, bool} = DT_BOOL")
    .Output("index: int64")
    .SetShapeFn(WhereShape);

REGISTER_OP("Range")
    .Input("start: Tidx")
    .Input("limit: Tidx")
    .Input("delta: Tidx")
    .Output("output: Tidx")
    .Attr(
        "Tidx: {bfloat16, half, float, double, int8, int16, int32, int64, uint32} = "
        "DT_INT32")
    .SetShapeFn(RangeShape);

REGISTER_OP("OneHot")
    .Input("indices: TI")
    .Input("depth: int32")
    .Input("on_value: T")
    .Input("off_value: T")
    .Attr("axis: int = -1")
    .Output("output: T")
    .Attr("T: type")
    .Attr("TI: {uint8, int32, int64} = DT_INT64")
    .SetShapeFn(OneHotShape);

}  // namespace opkit

// Built-in array ops that rearrange a tensor's dimensions: Reshape,
// Transpose, ExpandDims, Squeeze, Tile and Pad. OpDefs are TensorFlow's;
// shape functions follow TensorFlow's behaviour and messages without
// aborting on what a graph supplies.
#include <cstdint>
#include <set>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/op/op.h"
#include "opkit/shape/common_shape_fns.h"
#include "opkit/shape/shape_inference.h"

namespace opkit {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ReadIntTensor;
using shape_inference::ShapeHandle;

Status ExpandDimsShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  const Tensor* dim_t = c->input_tensor(1);
  if (dim_t != nullptr && dim_t->NumElements() != 1) {
    return errors::InvalidArgument("'dim' input must be a tensor with a single value");
  }
  if (dim_t == nullptr || !c->RankKnown(input)) {
    c->set_output(0, c->UnknownShape());
    return Status::OK();
  }
  std::vector<int64_t> v;
  OPKIT_RETURN_IF_ERROR(ReadIntTensor(*dim_t, "dim", &v));
  int64_t dim = v[0];
  const int64_t rank = c->Rank(input);
  if (dim < -1 - rank || dim > rank) {
    return errors::InvalidArgument("dim ", dim, " not in the interval [", -1 - rank,
                                   ", ", rank, "].");
  }
  if (dim < 0) dim += rank + 1;
  ShapeHandle head, tail, out;
  OPKIT_RETURN_IF_ERROR(c->Subshape(input, 0, dim, &head));
  OPKIT_RETURN_IF_ERROR(c->Subshape(input, dim, &tail));
  OPKIT_RETURN_IF_ERROR(c->Concatenate(head, c->Vector(1), &out));
  OPKIT_RETURN_IF_ERROR(c->Concatenate(out, tail, &out));
  c->set_output(0, out);
  return Status::OK();
}

Status SqueezeShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  if (!c->RankKnown(input)) {
    c->set_output(0, c->UnknownShape());
    return Status::OK();
  }
  const int64_t rank = c->Rank(input);
  std::vector<int64_t> squeeze_dims;
  OPKIT_RETURN_IF_ERROR(c->GetAttr("squeeze_dims", &squeeze_dims));
  std::set<int64_t> wanted;
  for (int64_t d : squeeze_dims) {
    if (d < -rank || d >= rank) {
      return errors::InvalidArgument("Tried to squeeze dim index ", d,
                                     " for tensor with ", rank, " dimensions.");
    }
    wanted.insert(d < 0 ? d + rank : d);
  }
  std::vector<DimensionHandle> result;
  for (int64_t i = 0; i < rank; ++i) {
    DimensionHandle dim = c->Dim(input, i);
    const bool explicit_match = wanted.count(i) > 0;
    if (!c->ValueKnown(dim)) {
      // Assume a dimension named explicitly is 1 at run time; with no
      // explicit list an unknown dimension might be 1, so nothing is known.
      if (explicit_match) continue;
      if (wanted.empty()) {
        c->set_output(0, c->UnknownShape());
        return Status::OK();
      }
    } else if (c->Value(dim) == 1) {
      if (wanted.empty() || explicit_match) continue;
    } else if (explicit_match) {
      return errors::InvalidArgument("Can not squeeze dim[", i,
                                     "], expected a dimension of 1, got ",
                                     c->Value(dim));
    }
    result.push_back(dim);
  }
  c->set_output(0, c->MakeShape(result));
  return Status::OK();
}

Status TileShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  ShapeHandle multiples;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &multiples));
  if (c->RankKnown(input)) {
    DimensionHandle unused;
    OPKIT_RETURN_IF_ERROR(c->WithValue(c->Dim(multiples, 0), c->Rank(input), &unused));
  }
  const Tensor* multiples_t = c->input_tensor(1);
  int64_t rank = c->Rank(input);
  if (rank == InferenceContext::kUnknownRank) rank = c->Value(c->Dim(multiples, 0));
  if (rank == InferenceContext::kUnknownDim) {
    c->set_output(0, c->UnknownShape());
    return Status::OK();
  }
  OPKIT_RETURN_IF_ERROR(c->WithRank(input, rank, &input));
  if (multiples_t == nullptr) {
    c->set_output(0, c->UnknownShapeOfRank(rank));
    return Status::OK();
  }
  std::vector<int64_t> m;
  OPKIT_RETURN_IF_ERROR(ReadIntTensor(*multiples_t, "multiples", &m));
  std::vector<DimensionHandle> dims;
  for (int64_t i = 0; i < rank && i < static_cast<int64_t>(m.size()); ++i) {
    if (m[i] < 0) {
      return errors::InvalidArgument("Expected multiples[", i, "] >= 0, but got ", m[i]);
    }
    DimensionHandle d;
    OPKIT_RETURN_IF_ERROR(c->Multiply(c->Dim(input, i), m[i], &d));
    dims.push_back(d);
  }
  c->set_output(0, c->MakeShape(dims));
  return Status::OK();
}

Status PadShape(InferenceContext* c) {
  ShapeHandle paddings;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &paddings));
  DimensionHandle unused;
  OPKIT_RETURN_IF_ERROR(c->WithValue(c->Dim(paddings, 1), 2, &unused));
  ShapeHandle input = c->input(0);
  DimensionHandle n = c->Dim(paddings, 0);
  if (c->ValueKnown(n)) {
    OPKIT_RETURN_IF_ERROR(c->WithRank(input, c->Value(n), &input));
  } else if (c->RankKnown(input)) {
    OPKIT_RETURN_IF_ERROR(c->WithValue(n, c->Rank(input), &n));
  }
  const Tensor* paddings_t = c->input_tensor(1);
  if (!c->RankKnown(input)) {
    c->set_output(0, c->UnknownShape());
    return Status::OK();
  }
  const int64_t rank = c->Rank(input);
  if (paddings_t == nullptr) {
    c->set_output(0, c->UnknownShapeOfRank(rank));
    return Status::OK();
  }
  std::vector<int64_t> p;
  OPKIT_RETURN_IF_ERROR(ReadIntTensor(*paddings_t, "paddings", &p));
  if (static_cast<int64_t>(p.size()) != 2 * rank) {
    return errors::InvalidArgument("paddings must be a [", rank, ", 2] matrix, got ",
                                   paddings_t->shape().DebugString());
  }
  std::vector<DimensionHandle> dims;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t before = p[2 * i], after = p[2 * i + 1];
    if (before < 0 || after < 0) {
      return errors::InvalidArgument("Paddings must be non-negative: ", before, " ",
                                     after);
    }
    DimensionHandle d;
    OPKIT_RETURN_IF_ERROR(c->Add(c->Dim(input, i), before, &d));
    OPKIT_RETURN_IF_ERROR(c->Add(d, after, &d));
    dims.push_back(d);
  }
  c->set_output(0, c->MakeShape(dims));
  return Status::OK();
}

}  // namespace

REGISTER_OP("Reshape")
    .Input("tensor: T")
    .Input("shape: Tshape")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_inference::ReshapeShape);

REGISTER_OP("Transpose")
    .Input("x: T")
    .Input("perm: Tperm")
    .Output("y: T")
    .Attr("T: type")
    .Attr("Tperm: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_inference::TransposeShape);

REGISTER_OP("ExpandDims")
    .Input("input: T")
    .Input("dim: Tdim")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tdim: {int32, int64} = DT_INT32")
    .SetShapeFn(ExpandDimsShape);

REGISTER_OP("Squeeze")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("squeeze_dims: list(int) >= 0 = []")
    .SetShapeFn(SqueezeShape);

REGISTER_OP("Tile")
    .Input("input: T")
    .Input("multiples: Tmultiples")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tmultiples: {int32, int64} = DT_INT32")
    .SetShapeFn(TileShape);

REGISTER_OP("Pad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .SetShapeFn(PadShape);

}  // namespace opkit

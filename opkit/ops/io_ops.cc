// Checkpoint ops: SaveV2, RestoreV2 and MergeV2Checkpoints, with
// TensorFlow's OpDefs (ops_conformance_test checks them) and shape
// functions. Their CPU kernels are in kernels/save_restore_ops.cc.
#include "opkit/core/errors.h"
#include "opkit/op/op.h"
#include "opkit/shape/shape_inference.h"

namespace opkit {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// prefix is a scalar; tensor_names and shape_and_slices are vectors with
// one element per tensor saved.
Status SaveV2Shape(InferenceContext* c) {
  ShapeHandle unused;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, &unused));
  for (int i = 1; i <= 2; ++i) {
    ShapeHandle s;
    DimensionHandle unused_dim;
    OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, &s));
    OPKIT_RETURN_IF_ERROR(c->WithValue(c->Dim(s, 0), c->num_inputs() - 3, &unused_dim));
  }
  return OkStatus();
}

// The shapes come from the file: unknown here. A known shape_and_slices
// must have one element per output.
Status RestoreV2Shape(InferenceContext* c) {
  ShapeHandle shape0, shape1, shape2;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, &shape0));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &shape1));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &shape2));
  OPKIT_RETURN_IF_ERROR(c->Merge(shape1, shape2, &shape0));
  DimensionHandle unused_dim;
  OPKIT_RETURN_IF_ERROR(c->WithValue(c->Dim(shape0, 0), c->num_outputs(), &unused_dim));
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, c->UnknownShape());
  return OkStatus();
}

Status MergeV2CheckpointsShape(InferenceContext* c) {
  ShapeHandle unused;
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &unused));
  OPKIT_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  return OkStatus();
}

}  // namespace

REGISTER_OP("SaveV2")
    .Input("prefix: string")
    .Input("tensor_names: string")
    .Input("shape_and_slices: string")
    .Input("tensors: dtypes")
    .Attr("dtypes: list(type)")
    .SetIsStateful()
    .SetShapeFn(SaveV2Shape);

REGISTER_OP("RestoreV2")
    .Input("prefix: string")
    .Input("tensor_names: string")
    .Input("shape_and_slices: string")
    .Output("tensors: dtypes")
    .Attr("dtypes: list(type)")
    .SetIsStateful()
    .SetShapeFn(RestoreV2Shape);

REGISTER_OP("MergeV2Checkpoints")
    .Input("checkpoint_prefixes: string")
    .Input("destination_prefix: string")
    .Attr("delete_old_dirs: bool = true")
    .SetIsStateful()
    .SetShapeFn(MergeV2CheckpointsShape);

}  // namespace opkit

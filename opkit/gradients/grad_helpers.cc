// Broadcast undoing and kept-dims reshaping for gradient functions.
#include "opkit/gradients/grad_helpers.h"

namespace opkit {
namespace grad {

bool IsFloating(DataType dtype) {
  return dtype == DT_FLOAT || dtype == DT_DOUBLE || dtype == DT_HALF || dtype == DT_BFLOAT16;
}

namespace {

// Sums `g` over `axes` and gives it `shape`.
Output SumTo(GraphBuilder& b, const Output& g, const Output& axes, const Output& shape) {
  return b.Add("Reshape", {b.Add("Sum", {g, axes}, {{"keep_dims", Attr(false)}}), shape});
}

}  // namespace

std::vector<Output> ReduceForBroadcast(GraphBuilder& b, const Output& x, const Output& y,
                                       const Output& gx, const Output& gy) {
  const Output sx = b.Add("Shape", {x});
  const Output sy = b.Add("Shape", {y});
  const std::vector<Output> r = b.AddN("BroadcastGradientArgs", {sx, sy});
  if (r.size() != 2) return {Output(), Output()};
  return {SumTo(b, gx, r[0], sx), SumTo(b, gy, r[1], sy)};
}

std::vector<Output> ReduceBatchDims(GraphBuilder& b, const Output& x, const Output& y,
                                    const Output& gx, const Output& gy) {
  const Output sx = b.Add("Shape", {x});
  const Output sy = b.Add("Shape", {y});
  auto batch = [&](const Output& shape) {
    return b.Add("StridedSlice",
                 {shape, b.ConstInt({0}), b.ConstInt({-2}), b.ConstInt({1})});
  };
  const std::vector<Output> r = b.AddN("BroadcastGradientArgs", {batch(sx), batch(sy)});
  if (r.size() != 2) return {Output(), Output()};
  return {SumTo(b, gx, r[0], sx), SumTo(b, gy, r[1], sy)};
}

Output ReshapeToKeptDims(GraphBuilder& b, const GradientOp& op, const Output& dy) {
  bool keep_dims = false;
  if (op.GetAttr("keep_dims", &keep_dims).ok() && keep_dims) return dy;
  const Output& x = op.inputs[0];
  const Output shape = b.Add("Shape", {x});
  const Output rank = b.Add("Rank", {x});
  // Axes as an int32 vector in [0, rank): negative axes count from the end.
  Output axes = b.Add("Reshape", {op.inputs[1], b.ConstInt({-1})});
  if (op.inputs[1].dtype != DT_INT32) axes = b.Add("Cast", {axes}, {{"DstT", Attr(DT_INT32)}});
  axes = b.Add("FloorMod", {axes, rank});
  // reduced[i]: axis i is among the axes.
  const Output hits = b.Add("OneHot", {axes, rank, b.ScalarInt(1), b.ScalarInt(0)});
  const Output reduced =
      b.Add("Greater", {b.Add("Sum", {hits, b.ConstInt({0})}), b.ScalarInt(0)});
  const Output kept = b.Add("SelectV2", {reduced, b.Add("OnesLike", {shape}), shape});
  return b.Add("Reshape", {dy, kept});
}

}  // namespace grad
}  // namespace opkit

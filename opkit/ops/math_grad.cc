// Gradients of the math ops (element-wise arithmetic with broadcasting,
// unary functions, casts, reductions, matrix products), registered with
// REGISTER_GRADIENT_OP. Each follows TensorFlow's gradient of the same op.
#include <vector>

#include "opkit/gradients/grad_helpers.h"
#include "opkit/gradients/gradient_registry.h"
#include "opkit/gradients/graph_builder.h"

namespace opkit {
namespace {

using grad::ReduceForBroadcast;

Status AddGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
               std::vector<Output>* dx) {
  *dx = ReduceForBroadcast(b, op.inputs[0], op.inputs[1], dy[0], dy[0]);
  return b.status();
}
REGISTER_GRADIENT_OP("Add", AddGrad);
REGISTER_GRADIENT_OP("AddV2", AddGrad);

Status SubGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
               std::vector<Output>* dx) {
  *dx = ReduceForBroadcast(b, op.inputs[0], op.inputs[1], dy[0], b.Add("Neg", {dy[0]}));
  return b.status();
}
REGISTER_GRADIENT_OP("Sub", SubGrad);

Status MulGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
               std::vector<Output>* dx) {
  const Output& x = op.inputs[0];
  const Output& y = op.inputs[1];
  *dx = ReduceForBroadcast(b, x, y, b.Add("Mul", {dy[0], y}), b.Add("Mul", {x, dy[0]}));
  return b.status();
}
REGISTER_GRADIENT_OP("Mul", MulGrad);

// z = x / y: dx = dz / y, dy = -dz * x / y^2.
Status RealDivGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                   std::vector<Output>* dx) {
  const Output& x = op.inputs[0];
  const Output& y = op.inputs[1];
  const Output gx = b.Add("RealDiv", {dy[0], y});
  const Output gy =
      b.Add("Mul", {dy[0], b.Add("RealDiv", {b.Add("RealDiv", {b.Add("Neg", {x}), y}), y})});
  *dx = ReduceForBroadcast(b, x, y, gx, gy);
  return b.status();
}
REGISTER_GRADIENT_OP("RealDiv", RealDivGrad);
REGISTER_GRADIENT_OP("Div", RealDivGrad);

// z = (x - y)^2: dx = 2 (x - y) dz, dy = -dx.
Status SquaredDifferenceGrad(GraphBuilder& b, const GradientOp& op,
                             const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output& x = op.inputs[0];
  const Output& y = op.inputs[1];
  const Output two = b.Scalar(x.dtype, 2.0);
  const Output g = b.Add("Mul", {b.Add("Mul", {two, dy[0]}), b.Add("Sub", {x, y})});
  *dx = ReduceForBroadcast(b, x, y, g, b.Add("Neg", {g}));
  return b.status();
}
REGISTER_GRADIENT_OP("SquaredDifference", SquaredDifferenceGrad);

// Maximum / Minimum: the gradient goes to the input that was chosen (x on
// ties, as TensorFlow).
template <bool kMax>
Status MaxMinGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                  std::vector<Output>* dx) {
  const Output& x = op.inputs[0];
  const Output& y = op.inputs[1];
  const Output x_wins = b.Add(kMax ? "GreaterEqual" : "LessEqual", {x, y});
  const Output zeros = b.Add("ZerosLike", {dy[0]});
  *dx = ReduceForBroadcast(b, x, y, b.Add("SelectV2", {x_wins, dy[0], zeros}),
                           b.Add("SelectV2", {x_wins, zeros, dy[0]}));
  return b.status();
}
REGISTER_GRADIENT_OP("Maximum", MaxMinGrad<true>);
REGISTER_GRADIENT_OP("Minimum", MaxMinGrad<false>);

// z = x^y: dx = dz * y * x^(y-1); dy = dz * z * log(x) where x > 0, else 0
// (TensorFlow's _PowGrad for real types).
Status PowGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
               std::vector<Output>* dx) {
  const Output& x = op.inputs[0];
  const Output& y = op.inputs[1];
  const Output& z = op.outputs[0];
  const Output one = b.Scalar(y.dtype, 1.0);
  const Output gx = b.Add("Mul", {b.Add("Mul", {dy[0], y}),
                                  b.Add("Pow", {x, b.Add("Sub", {y, one})})});
  const Output positive = b.Add("Greater", {x, b.Scalar(x.dtype, 0.0)});
  const Output safe_x = b.Add("SelectV2", {positive, x, b.Add("OnesLike", {x})});
  const Output log_x =
      b.Add("SelectV2", {positive, b.Add("Log", {safe_x}), b.Add("ZerosLike", {x})});
  const Output gy = b.Add("Mul", {b.Add("Mul", {dy[0], z}), log_x});
  *dx = ReduceForBroadcast(b, x, y, gx, gy);
  return b.status();
}
REGISTER_GRADIENT_OP("Pow", PowGrad);

// z = x_1 + ... + x_n: every input gets dz (TensorFlow's _AddNGrad). What
// gradients sum paths with, so it must be differentiable for second
// derivatives.
Status AddNGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                std::vector<Output>* dx) {
  dx->assign(op.inputs.size(), dy[0]);
  return b.status();
}
REGISTER_GRADIENT_OP("AddN", AddNGrad);

Status NegGrad(GraphBuilder& b, const GradientOp&, const std::vector<Output>& dy,
               std::vector<Output>* dx) {
  *dx = {b.Add("Neg", {dy[0]})};
  return b.status();
}
REGISTER_GRADIENT_OP("Neg", NegGrad);

Status SquareGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                  std::vector<Output>* dx) {
  const Output two_x = b.Add("Mul", {b.Scalar(op.inputs[0].dtype, 2.0), op.inputs[0]});
  *dx = {b.Add("Mul", {dy[0], two_x})};
  return b.status();
}
REGISTER_GRADIENT_OP("Square", SquareGrad);

Status ExpGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
               std::vector<Output>* dx) {
  *dx = {b.Add("Mul", {dy[0], op.outputs[0]})};
  return b.status();
}
REGISTER_GRADIENT_OP("Exp", ExpGrad);

Status LogGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
               std::vector<Output>* dx) {
  *dx = {b.Add("RealDiv", {dy[0], op.inputs[0]})};
  return b.status();
}
REGISTER_GRADIENT_OP("Log", LogGrad);

// Sign(x) as x's dtype: 1 where x > 0, -1 where x < 0, 0 elsewhere (opkit
// registers no Sign op).
Output Sign(GraphBuilder& b, const Output& x) {
  const Output zero = b.Scalar(x.dtype, 0.0);
  const AttrValue dtype = Attr(x.dtype);
  return b.Add("Sub", {b.Add("Cast", {b.Add("Greater", {x, zero})}, {{"DstT", dtype}}),
                       b.Add("Cast", {b.Add("Less", {x, zero})}, {{"DstT", dtype}})});
}

// y = |x|: dx = dy * sign(x).
Status AbsGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
               std::vector<Output>* dx) {
  *dx = {b.Add("Mul", {dy[0], Sign(b, op.inputs[0])})};
  return b.status();
}
REGISTER_GRADIENT_OP("Abs", AbsGrad);

Status SinGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
               std::vector<Output>* dx) {
  *dx = {b.Add("Mul", {dy[0], b.Add("Cos", {op.inputs[0]})})};
  return b.status();
}
REGISTER_GRADIENT_OP("Sin", SinGrad);

Status CosGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
               std::vector<Output>* dx) {
  *dx = {b.Add("Mul", {b.Add("Neg", {dy[0]}), b.Add("Sin", {op.inputs[0]})})};
  return b.status();
}
REGISTER_GRADIENT_OP("Cos", CosGrad);

// z = atan2(y, x): dy = dz * x / (x^2 + y^2), dx = -dz * y / (x^2 + y^2),
// each summed back over its broadcast axes.
Status Atan2Grad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                 std::vector<Output>* dx) {
  const Output& y = op.inputs[0];
  const Output& x = op.inputs[1];
  const Output grad_inv = b.Add(
      "RealDiv", {dy[0], b.Add("AddV2", {b.Add("Square", {x}), b.Add("Square", {y})})});
  *dx = ReduceForBroadcast(b, y, x, b.Add("Mul", {x, grad_inv}),
                           b.Add("Mul", {b.Add("Neg", {y}), grad_inv}));
  return b.status();
}
REGISTER_GRADIENT_OP("Atan2", Atan2Grad);

// The y-and-dy gradient ops: dx = <Op>Grad(y, dy).
constexpr char kTanhGrad[] = "TanhGrad";
constexpr char kSigmoidGrad[] = "SigmoidGrad";
constexpr char kSqrtGrad[] = "SqrtGrad";
constexpr char kRsqrtGrad[] = "RsqrtGrad";
constexpr char kReciprocalGrad[] = "ReciprocalGrad";
REGISTER_GRADIENT_OP("Tanh", (grad::GradFromOutput<kTanhGrad, true>));
REGISTER_GRADIENT_OP("Sigmoid", (grad::GradFromOutput<kSigmoidGrad, true>));
REGISTER_GRADIENT_OP("Sqrt", (grad::GradFromOutput<kSqrtGrad, true>));
REGISTER_GRADIENT_OP("Rsqrt", (grad::GradFromOutput<kRsqrtGrad, true>));
REGISTER_GRADIENT_OP("Reciprocal", (grad::GradFromOutput<kReciprocalGrad, true>));

// The gradients of SigmoidGrad(y, dy) = dy * y * (1 - y) and
// TanhGrad(y, dy) = dy * (1 - y^2) with respect to y and dy (TensorFlow's
// _SigmoidGradGrad and _TanhGradGrad): what second derivatives through
// Sigmoid and Tanh need.
Status SigmoidGradGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                       std::vector<Output>* dx) {
  const Output& y = op.inputs[0];
  const Output gb = b.Add("Mul", {dy[0], op.inputs[1]});
  const Output two = b.Scalar(y.dtype, 2.0);
  *dx = {b.Add("Sub", {gb, b.Add("Mul", {b.Add("Mul", {two, gb}), y})}),
         b.Add("SigmoidGrad", {y, dy[0]})};
  return b.status();
}
REGISTER_GRADIENT_OP("SigmoidGrad", SigmoidGradGrad);

Status TanhGradGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                    std::vector<Output>* dx) {
  const Output& y = op.inputs[0];
  const Output minus_two = b.Scalar(y.dtype, -2.0);
  *dx = {b.Add("Mul", {b.Add("Mul", {b.Add("Mul", {dy[0], minus_two}), op.inputs[1]}), y}),
         b.Add("TanhGrad", {y, dy[0]})};
  return b.status();
}
REGISTER_GRADIENT_OP("TanhGrad", TanhGradGrad);

// SqrtGrad(y, dy) = 0.5 dy / y, RsqrtGrad(y, dy) = -0.5 dy y^3 and
// ReciprocalGrad(y, dy) = -dy y^2, differentiated in y and dy (TensorFlow's
// _SqrtGradGrad, _RsqrtGradGrad, _ReciprocalGradGrad).
Status SqrtGradGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                    std::vector<Output>* dx) {
  const Output ga = b.Add("RealDiv", {dy[0], op.inputs[0]});
  *dx = {b.Add("Mul", {b.Add("Neg", {ga}), op.outputs[0]}),
         b.Add("Mul", {b.Scalar(ga.dtype, 0.5), ga})};
  return b.status();
}
REGISTER_GRADIENT_OP("SqrtGrad", SqrtGradGrad);

Status RsqrtGradGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                     std::vector<Output>* dx) {
  const Output& y = op.inputs[0];
  const Output scaled = b.Add("Mul", {b.Scalar(y.dtype, -1.5), dy[0]});
  *dx = {b.Add("Mul", {b.Add("Mul", {scaled, op.inputs[1]}), b.Add("Square", {y})}),
         b.Add("RsqrtGrad", {y, dy[0]})};
  return b.status();
}
REGISTER_GRADIENT_OP("RsqrtGrad", RsqrtGradGrad);

Status ReciprocalGradGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                          std::vector<Output>* dx) {
  const Output& y = op.inputs[0];
  const Output scaled = b.Add("Mul", {b.Scalar(y.dtype, -2.0), dy[0]});
  *dx = {b.Add("Mul", {b.Add("Mul", {scaled, op.inputs[1]}), y}),
         b.Add("ReciprocalGrad", {y, dy[0]})};
  return b.status();
}
REGISTER_GRADIENT_OP("ReciprocalGrad", ReciprocalGradGrad);

// Select(c, t, e) (c of t's shape, or a vector over t's first dimension):
// the gradient goes to t where c holds and to e elsewhere; c gets none.
Status SelectGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                  std::vector<Output>* dx) {
  const Output& c = op.inputs[0];
  const Output zeros = b.Add("ZerosLike", {op.inputs[1]});
  *dx = {Output(), b.Add("Select", {c, dy[0], zeros}), b.Add("Select", {c, zeros, dy[0]})};
  return b.status();
}
REGISTER_GRADIENT_OP("Select", SelectGrad);

// `g` (of `out`'s shape) summed over the axes along which `x` was broadcast
// to `out`, with x's shape.
Output SumToShapeOf(GraphBuilder& b, const Output& g, const Output& x, const Output& out) {
  const Output sx = b.Add("Shape", {x});
  const std::vector<Output> r = b.AddN("BroadcastGradientArgs", {sx, b.Add("Shape", {out})});
  if (r.size() != 2) return Output();
  return b.Add("Reshape", {b.Add("Sum", {g, r[0]}, {{"keep_dims", Attr(true)}}), sx});
}

// SelectV2 broadcasts its three inputs: each branch's gradient is summed
// back to the branch's shape (TensorFlow's _SelectGradV2).
Status SelectV2Grad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                    std::vector<Output>* dx) {
  const Output& c = op.inputs[0];
  const Output& out = op.outputs[0];
  const Output zero = b.Scalar(dy[0].dtype, 0.0);
  const Output gt = b.Add("SelectV2", {c, dy[0], zero});
  const Output ge = b.Add("SelectV2", {c, zero, dy[0]});
  *dx = {Output(), SumToShapeOf(b, gt, op.inputs[1], out),
         SumToShapeOf(b, ge, op.inputs[2], out)};
  return b.status();
}
REGISTER_GRADIENT_OP("SelectV2", SelectV2Grad);

// The rows of `params` that `ids` name, zeros where an id is negative
// (TensorFlow's _GatherDropNegatives): {the rows, ids >= 0 with trailing
// dimensions of size 1 so that it broadcasts over the rows}.
std::vector<Output> GatherDropNegatives(GraphBuilder& b, const Output& params,
                                        const Output& ids) {
  const Output id_zeros = b.Add("ZerosLike", {ids});
  const Output gathered =
      b.Add("GatherV2", {params, b.Add("Maximum", {ids, id_zeros}), b.ScalarInt(0)});
  const Output extra_rank = b.Add("Sub", {b.Add("Rank", {gathered}), b.Add("Rank", {ids})});
  const Output ones = b.Add("Fill", {b.Add("Reshape", {extra_rank, b.ConstInt({1})}),
                                     b.ScalarInt(1)});
  const Output kept_shape = b.Add("ConcatV2", {Input({b.Add("Shape", {ids}), ones}),
                                               b.ScalarInt(0)});
  const Output is_positive =
      b.Add("Reshape", {b.Add("GreaterEqual", {ids, id_zeros}), kept_shape});
  return {b.Add("SelectV2", {is_positive, gathered, b.Scalar(params.dtype, 0.0)}),
          is_positive};
}

// UnsortedSegmentSum(data, segment_ids, num_segments): each element of
// data gets the gradient of its segment, or zeros where its id is negative
// (such elements were dropped).
Status UnsortedSegmentSumGrad(GraphBuilder& b, const GradientOp& op,
                              const std::vector<Output>& dy, std::vector<Output>* dx) {
  *dx = {GatherDropNegatives(b, dy[0], op.inputs[1])[0], Output(), Output()};
  return b.status();
}
REGISTER_GRADIENT_OP("UnsortedSegmentSum", UnsortedSegmentSumGrad);

// UnsortedSegmentMax / Min: a segment's gradient goes to the elements equal
// to its result, shared equally among ties (TensorFlow's
// _UnsortedSegmentMinOrMaxGrad).
Status UnsortedSegmentMinOrMaxGrad(GraphBuilder& b, const GradientOp& op,
                                   const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output& data = op.inputs[0];
  const Output& ids = op.inputs[1];
  const std::vector<Output> out = GatherDropNegatives(b, op.outputs[0], ids);
  if (out.size() != 2 || !b.status().ok()) return b.status();
  const Output is_selected =
      b.Add("LogicalAnd", {b.Add("Equal", {data, out[0]}), out[1]});
  const Output num_selected =
      b.Add("UnsortedSegmentSum", {b.Add("Cast", {is_selected}, {{"DstT", Attr(dy[0].dtype)}}),
                                   ids, op.inputs[2]});
  const Output shares = GatherDropNegatives(b, b.Add("RealDiv", {dy[0], num_selected}), ids)[0];
  *dx = {b.Add("SelectV2", {is_selected, shares, b.Scalar(dy[0].dtype, 0.0)}), Output(),
         Output()};
  return b.status();
}
// UnsortedSegmentProd: an element's partial derivative is the product of
// the rest of its segment: the segment's product divided by it, or, for a
// zero element, the product of the segment's non-zero elements; a segment
// with two zeros or more passes no gradient (TensorFlow's
// _UnsortedSegmentProdGrad).
Status UnsortedSegmentProdGrad(GraphBuilder& b, const GradientOp& op,
                               const std::vector<Output>& dy, std::vector<Output>* dx) {
  const Output& data = op.inputs[0];
  const Output& ids = op.inputs[1];
  const Output& num_segments = op.inputs[2];
  const Output zero = b.Scalar(data.dtype, 0.0);
  const Output is_zero = b.Add("Equal", {data, zero});
  const Output num_zeros = b.Add(
      "UnsortedSegmentSum",
      {b.Add("Cast", {is_zero}, {{"DstT", Attr(DT_INT32)}}), ids, num_segments});
  const Output g = b.Add("SelectV2", {b.Add("Greater", {num_zeros, b.ScalarInt(1)}),
                                      b.Scalar(dy[0].dtype, 0.0), dy[0]});
  const Output non_zero_data =
      b.Add("SelectV2", {is_zero, b.Scalar(data.dtype, 1.0), data});
  const Output non_zero_prod =
      b.Add("UnsortedSegmentProd", {non_zero_data, ids, num_segments});
  const Output clipped = b.Add("Maximum", {ids, b.Add("ZerosLike", {ids})});
  auto gather = [&](const Output& t) { return b.Add("GatherV2", {t, clipped, b.ScalarInt(0)}); };
  const Output partial =
      b.Add("SelectV2", {is_zero, gather(non_zero_prod),
                         b.Add("RealDiv", {gather(op.outputs[0]), data})});
  *dx = {b.Add("Mul", {GatherDropNegatives(b, g, ids)[0], partial}), Output(), Output()};
  return b.status();
}
REGISTER_GRADIENT_OP("UnsortedSegmentProd", UnsortedSegmentProdGrad);

REGISTER_GRADIENT_OP("UnsortedSegmentMax", UnsortedSegmentMinOrMaxGrad);
REGISTER_GRADIENT_OP("UnsortedSegmentMin", UnsortedSegmentMinOrMaxGrad);

// Cast: the gradient is cast back, when both types are floating.
Status CastGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                std::vector<Output>* dx) {
  if (!grad::IsFloating(op.inputs[0].dtype) || !grad::IsFloating(op.outputs[0].dtype)) {
    *dx = {Output()};
    return OkStatus();
  }
  *dx = {b.Add("Cast", {dy[0]}, {{"DstT", Attr(op.inputs[0].dtype)}})};
  return b.status();
}
REGISTER_GRADIENT_OP("Cast", CastGrad);

// Sum: dy reshaped to the input's rank (reduced axes of size 1), then
// broadcast to the input's shape.
Status SumGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
               std::vector<Output>* dx) {
  const Output& x = op.inputs[0];
  const Output kept = grad::ReshapeToKeptDims(b, op, dy[0]);
  *dx = {b.Add("BroadcastTo", {kept, b.Add("Shape", {x})}), Output()};
  return b.status();
}
REGISTER_GRADIENT_OP("Sum", SumGrad);

// Mean: Sum's gradient divided by the number of elements averaged.
Status MeanGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                std::vector<Output>* dx) {
  const Output& x = op.inputs[0];
  const Output kept = grad::ReshapeToKeptDims(b, op, dy[0]);
  const Output spread = b.Add("BroadcastTo", {kept, b.Add("Shape", {x})});
  // count = size(x) / size(y), as x's dtype.
  const Output count = b.Add("RealDiv",
                             {b.Add("Cast", {b.Add("Size", {x})}, {{"DstT", Attr(x.dtype)}}),
                              b.Add("Cast", {b.Add("Size", {op.outputs[0]})},
                                    {{"DstT", Attr(x.dtype)}})});
  *dx = {b.Add("RealDiv", {spread, b.Add("Maximum", {count, b.Scalar(x.dtype, 1.0)})}),
         Output()};
  return b.status();
}
REGISTER_GRADIENT_OP("Mean", MeanGrad);

// Max / Min reductions (TensorFlow's _MinOrMaxGrad): the gradient goes to
// the elements equal to the result, shared equally among ties.
Status MinOrMaxGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                    std::vector<Output>* dx) {
  const Output& x = op.inputs[0];
  const Output y = grad::ReshapeToKeptDims(b, op, op.outputs[0]);
  const Output g = grad::ReshapeToKeptDims(b, op, dy[0]);
  const Output indicators =
      b.Add("Cast", {b.Add("Equal", {y, x})}, {{"DstT", Attr(x.dtype)}});
  const Output num_selected =
      b.Add("Sum", {indicators, op.inputs[1]}, {{"keep_dims", Attr(true)}});
  *dx = {b.Add("Mul", {b.Add("RealDiv", {indicators, num_selected}), g}), Output()};
  return b.status();
}
REGISTER_GRADIENT_OP("Max", MinOrMaxGrad);
REGISTER_GRADIENT_OP("Min", MinOrMaxGrad);

// MatMul: with C = op(A) op(B), dA and dB are products of dC with the other
// operand, transposed as TensorFlow's _MatMulGrad does.
Status MatMulGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                  std::vector<Output>* dx) {
  bool ta = false, tb = false;
  OPKIT_RETURN_IF_ERROR(op.GetAttr("transpose_a", &ta));
  OPKIT_RETURN_IF_ERROR(op.GetAttr("transpose_b", &tb));
  const Output& a = op.inputs[0];
  const Output& bm = op.inputs[1];
  const Output& g = dy[0];
  auto mm = [&](const Output& l, const Output& r, bool tl, bool tr) {
    return b.Add("MatMul", {l, r}, {{"transpose_a", Attr(tl)}, {"transpose_b", Attr(tr)}});
  };
  if (!ta && !tb) {
    *dx = {mm(g, bm, false, true), mm(a, g, true, false)};
  } else if (!ta && tb) {
    *dx = {mm(g, bm, false, false), mm(g, a, true, false)};
  } else if (ta && !tb) {
    *dx = {mm(bm, g, false, true), mm(a, g, false, false)};
  } else {
    *dx = {mm(bm, g, true, true), mm(g, a, true, true)};
  }
  return b.status();
}
REGISTER_GRADIENT_OP("MatMul", MatMulGrad);

// BatchMatMulV2 (adj_x / adj_y on real types are transposes), with the batch
// dimensions reduced back where they were broadcast.
Status BatchMatMulGrad(GraphBuilder& b, const GradientOp& op, const std::vector<Output>& dy,
                       std::vector<Output>* dx) {
  bool ax = false, ay = false;
  OPKIT_RETURN_IF_ERROR(op.GetAttr("adj_x", &ax));
  OPKIT_RETURN_IF_ERROR(op.GetAttr("adj_y", &ay));
  const Output& x = op.inputs[0];
  const Output& y = op.inputs[1];
  const Output& g = dy[0];
  auto mm = [&](const Output& l, const Output& r, bool al, bool ar) {
    return b.Add("BatchMatMulV2", {l, r}, {{"adj_x", Attr(al)}, {"adj_y", Attr(ar)}});
  };
  Output gx, gy;
  if (!ax && !ay) {
    gx = mm(g, y, false, true);
    gy = mm(x, g, true, false);
  } else if (!ax && ay) {
    gx = mm(g, y, false, false);
    gy = mm(g, x, true, false);
  } else if (ax && !ay) {
    gx = mm(y, g, false, true);
    gy = mm(x, g, false, false);
  } else {
    gx = mm(y, g, true, true);
    gy = mm(g, x, true, true);
  }
  *dx = grad::ReduceBatchDims(b, x, y, gx, gy);
  return b.status();
}
REGISTER_GRADIENT_OP("BatchMatMulV2", BatchMatMulGrad);

}  // namespace

// Ops whose outputs carry no gradient back to their inputs.
REGISTER_NO_GRADIENT_OP("Equal");
REGISTER_NO_GRADIENT_OP("NotEqual");
REGISTER_NO_GRADIENT_OP("Less");
REGISTER_NO_GRADIENT_OP("LessEqual");
REGISTER_NO_GRADIENT_OP("Greater");
REGISTER_NO_GRADIENT_OP("GreaterEqual");
REGISTER_NO_GRADIENT_OP("LogicalAnd");
REGISTER_NO_GRADIENT_OP("LogicalOr");
REGISTER_NO_GRADIENT_OP("LogicalNot");
REGISTER_NO_GRADIENT_OP("ArgMax");
REGISTER_NO_GRADIENT_OP("ArgMin");
REGISTER_NO_GRADIENT_OP("Floor");
REGISTER_NO_GRADIENT_OP("Ceil");
REGISTER_NO_GRADIENT_OP("Round");
REGISTER_NO_GRADIENT_OP("FloorMod");
REGISTER_NO_GRADIENT_OP("FloorDiv");

}  // namespace opkit

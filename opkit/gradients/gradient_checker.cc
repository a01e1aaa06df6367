// ComputeJacobians / ComputeGradientError: one-hot backprops against
// central differences.
#include "opkit/gradients/gradient_checker.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/gradients/graph_builder.h"
#include "opkit/gradients/symbolic_gradients.h"
#include "opkit/op/node_def_util.h"
#include "opkit/runtime/session.h"
#include "opkit/tensor/numeric_types.h"

namespace opkit {
namespace {

bool IsFloating(DataType dt) {
  return dt == DT_FLOAT || dt == DT_DOUBLE || dt == DT_HALF || dt == DT_BFLOAT16;
}

template <typename T>
double GetAs(const Tensor& t, int64_t i) {
  return static_cast<double>(t.flat<T>()(i));
}
template <typename T>
void SetAs(Tensor* t, int64_t i, double v) {
  t->flat<T>()(i) = static_cast<T>(static_cast<float>(v));
}
template <>
void SetAs<double>(Tensor* t, int64_t i, double v) {
  t->flat<double>()(i) = v;
}

double Get(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DT_FLOAT: return GetAs<float>(t, i);
    case DT_DOUBLE: return GetAs<double>(t, i);
    case DT_HALF: return static_cast<double>(static_cast<float>(t.flat<Eigen::half>()(i)));
    case DT_BFLOAT16:
      return static_cast<double>(static_cast<float>(t.flat<Eigen::bfloat16>()(i)));
    default: return 0;
  }
}

void Set(Tensor* t, int64_t i, double v) {
  switch (t->dtype()) {
    case DT_FLOAT: SetAs<float>(t, i, v); break;
    case DT_DOUBLE: SetAs<double>(t, i, v); break;
    case DT_HALF: t->flat<Eigen::half>()(i) = Eigen::half(static_cast<float>(v)); break;
    case DT_BFLOAT16:
      t->flat<Eigen::bfloat16>()(i) = Eigen::bfloat16(static_cast<float>(v));
      break;
    default: break;
  }
}

}  // namespace

Status ComputeJacobians(const GraphDef& graph, const std::vector<std::string>& xs,
                        const std::vector<Tensor>& x_values,
                        const std::vector<std::string>& ys, Jacobians* out, double delta) {
  if (xs.size() != x_values.size()) {
    return errors::InvalidArgument("ComputeJacobians: ", xs.size(), " xs but ",
                                   x_values.size(), " x values");
  }
  if (xs.empty() || ys.empty()) {
    return errors::InvalidArgument("ComputeJacobians needs at least one x and one y");
  }
  for (size_t i = 0; i < xs.size(); ++i) {
    if (!IsFloating(x_values[i].dtype())) {
      return errors::InvalidArgument("ComputeJacobians: x '", xs[i], "' is ",
                                     DataTypeString(x_values[i].dtype()),
                                     "; only floating-point tensors have gradients");
    }
  }
  // One grad_y placeholder per y, of its dtype.
  GraphDef g = graph;
  std::vector<std::string> dys;
  {
    GraphBuilder b(&g, OpRegistry::Global(), "gradient_checker");
    for (const std::string& y : ys) {
      DataType dt;
      OPKIT_RETURN_IF_ERROR(GraphBuilder::OutputType(g, *OpRegistry::Global(), y, &dt));
      if (!IsFloating(dt)) {
        return errors::InvalidArgument("ComputeJacobians: y '", y, "' is ",
                                       DataTypeString(dt),
                                       "; only floating-point tensors have gradients");
      }
      dys.push_back(b.Add("Placeholder", {}, {{"dtype", Attr(dt)}}).name());
    }
    OPKIT_RETURN_IF_ERROR(b.status());
  }
  std::vector<std::string> dxs;
  SymbolicGradientOptions options;
  options.unconnected_zero = true;
  OPKIT_RETURN_IF_ERROR(AddSymbolicGradients(&g, ys, xs, dys, &dxs, options));
  OPKIT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::New());
  OPKIT_RETURN_IF_ERROR(session->Create(g));

  std::vector<std::pair<std::string, Tensor>> feeds;
  for (size_t i = 0; i < xs.size(); ++i) feeds.emplace_back(xs[i], x_values[i]);
  std::vector<Tensor> y_values;
  OPKIT_RETURN_IF_ERROR(session->Run(feeds, ys, {}, &y_values));
  int64_t rows = 0, cols = 0;
  for (const Tensor& y : y_values) rows += y.NumElements();
  for (const Tensor& x : x_values) cols += x.NumElements();
  out->theoretical.assign(rows, std::vector<double>(cols, 0.0));
  out->numeric.assign(rows, std::vector<double>(cols, 0.0));

  // Theoretical: row r is the gradient of y element r.
  std::vector<Tensor> zero_dys;
  for (const Tensor& y : y_values) {
    Tensor z(y.dtype(), y.shape());
    for (int64_t e = 0; e < z.NumElements(); ++e) Set(&z, e, 0.0);
    zero_dys.push_back(z);
  }
  int64_t r = 0;
  for (size_t yi = 0; yi < ys.size(); ++yi) {
    for (int64_t e = 0; e < y_values[yi].NumElements(); ++e, ++r) {
      std::vector<std::pair<std::string, Tensor>> f = feeds;
      for (size_t k = 0; k < ys.size(); ++k) {
        Tensor dy = zero_dys[k];
        if (k == yi) {
          dy = Tensor(zero_dys[k].dtype(), zero_dys[k].shape());
          for (int64_t q = 0; q < dy.NumElements(); ++q) Set(&dy, q, q == e ? 1.0 : 0.0);
        }
        f.emplace_back(dys[k], dy);
      }
      std::vector<Tensor> grads;
      OPKIT_RETURN_IF_ERROR(session->Run(f, dxs, {}, &grads));
      int64_t c = 0;
      for (size_t xi = 0; xi < xs.size(); ++xi) {
        if (grads[xi].NumElements() != x_values[xi].NumElements()) {
          return errors::Internal("the gradient of x '", xs[xi], "' has shape ",
                                  grads[xi].shape().DebugString(), " but x has shape ",
                                  x_values[xi].shape().DebugString());
        }
        for (int64_t q = 0; q < grads[xi].NumElements(); ++q, ++c) {
          out->theoretical[r][c] = Get(grads[xi], q);
        }
      }
    }
  }

  // Numeric: column c is the change of every y element with x element c.
  int64_t c = 0;
  for (size_t xi = 0; xi < xs.size(); ++xi) {
    for (int64_t q = 0; q < x_values[xi].NumElements(); ++q, ++c) {
      std::vector<double> plus, minus;
      for (double sign : {1.0, -1.0}) {
        std::vector<std::pair<std::string, Tensor>> f = feeds;
        Tensor moved(x_values[xi].dtype(), x_values[xi].shape());
        for (int64_t k = 0; k < moved.NumElements(); ++k) Set(&moved, k, Get(x_values[xi], k));
        Set(&moved, q, Get(x_values[xi], q) + sign * delta);
        f[xi].second = moved;
        std::vector<Tensor> ys_at;
        OPKIT_RETURN_IF_ERROR(session->Run(f, ys, {}, &ys_at));
        std::vector<double>& v = sign > 0 ? plus : minus;
        for (const Tensor& y : ys_at) {
          for (int64_t e = 0; e < y.NumElements(); ++e) v.push_back(Get(y, e));
        }
      }
      for (int64_t row = 0; row < rows; ++row) {
        out->numeric[row][c] = (plus[row] - minus[row]) / (2 * delta);
      }
    }
  }
  return OkStatus();
}

Status ComputeGradientError(const GraphDef& graph, const std::vector<std::string>& xs,
                            const std::vector<Tensor>& x_values,
                            const std::vector<std::string>& ys, double* max_error,
                            double delta) {
  Jacobians j;
  OPKIT_RETURN_IF_ERROR(ComputeJacobians(graph, xs, x_values, ys, &j, delta));
  double worst = 0;
  for (size_t r = 0; r < j.theoretical.size(); ++r) {
    for (size_t c = 0; c < j.theoretical[r].size(); ++c) {
      const double d = std::abs(j.theoretical[r][c] - j.numeric[r][c]);
      worst = std::isnan(d) ? d : std::max(worst, d);
      if (std::isnan(worst)) break;
    }
  }
  *max_error = worst;
  return OkStatus();
}

}  // namespace opkit

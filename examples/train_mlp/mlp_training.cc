// TrainMlp: the graph (variables, forward, loss, gradients, SGD updates),
// the data, and the loop.
#include "examples/train_mlp/mlp_training.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <utility>

#include "opkit/core/errors.h"
#include "opkit/gradients/graph_builder.h"
#include "opkit/gradients/symbolic_gradients.h"
#include "opkit/op/op_registry.h"
#include "opkit/runtime/session.h"

namespace opkit {
namespace examples {
namespace {

struct Data {
  Tensor x;   // [n, 2] float
  Tensor y;   // [n] int32
};

// `n_per_class` points around each of `classes` centres on a circle.
Data MakeBlobs(int classes, int n_per_class, std::mt19937* gen) {
  std::normal_distribution<float> noise(0.f, 0.5f);
  const int n = classes * n_per_class;
  Data d{Tensor(DT_FLOAT, TensorShape({n, 2})), Tensor(DT_INT32, TensorShape({n}))};
  auto x = d.x.matrix<float>();
  auto y = d.y.flat<int32_t>();
  for (int i = 0; i < n; ++i) {
    const int c = i % classes;
    const float angle = 6.2831853f * static_cast<float>(c) / static_cast<float>(classes);
    x(i, 0) = 2.f * std::cos(angle) + noise(*gen);
    x(i, 1) = 2.f * std::sin(angle) + noise(*gen);
    y(i) = c;
  }
  return d;
}

Tensor RandomMatrix(int rows, int cols, std::mt19937* gen) {
  std::normal_distribution<float> dist(0.f, std::sqrt(2.f / static_cast<float>(rows)));
  Tensor t(DT_FLOAT, cols > 0 ? TensorShape({rows, cols}) : TensorShape({rows}));
  for (int64_t i = 0; i < t.NumElements(); ++i) t.flat<float>()(i) = cols > 0 ? dist(*gen) : 0.f;
  return t;
}

// The rows `rows` of `t`.
Tensor Rows(const Tensor& t, const std::vector<int>& rows) {
  TensorShape shape = t.shape();
  shape.set_dim(0, static_cast<int64_t>(rows.size()));
  Tensor out(t.dtype(), shape);
  const int64_t width = t.NumElements() / t.dim_size(0);
  const size_t bytes = static_cast<size_t>(width) * DataTypeSize(t.dtype());
  for (size_t r = 0; r < rows.size(); ++r) {
    std::memcpy(static_cast<char*>(out.data()) + r * bytes,
                static_cast<const char*>(t.data()) + rows[r] * bytes, bytes);
  }
  return out;
}

}  // namespace

Status TrainMlp(const MlpTrainingOptions& options, MlpTrainingResult* result) {
  if (options.classes < 2 || options.points_per_class < 1 || options.hidden < 1 ||
      options.batch < 1 || options.epochs < 0) {
    return errors::InvalidArgument("TrainMlp: classes >= 2 and positive sizes, please");
  }
  std::mt19937 gen(options.seed);
  const Data train = MakeBlobs(options.classes, options.points_per_class, &gen);
  const Data test = MakeBlobs(options.classes, options.points_per_class / 2 + 1, &gen);

  // Variables: a resource handle, its initial value and its read per layer.
  GraphDef& g = result->graph;
  g.Clear();
  GraphBuilder b(&g, OpRegistry::Global(), "mlp");
  const std::vector<std::pair<std::string, Tensor>> inits = {
      {"w1", RandomMatrix(2, options.hidden, &gen)},
      {"b1", RandomMatrix(options.hidden, 0, &gen)},
      {"w2", RandomMatrix(options.hidden, options.classes, &gen)},
      {"b2", RandomMatrix(options.classes, 0, &gen)}};
  std::vector<Output> handles, reads;
  std::vector<std::string> init_ops;
  for (const auto& [name, value] : inits) {
    GraphBuilder v = b.WithPrefix(name);
    const Output h = v.Add("VarHandleOp", {},
                           {{"dtype", Attr(DT_FLOAT)}, {"shape", Attr(value.shape())},
                            {"shared_name", Attr(name)}});
    init_ops.push_back(v.AddTarget("AssignVariableOp", {h, v.Const(value)}));
    handles.push_back(h);
    reads.push_back(v.Add("ReadVariableOp", {h}, {{"dtype", Attr(DT_FLOAT)}}));
    OPKIT_RETURN_IF_ERROR(v.status());
  }
  // Forward: logits = relu(x w1 + b1) w2 + b2; loss = mean cross-entropy.
  const Output x = b.Add("Placeholder", {}, {{"dtype", Attr(DT_FLOAT)}});
  const Output labels = b.Add("Placeholder", {}, {{"dtype", Attr(DT_INT32)}});
  const Output hidden =
      b.Add("Relu", {b.Add("BiasAdd", {b.Add("MatMul", {x, reads[0]}), reads[1]})});
  const Output logits = b.Add("BiasAdd", {b.Add("MatMul", {hidden, reads[2]}), reads[3]});
  const std::vector<Output> xent =
      b.AddN("SparseSoftmaxCrossEntropyWithLogits", {logits, labels});
  OPKIT_RETURN_IF_ERROR(b.status());
  const Output loss = b.Add("Mean", {xent[0], b.ConstInt({0})});
  const Output predicted = b.Add("ArgMax", {logits, b.ScalarInt(1)},
                                 {{"output_type", Attr(DT_INT32)}});
  OPKIT_RETURN_IF_ERROR(b.status());

  // Backward: d loss / d each variable's read, then w -= lr * dw.
  std::vector<std::string> read_names, grads;
  for (const Output& r : reads) read_names.push_back(r.name());
  OPKIT_RETURN_IF_ERROR(AddSymbolicGradients(&g, {loss.name()}, read_names, {}, &grads));
  GraphBuilder sgd(&g, OpRegistry::Global(), "sgd");
  const Output lr = sgd.Scalar(DT_FLOAT, options.learning_rate);
  std::vector<std::string> updates;
  for (size_t i = 0; i < handles.size(); ++i) {
    const Output grad{grads[i], 0, DT_FLOAT};
    updates.push_back(
        sgd.AddTarget("AssignSubVariableOp", {handles[i], sgd.Add("Mul", {lr, grad})}));
  }
  OPKIT_RETURN_IF_ERROR(sgd.status());

  OPKIT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::New());
  OPKIT_RETURN_IF_ERROR(session->Create(g));
  std::vector<Tensor> unused;
  OPKIT_RETURN_IF_ERROR(session->Run({}, {}, init_ops, &unused));

  const int n = static_cast<int>(train.x.dim_size(0));
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  result->losses.clear();
  for (int epoch = 0; epoch < options.epochs; ++epoch) {
    std::shuffle(order.begin(), order.end(), gen);
    double total = 0;
    int batches = 0;
    for (int start = 0; start < n; start += options.batch) {
      const std::vector<int> rows(order.begin() + start,
                                  order.begin() + std::min(n, start + options.batch));
      std::vector<Tensor> out;
      // One training step: forward, gradients and the four updates.
      OPKIT_RETURN_IF_ERROR(session->Run(
          {{x.name(), Rows(train.x, rows)}, {labels.name(), Rows(train.y, rows)}},
          {loss.name()}, updates, &out));
      total += out[0].scalar<float>()();
      ++batches;
    }
    result->losses.push_back(static_cast<float>(total / batches));
    if (options.on_epoch) options.on_epoch(epoch, result->losses.back());
  }
  std::vector<Tensor> out;
  OPKIT_RETURN_IF_ERROR(session->Run({{x.name(), test.x}}, {predicted.name()}, {}, &out));
  int correct = 0;
  for (int64_t i = 0; i < test.y.NumElements(); ++i) {
    correct += out[0].flat<int32_t>()(i) == test.y.flat<int32_t>()(i);
  }
  result->accuracy = static_cast<float>(correct) / static_cast<float>(test.y.NumElements());
  return OkStatus();
}

}  // namespace examples
}  // namespace opkit

// Graph executor overhead and a small model step, each with 1 and 2
// inter-op threads (2 must never be slower: Note [Inline cheap nodes] in
// opkit/runtime/internal/executor_impl.h):
//   - a chain of 10,000 Identity nodes (per-node overhead; the goal is under
//     200 ns per node);
//   - 10,000 independent small AddV2 nodes;
//   - 8 independent 256x256 MatMuls on a one-thread device (inter-op
//     parallelism alone);
//   - one MLP step, 784-512-512-10 at batch 64 (MatMul, BiasAdd, Relu)
//     through Session::Run (intra-op threads as many as inter-op).
//
//   build/bench/bench/executor_bench
// The "per_node" counter is the step's real time divided by the nodes run.
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "opkit/device/device.h"
#include "opkit/op/node_def_util.h"
#include "opkit/graph/graph.h"
#include "opkit/graph/placer.h"
#include "opkit/runtime/executor.h"
#include "opkit/runtime/session.h"

namespace opkit {
namespace {

NodeDef* AddNode(GraphDef* g, const std::string& name, const std::string& op,
                 const std::vector<std::string>& inputs) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  for (const std::string& in : inputs) n->add_input(in);
  return n;
}

NodeDef* AddConst(GraphDef* g, const std::string& name, const Tensor& value) {
  NodeDef* n = AddNode(g, name, "Const", {});
  AddNodeAttr("dtype", value.dtype(), n);
  AddNodeAttr("value", value, n);
  return n;
}

struct Prepared {
  std::unique_ptr<Device> device;
  std::shared_ptr<const Graph> graph;
  std::unique_ptr<Executor> executor;
};

bool Prepare(const GraphDef& def, const ExecutorSignature& sig, int threads,
             Prepared* p, benchmark::State& state) {
  auto device = CpuDevice::Create("/device:CPU:0", 1);
  if (!device.ok()) {
    state.SkipWithError(device.status().ToString().c_str());
    return false;
  }
  p->device = std::move(device).value();
  auto graph = Graph::Create(def, nullptr);
  if (!graph.ok()) {
    state.SkipWithError(graph.status().ToString().c_str());
    return false;
  }
  Status s = PlaceGraph(graph->get(), {p->device.get()});
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return false;
  }
  p->graph = std::move(graph).value();
  ExecutorOptions options;
  options.inter_op_threads = threads;
  auto exec = Executor::Create(p->graph, {p->device.get()}, sig, options);
  if (!exec.ok()) {
    state.SkipWithError(exec.status().ToString().c_str());
    return false;
  }
  p->executor = std::move(exec).value();
  return true;
}

void BM_ExecutorChainIdentity(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  GraphDef def;
  AddConst(&def, "c", Tensor(1.f));
  std::string prev = "c";
  for (int i = 0; i < n; ++i) {
    const std::string name = "id" + std::to_string(i);
    AddNodeAttr("T", DT_FLOAT, AddNode(&def, name, "Identity", {prev}));
    prev = name;
  }
  ExecutorSignature sig;
  sig.fetches = {prev + ":0"};
  Prepared p;
  if (!Prepare(def, sig, static_cast<int>(state.range(1)), &p, state)) return;
  std::vector<Tensor> out;
  for (auto _ : state) {
    Status s = p.executor->Run(ExecutorRunArgs(), {}, &out);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
  }
  // Seconds per node (printed with an SI prefix: "120n" is 120 ns).
  state.counters["per_node"] = benchmark::Counter(
      n + 1, benchmark::Counter::kIsIterationInvariantRate |
                 benchmark::Counter::kInvert);
}
BENCHMARK(BM_ExecutorChainIdentity)
    ->Args({10000, 1})
    ->Args({10000, 2})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

void BM_ExecutorWide(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const int threads = static_cast<int>(state.range(1));
  GraphDef def;
  AddConst(&def, "a", Tensor(1.f));
  ExecutorSignature sig;
  for (int i = 0; i < n; ++i) {
    const std::string name = "add" + std::to_string(i);
    AddNodeAttr("T", DT_FLOAT, AddNode(&def, name, "AddV2", {"a", "a"}));
    sig.targets.push_back(name);
  }
  Prepared p;
  if (!Prepare(def, sig, threads, &p, state)) return;
  std::vector<Tensor> out;
  for (auto _ : state) {
    Status s = p.executor->Run(ExecutorRunArgs(), {}, &out);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
  }
  // Seconds per node (printed with an SI prefix: "120n" is 120 ns).
  state.counters["per_node"] = benchmark::Counter(
      n + 1, benchmark::Counter::kIsIterationInvariantRate |
                 benchmark::Counter::kInvert);
}
BENCHMARK(BM_ExecutorWide)
    ->Args({10000, 1})
    ->Args({10000, 2})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

Tensor Random(const TensorShape& shape, std::mt19937* rng) {
  Tensor t(DT_FLOAT, shape);
  std::uniform_real_distribution<float> dist(-0.05f, 0.05f);
  auto flat = t.flat<float>();
  for (int64_t i = 0; i < flat.size(); ++i) flat(i) = dist(*rng);
  return t;
}

void BM_ExecutorParallelMatMul(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  std::mt19937 rng(3);
  GraphDef def;
  AddConst(&def, "a", Random(TensorShape({256, 256}), &rng));
  ExecutorSignature sig;
  for (int i = 0; i < 8; ++i) {
    const std::string name = "mm" + std::to_string(i);
    AddConst(&def, "w" + std::to_string(i), Random(TensorShape({256, 256}), &rng));
    AddNodeAttr("T", DT_FLOAT,
                AddNode(&def, name, "MatMul", {"a", "w" + std::to_string(i)}));
    sig.targets.push_back(name);
  }
  Prepared p;
  if (!Prepare(def, sig, threads, &p, state)) return;
  std::vector<Tensor> out;
  for (auto _ : state) {
    Status s = p.executor->Run(ExecutorRunArgs(), {}, &out);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
  }
}
BENCHMARK(BM_ExecutorParallelMatMul)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

void BM_SessionMlpStep(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  std::mt19937 rng(7);
  GraphDef def;
  NodeDef* x = AddNode(&def, "x", "Placeholder", {});
  AddNodeAttr("dtype", DT_FLOAT, x);
  const int sizes[] = {784, 512, 512, 10};
  std::string prev = "x";
  for (int layer = 0; layer < 3; ++layer) {
    const std::string l = std::to_string(layer);
    AddConst(&def, "w" + l, Random(TensorShape({sizes[layer], sizes[layer + 1]}), &rng));
    AddConst(&def, "b" + l, Random(TensorShape({sizes[layer + 1]}), &rng));
    NodeDef* mm = AddNode(&def, "matmul" + l, "MatMul", {prev, "w" + l});
    AddNodeAttr("T", DT_FLOAT, mm);
    NodeDef* bias = AddNode(&def, "bias" + l, "BiasAdd", {"matmul" + l, "b" + l});
    AddNodeAttr("T", DT_FLOAT, bias);
    prev = "bias" + l;
    if (layer < 2) {
      NodeDef* relu = AddNode(&def, "relu" + l, "Relu", {prev});
      AddNodeAttr("T", DT_FLOAT, relu);
      prev = "relu" + l;
    }
  }
  SessionOptions options;
  options.inter_op_threads = threads;
  options.intra_op_threads = threads;
  auto session = Session::New(options);
  if (!session.ok()) {
    state.SkipWithError(session.status().ToString().c_str());
    return;
  }
  Status s = (*session)->Create(def);
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  const Tensor input = Random(TensorShape({64, 784}), &rng);
  std::vector<Tensor> out;
  for (auto _ : state) {
    s = (*session)->Run({{"x:0", input}}, {prev + ":0"}, {}, &out);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
  }
  if (out.size() != 1 || out[0].dim_size(0) != 64 || out[0].dim_size(1) != 10) {
    state.SkipWithError("wrong output shape");
  }
}
BENCHMARK(BM_SessionMlpStep)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace opkit

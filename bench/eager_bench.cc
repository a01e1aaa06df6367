// Eager call overhead: a prepared 1-element float AddV2 (kernel selected
// once), output allocation included; and the unprepared Run path, which
// finds its kernel by (op, input dtypes, attrs). A 1x1 MatMul with two
// attrs given shows what hashing and comparing attrs adds.
//
//   build/bench/bench/eager_bench
#include <memory>
#include <vector>

#include "benchmark/benchmark.h"
#include "opkit/runtime/eager_context.h"

namespace opkit {
namespace {

std::unique_ptr<EagerContext> MakeContext() {
  EagerContext::Options options;
  options.intra_op_threads = 1;
  auto ctx = EagerContext::Create(options);
  if (!ctx.ok()) std::abort();
  return std::move(ctx).value();
}

Tensor Scalar1(float v) {
  Tensor t(DT_FLOAT, TensorShape({1}));
  t.flat<float>()(0) = v;
  return t;
}

void BM_PreparedAddV2_1Element(benchmark::State& state) {
  auto ctx = MakeContext();
  auto add = ctx->Prepare("AddV2", {DT_FLOAT, DT_FLOAT});
  if (!add.ok()) {
    state.SkipWithError(add.status().ToString().c_str());
    return;
  }
  std::vector<Tensor> inputs = {Scalar1(1.f), Scalar1(2.f)};
  std::vector<Tensor> out;
  for (auto _ : state) {
    Status s = (*add)->Run(inputs, &out);
    benchmark::DoNotOptimize(s);
    benchmark::DoNotOptimize(out.data());
  }
  if (out[0].flat<float>()(0) != 3.f) state.SkipWithError("wrong sum");
}
BENCHMARK(BM_PreparedAddV2_1Element);

void BM_EagerRunAddV2_1Element(benchmark::State& state) {
  auto ctx = MakeContext();
  std::vector<Tensor> inputs = {Scalar1(1.f), Scalar1(2.f)};
  std::vector<Tensor> out;
  for (auto _ : state) {
    Status s = ctx->Run("AddV2", inputs, &out);
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_EagerRunAddV2_1Element);

EagerAttrs TransposeAttrs() {
  AttrValue no;
  no.set_b(false);
  return {{"transpose_a", no}, {"transpose_b", no}};
}

void BM_PreparedMatMul_1x1_Attrs(benchmark::State& state) {
  auto ctx = MakeContext();
  auto matmul = ctx->Prepare("MatMul", {DT_FLOAT, DT_FLOAT}, TransposeAttrs());
  if (!matmul.ok()) {
    state.SkipWithError(matmul.status().ToString().c_str());
    return;
  }
  Tensor a(DT_FLOAT, TensorShape({1, 1}));
  a.flat<float>()(0) = 2.f;
  std::vector<Tensor> inputs = {a, a};
  std::vector<Tensor> out;
  for (auto _ : state) {
    Status s = (*matmul)->Run(inputs, &out);
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_PreparedMatMul_1x1_Attrs);

void BM_EagerRunMatMul_1x1_Attrs(benchmark::State& state) {
  auto ctx = MakeContext();
  Tensor a(DT_FLOAT, TensorShape({1, 1}));
  a.flat<float>()(0) = 2.f;
  std::vector<Tensor> inputs = {a, a};
  const EagerAttrs attrs = TransposeAttrs();
  std::vector<Tensor> out;
  for (auto _ : state) {
    Status s = ctx->Run("MatMul", inputs, attrs, &out);
    benchmark::DoNotOptimize(s);
  }
  if (out[0].flat<float>()(0) != 4.f) state.SkipWithError("wrong product");
}
BENCHMARK(BM_EagerRunMatMul_1x1_Attrs);

}  // namespace
}  // namespace opkit

// The tour of opkit: what exists, shown by using it.
//
// Each section prints what it does and what came out. Run it with the
// README's first command (scripts/tour.sh), or build/default/examples/tour/opkit_tour.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "google/protobuf/text_format.h"
#include "opkit/core/status.h"
#include "opkit/kernel/kernel_def_builder.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/op/op.h"
#include "opkit/op/op_def_util.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/op/op_registry.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/types.h"
#include "opkit/graph/graph.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/runtime/library.h"
#include "opkit/runtime/session.h"

// An op declared the way TensorFlow's users write it. REGISTER_OP only
// records it; the global registry commits it on first use.
REGISTER_OP("KeepFirst")
    .Attr("T: {float, int32} = DT_INT32")
    .Input("x: T")
    .Output("y: T")
    .Doc(R"doc(
Zeroes all but the first element of a tensor.

x: A tensor of any shape.
y: A tensor of the same shape; its first element is x's first.
)doc");

namespace {

// A float MatMul written the naive way: three loops, one thread. It stands
// for a vendor's kernel that replaces the built-in one at run time.
class NaiveMatMulOp : public opkit::OpKernel {
 public:
  explicit NaiveMatMulOp(opkit::OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(opkit::OpKernelContext* ctx) override {
    using namespace opkit;  // NOLINT
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.dims() == 2 && b.dims() == 2 && a.dim_size(1) == b.dim_size(0),
                errors::InvalidArgument("NaiveMatMulOp takes [m,k] x [k,n] only"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({a.dim_size(0), b.dim_size(1)}), &out));
    auto x = a.matrix<float>();
    auto y = b.matrix<float>();
    auto z = out->matrix<float>();
    for (int64_t i = 0; i < z.dimension(0); ++i) {
      for (int64_t j = 0; j < z.dimension(1); ++j) {
        float acc = 0;
        for (int64_t k = 0; k < x.dimension(1); ++k) acc += x(i, k) * y(k, j);
        z(i, j) = acc;
      }
    }
  }
};

opkit::OpKernel* MakeNaiveMatMul(opkit::OpKernelConstruction* ctx) {
  return new NaiveMatMulOp(ctx);
}

opkit::KernelRegistration NaiveMatMulRegistration(int priority) {
  opkit::KernelRegistration r;
  r.def = opkit::KernelDefBuilder("MatMul")
              .Device(opkit::DEVICE_CPU)
              .TypeConstraint<float>("T")
              .Priority(priority)
              .BuildDef();
  r.kernel_class_name = "NaiveMatMulOp";
  r.factory = &MakeNaiveMatMul;
  r.origin = {__FILE__, __LINE__, ""};
  return r;
}

// Runs `op` 3 times and returns the best time in milliseconds.
double BestMillis(opkit::PreparedOp* op, const std::vector<opkit::Tensor>& in,
                  std::vector<opkit::Tensor>* out, opkit::Status* status) {
  double best = 1e30;
  for (int i = 0; i < 3 && status->ok(); ++i) {
    auto start = std::chrono::steady_clock::now();
    *status = op->Run(in, out);
    std::chrono::duration<double, std::milli> d = std::chrono::steady_clock::now() - start;
    best = std::min(best, d.count());
  }
  return best;
}

void Section(const char* title) { std::printf("\n== %s\n", title); }

// A small network and a step counter, in TensorFlow's GraphDef text format
// (what tf.Graph.as_graph_def() prints).
constexpr char kGraph[] = R"pb(
  node { name: "x" op: "Placeholder"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } } }
  node { name: "w" op: "Const"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT
                tensor_shape { dim { size: 2 } dim { size: 2 } }
                float_val: [1, -1, 2, 0.5] } } } }
  node { name: "b" op: "Const"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT
                tensor_shape { dim { size: 2 } } float_val: [0.5, -1] } } } }
  node { name: "mm" op: "MatMul" input: "x" input: "w"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "z" op: "BiasAdd" input: "mm" input: "b"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "y" op: "Relu" input: "z"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "steps" op: "VariableV2"
         attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "shape" value { shape {} } } }
  node { name: "zero" op: "Const"
         attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
  node { name: "init" op: "Assign" input: "steps" input: "zero"
         attr { key: "T" value { type: DT_INT32 } } }
  node { name: "one" op: "Const"
         attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
  node { name: "count" op: "AssignAdd" input: "steps" input: "one" input: "^y"
         attr { key: "T" value { type: DT_INT32 } } }
)pb";

int Fail(const opkit::Status& s) {
  std::fprintf(stderr, "tour failed: %s\n", s.ToString().c_str());
  return 1;
}

}  // namespace

int main() {
  using namespace opkit;  // NOLINT: a demo reads better without prefixes.
  // Line-buffered, so that what the tour prints and what opkit logs to
  // stderr appear in the order they happen.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);

  Section("Data types: every DataType has a name, a size and a C++ type");
  for (DataType dt : {DT_FLOAT, DT_HALF, DT_BFLOAT16, DT_INT32, DT_COMPLEX64,
                      DT_STRING, DT_QINT8, DT_FLOAT_REF}) {
    std::printf("  %-12s size %d%s\n", DataTypeString(dt).c_str(),
                DataTypeSize(dt), IsRefType(dt) ? "  (reference type)" : "");
  }
  std::printf("  realnumbertype = {%s}\n",
              DataTypeSliceString(RealNumberTypes()).c_str());

  Section("A tensor: a 2x3 float matrix, filled through an Eigen map");
  Tensor t(DT_FLOAT, TensorShape({2, 3}));
  auto m = t.matrix<float>();
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) m(i, j) = static_cast<float>(i * 3 + j) / 2;
  }
  std::printf("  %s\n", t.DebugString().c_str());
  TensorShape bad;
  Status s = TensorShape::BuildTensorShape({2, -1}, &bad);
  std::printf("  a bad shape is a Status, not a crash: %s\n", s.ToString().c_str());

  Section("An OpDef read from text (the format of TensorFlow's ops.pbtxt)");
  OpDef from_text;
  const char* text = R"pb(
    name: "MatMul"
    input_arg { name: "a" type_attr: "T" }
    input_arg { name: "b" type_attr: "T" }
    output_arg { name: "product" type_attr: "T" }
    attr { name: "transpose_a" type: "bool" default_value { b: false } }
    attr { name: "transpose_b" type: "bool" default_value { b: false } }
    attr {
      name: "T"
      type: "type"
      allowed_values { list { type: DT_FLOAT type: DT_DOUBLE } }
    }
  )pb";
  if (!google::protobuf::TextFormat::ParseFromString(text, &from_text)) {
    return Fail(errors::Internal("the OpDef text did not parse"));
  }
  if (Status v = ValidateOpDef(from_text); !v.ok()) return Fail(v);
  std::printf("  %s\n", SummarizeOpDef(from_text).c_str());

  Section("Ops registered with REGISTER_OP");
  const OpRegistrationData* keep_first = nullptr;
  if (Status l = OpRegistry::Global()->LookUp("KeepFirst", &keep_first); !l.ok()) {
    return Fail(l);
  }
  std::printf("  %s\n", SummarizeOpDef(keep_first->op_def).c_str());
  std::printf("  declared at %s\n", keep_first->origin.ToString().c_str());
  const OpRegistrationData* missing = nullptr;
  Status nf = OpRegistry::Global()->LookUp("KeepFrist", &missing);
  std::printf("  looking up a misspelt op: %s\n", nf.ToString().c_str());

  Section("Kernels: MatMul run eagerly by the built-in Eigen kernel");
  auto ctx_or = EagerContext::Create();
  if (!ctx_or.ok()) return Fail(ctx_or.status());
  EagerContext& ctx = **ctx_or;
  Tensor a(DT_FLOAT, TensorShape({2, 2})), b(DT_FLOAT, TensorShape({2, 2}));
  a.flat<float>().setValues({1, 2, 3, 4});
  b.flat<float>().setValues({5, 6, 7, 8});
  std::vector<Tensor> out;
  if (Status r = ctx.Run("MatMul", {a, b}, &out); !r.ok()) return Fail(r);
  std::printf("  [[1,2],[3,4]] x [[5,6],[7,8]] = %s\n",
              out[0].SummarizeValue(10).c_str());
  auto explained = ctx.Explain("MatMul", {DT_FLOAT, DT_FLOAT});
  if (!explained.ok()) return Fail(explained.status());
  {
    // The report has one line per registered MatMul kernel; show the head.
    const std::string report = explained->ToString();
    size_t cut = 0;
    for (int line = 0; line < 4 && cut != std::string::npos; ++line) {
      cut = report.find('\n', cut == 0 ? 0 : cut + 1);
    }
    std::printf("  why this kernel (ExplainKernelSelection):\n%s\n  ... %zu candidates in all; winner: %s\n",
                report.substr(0, cut).c_str(), explained->candidates.size(),
                explained->candidates[explained->winner].kernel_class_name.c_str());
  }

  Section("Replacing the built-in CPU MatMul at run time, without a rebuild");
  const int64_t n = 256;
  Tensor x(DT_FLOAT, TensorShape({n, n})), y(DT_FLOAT, TensorShape({n, n}));
  x.flat<float>().setRandom();
  y.flat<float>().setRandom();
  auto matmul = ctx.Prepare("MatMul", {DT_FLOAT, DT_FLOAT});
  if (!matmul.ok()) return Fail(matmul.status());
  Status run;
  double builtin_ms = BestMillis(matmul->get(), {x, y}, &out, &run);
  if (!run.ok()) return Fail(run);
  Tensor builtin_result = out[0];
  std::printf("  built-in:  %-28s %7.2f ms for %ldx%ld\n",
              (*matmul)->kernel_class_name().c_str(), builtin_ms, n, n);

  // TensorFlow's answer to a second CPU float MatMul kernel: ambiguity, at
  // every run of the op. opkit gives it when the kernel is registered.
  KernelRegistry* kernels = KernelRegistry::Global();
  {
    Status ambiguous = kernels->Register(NaiveMatMulRegistration(/*priority=*/0));
    if (ambiguous.ok()) return Fail(errors::Internal("a tied kernel was accepted"));
    std::printf("  a second kernel at the same priority is refused when registered:\n    %s\n",
                ambiguous.ToString().c_str());
  }
  // opkit's answers: a priority (here through a scoped override), or
  // unregistering the built-in kernel.
  {
    auto override_or =
        ScopedKernelOverride::Create(kernels, NaiveMatMulRegistration(/*priority=*/0));
    if (!override_or.ok()) return Fail(override_or.status());
    double naive_ms = BestMillis(matmul->get(), {x, y}, &out, &run);
    if (!run.ok()) return Fail(run);
    float max_diff = 0;
    auto p = out[0].flat<float>();
    auto q = builtin_result.flat<float>();
    for (int64_t i = 0; i < p.size(); ++i) max_diff = std::max(max_diff, std::abs(p(i) - q(i)));
    std::printf("  override:  %-28s %7.2f ms (%.1fx the built-in's time; same result to %.1e)\n",
                (*matmul)->kernel_class_name().c_str(), naive_ms, naive_ms / builtin_ms,
                max_diff);
  }
  double restored_ms = BestMillis(matmul->get(), {x, y}, &out, &run);
  if (!run.ok()) return Fail(run);
  std::printf("  restored:  %-28s %7.2f ms (the override ended, the same PreparedOp re-selected)\n",
              (*matmul)->kernel_class_name().c_str(), restored_ms);

  Section("A custom-op library written for TensorFlow, built and loaded at run time");
  // examples/zero_out/*.cc are the sources of TensorFlow's "Adding a new op"
  // guide, compiled unchanged against compat/ by opkit_add_op_library().
  auto zero_out_lib = LoadOpLibrary(OPKIT_TOUR_ZERO_OUT_LIB);
  if (!zero_out_lib.ok()) return Fail(zero_out_lib.status());
  std::printf("  loaded %s\n  ops:", zero_out_lib->path().c_str());
  for (const OpDef& op : zero_out_lib->op_list().op()) std::printf(" %s", op.name().c_str());
  std::printf("\n  %d kernels; the first: %s\n", zero_out_lib->kernel_list().kernel_size(),
              zero_out_lib->kernel_list().kernel(0).ShortDebugString().c_str());
  Tensor to_zero(DT_INT32, TensorShape({2, 2}));
  to_zero.flat<int32>().setValues({1, 2, 3, 4});
  if (Status r = ctx.Run("ZeroOut", {to_zero}, &out); !r.ok()) return Fail(r);
  std::printf("  ZeroOut([[1, 2], [3, 4]]) = %s\n", out[0].SummarizeValue(10).c_str());
  auto again = LoadOpLibrary(OPKIT_TOUR_ZERO_OUT_LIB);
  std::printf("  loading it again returns the same library: %s\n",
              again.ok() && *again == *zero_out_lib ? "yes" : "no");

  Section("A graph in TensorFlow's GraphDef format, run by a Session");
  GraphDef graph_def;
  if (Status p = ParseGraphDefText(kGraph, &graph_def); !p.ok()) return Fail(p);
  auto session_or = Session::New();
  if (!session_or.ok()) return Fail(session_or.status());
  Session& session = **session_or;
  if (Status c = session.Create(graph_def); !c.ok()) return Fail(c);
  std::printf("  %d nodes: x -> MatMul(w) -> BiasAdd(b) -> Relu -> y; a VariableV2 step counter\n",
              graph_def.node_size());
  if (Status i = session.Run({}, {}, {"init"}, &out); !i.ok()) return Fail(i);
  Tensor feed(DT_FLOAT, TensorShape({2, 2}));
  feed.flat<float>().setValues({1, 2, -1, 1});
  for (int step = 1; step <= 3; ++step) {
    feed.flat<float>()(0) = static_cast<float>(step);
    if (Status r = session.Run({{"x:0", feed}}, {"y:0", "count:0"}, {}, &out); !r.ok()) {
      return Fail(r);
    }
    std::printf("  run %d: x = %s  y = %s  steps = %s\n", step,
                feed.SummarizeValue(4).c_str(), out[0].SummarizeValue(4).c_str(),
                out[1].SummarizeValue(1).c_str());
  }
  Status no_feed = session.Run({}, {"y:0"}, {}, &out);
  std::printf("  forgetting the feed: %s\n", no_feed.ToString().c_str());

  Section("A real replacement kernel: a BLAS library loaded over the built-in MatMul");
#ifdef OPKIT_TOUR_BLAS_MATMUL_LIB
  {
    const int64_t big = 1024;
    Tensor p(DT_FLOAT, TensorShape({big, big})), q(DT_FLOAT, TensorShape({big, big}));
    p.flat<float>().setRandom();
    q.flat<float>().setRandom();
    const double gflop = 2.0 * big * big * big / 1e9;
    double eigen_ms = BestMillis(matmul->get(), {p, q}, &out, &run);
    if (!run.ok()) return Fail(run);
    Tensor eigen_result = out[0];
    std::printf("  built-in:  %-28s %7.2f ms for %ld^3 (%.0f GFLOP/s)\n",
                (*matmul)->kernel_class_name().c_str(), eigen_ms, big, gflop / eigen_ms * 1e3);
    auto blas = LoadOpLibrary(OPKIT_TOUR_BLAS_MATMUL_LIB);
    if (!blas.ok()) return Fail(blas.status());
    double blas_ms = BestMillis(matmul->get(), {p, q}, &out, &run);
    if (!run.ok()) return Fail(run);
    float max_diff = 0;
    auto u = out[0].flat<float>();
    auto v = eigen_result.flat<float>();
    for (int64_t i = 0; i < u.size(); ++i) max_diff = std::max(max_diff, std::abs(u(i) - v(i)));
    std::printf("  loaded:    %-28s %7.2f ms (%.0f GFLOP/s, %.2fx the built-in's speed; results agree to %.1e)\n",
                (*matmul)->kernel_class_name().c_str(), blas_ms, gflop / blas_ms * 1e3,
                eigen_ms / blas_ms, max_diff);
    if (Status u2 = blas->Unload(); !u2.ok()) return Fail(u2);
    double back_ms = BestMillis(matmul->get(), {p, q}, &out, &run);
    if (!run.ok()) return Fail(run);
    std::printf("  unloaded:  %-28s %7.2f ms (the same PreparedOp, no restart)\n",
                (*matmul)->kernel_class_name().c_str(), back_ms);
  }
#else
  std::printf("  skipped: examples/blas_matmul was not built (apt-get install libopenblas-dev)\n");
#endif

  std::printf("\nThe tour is done.\n");
  return 0;
}

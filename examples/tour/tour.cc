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
#include "opkit/framework/kernel_def_builder.h"
#include "opkit/framework/kernel_registry.h"
#include "opkit/framework/op.h"
#include "opkit/framework/op_def_util.h"
#include "opkit/framework/op_kernel.h"
#include "opkit/framework/op_registry.h"
#include "opkit/framework/op_requires.h"
#include "opkit/framework/tensor.h"
#include "opkit/framework/types.h"
#include "opkit/runtime/eager_context.h"

// An op declared the way TensorFlow's users write it. REGISTER_OP only
// records it; the global registry commits it on first use.
REGISTER_OP("ZeroOut")
    .Attr("T: {float, int32} = DT_INT32")
    .Input("to_zero: T")
    .Output("zeroed: T")
    .Doc(R"doc(
Zeroes all but the first element of a tensor.

to_zero: A tensor of any shape.
zeroed: A tensor of the same shape; its first element is to_zero's first.
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
  const OpRegistrationData* zero_out = nullptr;
  if (Status l = OpRegistry::Global()->LookUp("ZeroOut", &zero_out); !l.ok()) {
    return Fail(l);
  }
  std::printf("  %s\n", SummarizeOpDef(zero_out->op_def).c_str());
  std::printf("  declared at %s\n", zero_out->origin.ToString().c_str());
  const OpRegistrationData* missing = nullptr;
  Status nf = OpRegistry::Global()->LookUp("ZeroOutt", &missing);
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

  // TensorFlow's answer to a second CPU float MatMul kernel: ambiguity.
  KernelRegistry* kernels = KernelRegistry::Global();
  {
    Status s = kernels->Register(NaiveMatMulRegistration(/*priority=*/0));
    if (!s.ok()) return Fail(s);
    Status ambiguous = (*matmul)->Run({x, y}, &out);
    std::printf("  a second kernel at the same priority is refused at the next call:\n    %s\n",
                ambiguous.ToString().c_str());
    auto removed = kernels->Unregister(
        KernelFilter().Op("MatMul").KernelClass("NaiveMatMulOp"));
    if (!removed.ok()) return Fail(removed.status());
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

  std::printf("\nThe tour is done.\n");
  return 0;
}

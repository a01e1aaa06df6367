// Test-only: the kernels and the OpKernelTest fixture that op_kernel_test.cc
// and op_kernel_context_test.cc share. The fixture builds its own op and
// kernel registries and a CPU device; its kernels are registered directly
// (REGISTER_KERNEL_BUILDER is exercised in op_kernel_test.cc alone).
#ifndef OPKIT_KERNEL_TESTING_OP_KERNEL_TEST_FIXTURE_H_
#define OPKIT_KERNEL_TESTING_OP_KERNEL_TEST_FIXTURE_H_

#include "opkit/kernel/op_kernel.h"

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/device/device.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/op/op_registry.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace kernel_test {

using ::opkit::testing::IsOk;

// ---------------------------------------------------------------------------
// Test kernels.

// Reads every kind of attr in its constructor.
class AttrKernel : public OpKernel {
 public:
  explicit AttrKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("s", &s));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("i", &i));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("i", &i32));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("f", &f));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("b", &b));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("t", &t));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("sh", &sh));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("sh", &psh));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("sh", &sh_proto));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("te", &te));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("te", &te_proto));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("fn", &fn));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("ls", &ls));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("li", &li));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("li", &li32));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("lf", &lf));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("lb", &lb));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("lt", &lt));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("lsh", &lsh));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("lsh", &lpsh));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("lte", &lte));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("lfn", &lfn));
    has_s = ctx->HasAttr("s");
    has_missing = ctx->HasAttr("missing");
    graph_def_version = ctx->graph_def_version();
  }
  void Compute(OpKernelContext*) override {}

  std::string s;
  int64 i = 0;
  int32 i32 = 0;
  float f = 0;
  bool b = false;
  DataType t = DT_INVALID;
  TensorShape sh;
  PartialTensorShape psh;
  TensorShapeProto sh_proto;
  Tensor te;
  const TensorProto* te_proto = nullptr;
  NameAttrList fn;
  std::vector<std::string> ls;
  std::vector<int64> li;
  std::vector<int32> li32;
  std::vector<float> lf;
  std::vector<bool> lb;
  std::vector<DataType> lt;
  std::vector<TensorShape> lsh;
  std::vector<PartialTensorShape> lpsh;
  std::vector<Tensor> lte;
  std::vector<NameAttrList> lfn;
  bool has_s = false;
  bool has_missing = true;
  int graph_def_version = -1;
};

// Compute() runs whatever the test installs; the constructor may fail on
// request (attr "fail" true).
using ComputeFn = std::function<void(OpKernelContext*)>;
inline ComputeFn* g_compute = nullptr;

class FnKernel : public OpKernel {
 public:
  explicit FnKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    bool fail = false;
    if (ctx->HasAttr("fail")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("fail", &fail));
    }
    OP_REQUIRES(ctx, !fail,
                errors::InvalidArgument("constructor asked to fail"));
  }
  void Compute(OpKernelContext* ctx) override {
    if (g_compute != nullptr) (*g_compute)(ctx);
  }
};

// Adds two float tensors on the device's Eigen thread pool, reusing an input
// buffer when it can.
class AddFloatKernel : public OpKernel {
 public:
  explicit AddFloatKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  // Defined in op_kernel_test.cc, whose name a test expects to see as the
  // location of the OP_REQUIRES failure.
  void Compute(OpKernelContext* ctx) override;
  int forwarded = -2;  // Written by Compute; the tests run it on one thread.
};

// Completes on another thread.
class AsyncKernel : public AsyncOpKernel {
 public:
  explicit AsyncKernel(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {}
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES_ASYNC(ctx, x.NumElements() > 0,
                      errors::InvalidArgument("empty input"), done);
    std::thread([ctx, done = std::move(done)]() {
      const Tensor& in = ctx->input(0);
      Tensor* out = nullptr;
      OP_REQUIRES_OK_ASYNC(ctx, ctx->allocate_output(0, in.shape(), &out),
                           done);
      out->flat<float>() = in.flat<float>() * 3.0f;
      done();
    }).detach();
  }
};

// ---------------------------------------------------------------------------
// Fixture.

template <typename K>
OpKernel* Make(OpKernelConstruction* ctx) {
  return new K(ctx);
}

class OpKernelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto device = CpuDevice::Create("/device:CPU:0", 2);
    ASSERT_THAT(device, IsOk());
    device_ = std::move(device).value();
    AddOp(OpDefBuilder("AttrOp")
              .Attr("s: string = 'hello'")
              .Attr("i: int = 7")
              .Attr("f: float")
              .Attr("b: bool")
              .Attr("t: type")
              .Attr("sh: shape")
              .Attr("te: tensor")
              .Attr("fn: func")
              .Attr("ls: list(string)")
              .Attr("li: list(int)")
              .Attr("lf: list(float)")
              .Attr("lb: list(bool)")
              .Attr("lt: list(type)")
              .Attr("lsh: list(shape)")
              .Attr("lte: list(tensor)")
              .Attr("lfn: list(func)"));
    AddOp(OpDefBuilder("Fn")
              .Attr("N: int >= 1")
              .Attr("T: type")
              .Attr("L: list(type) >= 0")
              .Attr("fail: bool = false")
              .Input("a: N * T")
              .Input("b: L")
              .Input("c: float")
              .Output("out: N * T")
              .Output("single: float"));
    AddOp(OpDefBuilder("Add")
              .Input("x: float")
              .Input("y: float")
              .Output("z: float"));
    AddOp(OpDefBuilder("Async").Input("x: float").Output("y: float"));
    AddOp(OpDefBuilder("RefOp")
              .Input("r: Ref(float)")
              .Input("v: float")
              .Output("o: float"));
    AddOp(OpDefBuilder("RefOut")
              .Input("r: Ref(float)")
              .Input("v: float")
              .Output("o: Ref(float)")
              .Output("p: float"));
    AddOp(OpDefBuilder("MacroScale")
              .Attr("T: {float, int32, double}")
              .Input("x: T")
              .Output("y: T"));
    kernels_ = std::make_unique<KernelRegistry>(&ops_);
    RegisterKernel<AttrKernel>("AttrOp", "AttrKernel");
    RegisterKernel<FnKernel>("Fn", "FnKernel");
    RegisterKernel<AddFloatKernel>("Add", "AddKernel");
    RegisterKernel<AsyncKernel>("Async", "AsyncKernel");
    RegisterKernel<FnKernel>("RefOp", "FnKernel");
    RegisterKernel<FnKernel>("RefOut", "FnKernel");
  }

  void TearDown() override { g_compute = nullptr; }

  void AddOp(const OpDefBuilder& builder) {
    OpRegistrationData data;
    ASSERT_THAT(builder.Finalize(&data), IsOk());
    ASSERT_THAT(ops_.Register(std::move(data)), IsOk());
  }

  template <typename K>
  void RegisterKernel(const char* op, const char* class_name) {
    KernelRegistration reg;
    reg.def = KernelDefBuilder(op).Device(DEVICE_CPU).BuildDef();
    reg.kernel_class_name = class_name;
    reg.factory = &Make<K>;
    reg.origin = RegistrationOrigin{__FILE__, __LINE__, ""};
    ASSERT_THAT(kernels_->Register(std::move(reg)), IsOk());
  }

  Status Create(const NodeDef& node, std::unique_ptr<OpKernel>* kernel) {
    return CreateOpKernel(DeviceType(DEVICE_CPU), device_.get(), nullptr, node,
                          /*graph_def_version=*/42, ops_, *kernels_, kernel);
  }

  // A Fn node with N `a` inputs of type T, `b` inputs of types L, one `c`.
  static NodeDef FnNode(int n, DataType t, const std::vector<DataType>& l) {
    NodeDef node;
    node.set_name("fn_node");
    node.set_op("Fn");
    AddNodeAttr("N", n, &node);
    AddNodeAttr("T", t, &node);
    AddNodeAttr("L", l, &node);
    for (int i = 0; i < n + static_cast<int>(l.size()) + 1; ++i) {
      node.add_input("in" + std::to_string(i));
    }
    return node;
  }

  static NodeDef AddNode() {
    NodeDef node;
    node.set_name("add");
    node.set_op("Add");
    node.add_input("x");
    node.add_input("y");
    return node;
  }

  static Tensor Floats(std::vector<float> v) {
    Tensor t(DT_FLOAT, TensorShape({static_cast<int64_t>(v.size())}));
    for (size_t i = 0; i < v.size(); ++i) t.flat<float>()(i) = v[i];
    return t;
  }

  // A context over `kernel` with `inputs` (kept alive by the caller).
  struct Call {
    std::vector<TensorValue> values;
    OpKernelContext::Params params;
    std::unique_ptr<OpKernelContext> ctx;
  };
  std::unique_ptr<Call> MakeCall(OpKernel* kernel, std::vector<Tensor>* inputs) {
    auto call = std::make_unique<Call>();
    for (Tensor& t : *inputs) call->values.emplace_back(&t);
    call->params.op_kernel = kernel;
    call->params.device = device_.get();
    call->params.inputs = &call->values;
    call->params.step_id = 17;
    call->ctx = std::make_unique<OpKernelContext>(&call->params);
    return call;
  }

  OpRegistry ops_;
  std::unique_ptr<KernelRegistry> kernels_;
  std::unique_ptr<Device> device_;
};

}  // namespace kernel_test
}  // namespace opkit

#endif  // OPKIT_KERNEL_TESTING_OP_KERNEL_TEST_FIXTURE_H_

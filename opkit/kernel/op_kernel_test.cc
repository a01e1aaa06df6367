// Tests of OpKernel, OpKernelConstruction, OpKernelContext, the OP_REQUIRES
// macros, REGISTER_KERNEL_BUILDER and CreateOpKernel. Each test builds its
// own op and kernel registries.

// A kernel class this file registers but selective registration drops.
#define SHOULD_REGISTER_OP_KERNEL(clz) \
  (!::opkit::SelectiveNameEquals(clz, "DroppedKernel"))

#include "opkit/kernel/op_kernel.h"

#include <atomic>
#include <functional>
#include <stdexcept>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/device/device.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/op/node_def_util.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/op/op_registry.h"
#include "opkit/resource/resource_mgr.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

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
ComputeFn* g_compute = nullptr;

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
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    OP_REQUIRES(ctx, x.shape() == y.shape(),
                errors::InvalidArgument("shapes differ: ",
                                        x.shape().DebugString(), " vs ",
                                        y.shape().DebugString()));
    Tensor* z = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0, 1}, 0, x.shape(), &z, &forwarded));
    z->flat<float>().device(ctx->eigen_device<Eigen::ThreadPoolDevice>()) =
        x.flat<float>() + y.flat<float>();
  }
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

template <typename T, int kScale>
class ScaleKernel : public OpKernel {
 public:
  explicit ScaleKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    y->flat<T>() = x.flat<T>() * static_cast<T>(kScale);
  }
};

class DroppedKernel : public OpKernel {
 public:
  explicit DroppedKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext*) override {}
};

// Registrations through the macro; the tests take them from the pending
// list into their own registry.
REGISTER_KERNEL_BUILDER(Name("MacroScale").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        ScaleKernel<float, 2>);
REGISTER_KERNEL_BUILDER(Name("MacroScale").Device(DEVICE_CPU).TypeConstraint<int32>("T"),
                        ScaleKernel<int32, 3>);
REGISTER_KERNEL_BUILDER(Name("MacroScale").Device(DEVICE_CPU).TypeConstraint<double>("T"),
                        DroppedKernel);

// The registrations above, taken from the pending list once per process
// (so that the test does not depend on test order, and the global registry
// never sees them).
const std::vector<PendingKernelRegistration>& MacroRegistrations() {
  static const auto* const taken = [] {
    auto* mine = new std::vector<PendingKernelRegistration>();
    for (auto& p : TakePendingKernelRegistrations()) {
      if (p.registration.def.op() == "MacroScale") mine->push_back(std::move(p));
    }
    return mine;
  }();
  return *taken;
}

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

// ---------------------------------------------------------------------------
// Construction.

TEST_F(OpKernelTest, GetAttrReadsEveryKind) {
  NodeDef node;
  node.set_name("attrs");
  node.set_op("AttrOp");
  node.set_device("/device:CPU:0");
  AddNodeAttr("f", 2.5f, &node);
  AddNodeAttr("b", true, &node);
  AddNodeAttr("t", DT_DOUBLE, &node);
  AddNodeAttr("sh", TensorShape({2, 3}), &node);
  AddNodeAttr("te", Tensor(static_cast<int32>(9)), &node);
  NameAttrList fn;
  fn.set_name("my_fn");
  AddNodeAttr("fn", fn, &node);
  AddNodeAttr("ls", std::vector<std::string>{"a", "b"}, &node);
  AddNodeAttr("li", std::vector<int64>{1, 2, 3}, &node);
  AddNodeAttr("lf", std::vector<float>{0.5f}, &node);
  AddNodeAttr("lb", std::vector<bool>{true, false}, &node);
  AddNodeAttr("lt", std::vector<DataType>{DT_FLOAT, DT_BOOL}, &node);
  AddNodeAttr("lsh", std::vector<TensorShape>{TensorShape({1}), TensorShape({4, 5})},
              &node);
  AddNodeAttr("lte", std::vector<Tensor>{Tensor(1.0f), Tensor(2.0f)}, &node);
  AddNodeAttr("lfn", std::vector<NameAttrList>{fn}, &node);

  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(Create(node, &kernel), IsOk());
  auto* k = dynamic_cast<AttrKernel*>(kernel.get());
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->s, "hello");  // Default applied.
  EXPECT_EQ(k->i, 7);
  EXPECT_EQ(k->i32, 7);
  EXPECT_EQ(k->f, 2.5f);
  EXPECT_TRUE(k->b);
  EXPECT_EQ(k->t, DT_DOUBLE);
  EXPECT_EQ(k->sh, TensorShape({2, 3}));
  EXPECT_EQ(k->psh, PartialTensorShape({2, 3}));
  EXPECT_EQ(k->sh_proto.dim_size(), 2);
  EXPECT_EQ(k->te.dtype(), DT_INT32);
  EXPECT_EQ(k->te.scalar<int32>()(), 9);
  ASSERT_NE(k->te_proto, nullptr);
  EXPECT_EQ(k->te_proto->dtype(), DT_INT32);
  EXPECT_EQ(k->fn.name(), "my_fn");
  EXPECT_THAT(k->ls, ElementsAre("a", "b"));
  EXPECT_THAT(k->li, ElementsAre(1, 2, 3));
  EXPECT_THAT(k->li32, ElementsAre(1, 2, 3));
  EXPECT_THAT(k->lf, ElementsAre(0.5f));
  EXPECT_THAT(k->lb, ElementsAre(true, false));
  EXPECT_THAT(k->lt, ElementsAre(DT_FLOAT, DT_BOOL));
  ASSERT_EQ(k->lsh.size(), 2u);
  EXPECT_EQ(k->lsh[1], TensorShape({4, 5}));
  ASSERT_EQ(k->lpsh.size(), 2u);
  EXPECT_EQ(k->lpsh[0], PartialTensorShape({1}));
  ASSERT_EQ(k->lte.size(), 2u);
  EXPECT_EQ(k->lte[1].scalar<float>()(), 2.0f);
  ASSERT_EQ(k->lfn.size(), 1u);
  EXPECT_EQ(k->lfn[0].name(), "my_fn");
  EXPECT_TRUE(k->has_s);
  EXPECT_FALSE(k->has_missing);
  EXPECT_EQ(k->graph_def_version, 42);

  EXPECT_EQ(kernel->name(), "attrs");
  EXPECT_EQ(kernel->type_string(), "AttrOp");
  EXPECT_EQ(kernel->requested_device(), "/device:CPU:0");
  EXPECT_EQ(kernel->num_inputs(), 0);
  EXPECT_EQ(kernel->num_outputs(), 0);
  EXPECT_EQ(kernel->def().attr().count("s"), 1u);
  EXPECT_EQ(kernel->AsAsync(), nullptr);
  EXPECT_TRUE(kernel->IsExpensive());
}

TEST_F(OpKernelTest, GetAttrErrorsAreReturned) {
  NodeDef node = FnNode(1, DT_FLOAT, {});
  auto props_or = std::shared_ptr<const NodeProperties>();
  ASSERT_THAT(NodeProperties::CreateFromNodeDef(node, ops_, &props_or), IsOk());
  Status status;
  OpKernelConstruction ctx(DeviceType(DEVICE_CPU), device_.get(), nullptr,
                           props_or, 3, &status);
  std::string s;
  EXPECT_THAT(ctx.GetAttr("N", &s),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("'int'")));
  int64 n = 0;
  EXPECT_THAT(ctx.GetAttr("nope", &n),
              StatusIs(error::NOT_FOUND, HasSubstr("No attr named 'nope'")));
  // Returned, not recorded.
  EXPECT_THAT(status, IsOk());
  EXPECT_EQ(ctx.num_inputs(), 2);
  EXPECT_EQ(ctx.num_outputs(), 2);
  EXPECT_EQ(ctx.input_type(0), DT_FLOAT);
  EXPECT_EQ(ctx.output_type(1), DT_FLOAT);
  EXPECT_EQ(ctx.device(), device_.get());
  EXPECT_EQ(ctx.device_type(), DeviceType(DEVICE_CPU));
  EXPECT_NE(ctx.allocator(), nullptr);
  EXPECT_EQ(ctx.resource_manager(), device_->resource_manager());
  EXPECT_EQ(ctx.graph_def_version(), 3);

  EXPECT_EQ(ctx.input_type(5), DT_INVALID);
  EXPECT_THAT(status, StatusIs(error::INTERNAL, HasSubstr("input_type(5)")));

  Tensor temp;
  EXPECT_THAT(ctx.allocate_temp(DT_INT64, TensorShape({3}), &temp), IsOk());
  EXPECT_EQ(temp.NumElements(), 3);
}

TEST_F(OpKernelTest, MatchSignature) {
  std::shared_ptr<const NodeProperties> props;
  ASSERT_THAT(NodeProperties::CreateFromNodeDef(AddNode(), ops_, &props),
              IsOk());
  Status status;
  OpKernelConstruction ctx(DeviceType(DEVICE_CPU), nullptr, nullptr, props, 0,
                           &status);
  EXPECT_THAT(ctx.MatchSignature({DT_FLOAT, DT_FLOAT}, {DT_FLOAT}), IsOk());
  EXPECT_THAT(status, IsOk());
  EXPECT_THAT(ctx.MatchSignature({DT_INT32, DT_FLOAT}, {DT_FLOAT}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Signature mismatch, have: float, "
                                 "float->float expected: int32, "
                                 "float->float")));
  EXPECT_THAT(status, StatusIs(error::INVALID_ARGUMENT,
                               HasSubstr("Signature mismatch")));
}

TEST_F(OpKernelTest, ConstructionWithoutPropertiesIsAnError) {
  Status status;
  OpKernelConstruction ctx(DeviceType(DEVICE_CPU), nullptr, nullptr, nullptr,
                           0, &status);
  EXPECT_THAT(status, StatusIs(error::INVALID_ARGUMENT,
                               HasSubstr("no NodeProperties")));
  EXPECT_EQ(ctx.num_inputs(), 0);
  EXPECT_EQ(ctx.allocator(), cpu_allocator());
}

TEST_F(OpKernelTest, FailingConstructorReturnsStatusWithNode) {
  NodeDef node = FnNode(1, DT_FLOAT, {});
  AddNodeAttr("fail", true, &node);
  std::unique_ptr<OpKernel> kernel;
  EXPECT_THAT(Create(node, &kernel),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("constructor asked to fail")));
  EXPECT_THAT(Create(node, &kernel),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("{{node fn_node}}")));
  EXPECT_EQ(kernel, nullptr);
}

TEST_F(OpKernelTest, CreateOpKernelErrors) {
  std::unique_ptr<OpKernel> kernel;
  NodeDef unknown;
  unknown.set_name("u");
  unknown.set_op("NoSuchOp");
  EXPECT_THAT(Create(unknown, &kernel),
              StatusIs(error::NOT_FOUND, HasSubstr("NoSuchOp")));

  // ValidateNodeDef: a required attr is missing.
  NodeDef missing;
  missing.set_name("m");
  missing.set_op("Fn");
  missing.add_input("a");
  EXPECT_THAT(Create(missing, &kernel),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("missing attr")));

  // No kernel on that device.
  std::unique_ptr<OpKernel> gpu;
  EXPECT_THAT(CreateOpKernel(DeviceType(DEVICE_GPU), nullptr, nullptr,
                             AddNode(), 0, ops_, *kernels_, &gpu),
              StatusIs(error::NOT_FOUND, HasSubstr("No OpKernel")));
  EXPECT_EQ(gpu, nullptr);

  // A selection without a factory, or without properties.
  std::shared_ptr<const NodeProperties> props;
  ASSERT_THAT(NodeProperties::CreateFromNodeDef(AddNode(), ops_, &props),
              IsOk());
  KernelSelection empty;
  EXPECT_THAT(CreateOpKernel(empty, DeviceType(DEVICE_CPU), nullptr, nullptr,
                             props, 0, &kernel),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("no factory")));
  EXPECT_THAT(CreateOpKernel(empty, DeviceType(DEVICE_CPU), nullptr, nullptr,
                             nullptr, 0, &kernel),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("NodeProperties")));

  // A factory that returns null without an error, and one that throws.
  KernelSelection null_factory;
  null_factory.factory = [](OpKernelConstruction*) -> OpKernel* {
    return nullptr;
  };
  EXPECT_THAT(CreateOpKernel(null_factory, DeviceType(DEVICE_CPU), nullptr,
                             nullptr, props, 0, &kernel),
              StatusIs(error::INTERNAL, HasSubstr("returned no kernel")));
  KernelSelection throwing;
  throwing.factory = [](OpKernelConstruction*) -> OpKernel* {
    throw std::runtime_error("boom");
  };
  EXPECT_THAT(CreateOpKernel(throwing, DeviceType(DEVICE_CPU), nullptr,
                             nullptr, props, 0, &kernel),
              StatusIs(error::INTERNAL, HasSubstr("boom")));
}

TEST_F(OpKernelTest, KernelHoldsLibraryOwner) {
  std::shared_ptr<const NodeProperties> props;
  ASSERT_THAT(NodeProperties::CreateFromNodeDef(AddNode(), ops_, &props),
              IsOk());
  auto owner = std::make_shared<int>(5);
  std::weak_ptr<int> weak = owner;
  KernelSelection selection;
  selection.factory = &Make<AddFloatKernel>;
  selection.owner = owner;
  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(CreateOpKernel(selection, DeviceType(DEVICE_CPU), nullptr,
                             nullptr, props, 0, &kernel),
              IsOk());
  owner.reset();
  selection.owner.reset();
  EXPECT_FALSE(weak.expired());
  EXPECT_NE(kernel->library_owner(), nullptr);
  kernel.reset();
  EXPECT_TRUE(weak.expired());
}

TEST_F(OpKernelTest, ArgumentRanges) {
  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(Create(FnNode(3, DT_INT32, {DT_FLOAT, DT_BOOL}), &kernel),
              IsOk());
  EXPECT_EQ(kernel->num_inputs(), 6);
  EXPECT_EQ(kernel->num_outputs(), 4);
  EXPECT_THAT(kernel->input_types(),
              ElementsAre(DT_INT32, DT_INT32, DT_INT32, DT_FLOAT, DT_BOOL,
                          DT_FLOAT));
  EXPECT_EQ(kernel->input_type(4), DT_BOOL);
  EXPECT_EQ(kernel->input_type(6), DT_INVALID);
  EXPECT_EQ(kernel->output_type(-1), DT_INVALID);
  int start = 0, stop = 0;
  ASSERT_THAT(kernel->InputRange("b", &start, &stop), IsOk());
  EXPECT_EQ(start, 3);
  EXPECT_EQ(stop, 5);
  ASSERT_THAT(kernel->OutputRange("single", &start, &stop), IsOk());
  EXPECT_EQ(start, 3);
  EXPECT_EQ(stop, 4);
  EXPECT_THAT(kernel->InputRange("zz", &start, &stop),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Unknown input name: zz")));
  EXPECT_THAT(kernel->OutputRange("zz", &start, &stop),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Unknown output name: zz")));
}

// ---------------------------------------------------------------------------
// The context.

class ContextTest : public OpKernelTest {
 protected:
  void SetUp() override {
    OpKernelTest::SetUp();
    ASSERT_THAT(Create(FnNode(2, DT_INT32, {DT_FLOAT}), &kernel_), IsOk());
    inputs_ = {Tensor(static_cast<int32>(1)), Tensor(static_cast<int32>(2)),
               Tensor(3.0f), Tensor(4.0f)};
  }
  std::unique_ptr<OpKernel> kernel_;
  std::vector<Tensor> inputs_;
};

TEST_F(ContextTest, InputsByIndexAndName) {
  auto call = MakeCall(kernel_.get(), &inputs_);
  OpKernelContext& ctx = *call->ctx;
  ASSERT_THAT(ctx.status(), IsOk());
  EXPECT_EQ(ctx.num_inputs(), 4);
  EXPECT_EQ(ctx.num_outputs(), 3);
  EXPECT_EQ(ctx.step_id(), 17);
  EXPECT_EQ(ctx.device(), device_.get());
  EXPECT_EQ(ctx.resource_manager(), device_->resource_manager());
  EXPECT_EQ(&ctx.op_kernel(), kernel_.get());
  EXPECT_EQ(ctx.input(1).scalar<int32>()(), 2);
  EXPECT_EQ(ctx.input_dtype(2), DT_FLOAT);
  EXPECT_FALSE(ctx.input_is_ref(0));
  EXPECT_TRUE(ctx.has_input(3));
  EXPECT_FALSE(ctx.has_input(4));

  const Tensor* c = nullptr;
  ASSERT_THAT(ctx.input("c", &c), IsOk());
  EXPECT_EQ(c->scalar<float>()(), 4.0f);
  DataType dt = DT_INVALID;
  ASSERT_THAT(ctx.input_dtype("c", &dt), IsOk());
  EXPECT_EQ(dt, DT_FLOAT);
  // A list of one element may be read as a single input (TensorFlow's rule).
  const Tensor* b = nullptr;
  ASSERT_THAT(ctx.input("b", &b), IsOk());
  EXPECT_EQ(b->scalar<float>()(), 3.0f);

  OpInputList a;
  ASSERT_THAT(ctx.input_list("a", &a), IsOk());
  ASSERT_EQ(a.size(), 2);
  EXPECT_EQ(a[0].scalar<int32>()(), 1);
  EXPECT_EQ(a[1].scalar<int32>()(), 2);
  int sum = 0;
  for (const Tensor& t : a) sum += t.scalar<int32>()();
  EXPECT_EQ(sum, 3);
  OpInputList l;
  ASSERT_THAT(ctx.input_list("b", &l), IsOk());
  EXPECT_EQ(l.size(), 1);
  EXPECT_THAT(ctx.status(), IsOk());
}

TEST_F(ContextTest, InputIndexOutOfRangeIsAnError) {
  auto call = MakeCall(kernel_.get(), &inputs_);
  OpKernelContext& ctx = *call->ctx;
  const Tensor& t = ctx.input(4);
  EXPECT_FALSE(t.IsInitialized());
  EXPECT_THAT(ctx.status(),
              StatusIs(error::INTERNAL, HasSubstr("input(4) is out of range")));
  // The first error stays.
  EXPECT_EQ(ctx.input_dtype(-1), DT_INVALID);
  EXPECT_THAT(ctx.status(), StatusIs(error::INTERNAL, HasSubstr("input(4)")));
}

TEST_F(ContextTest, NegativeInputIndexAndListElementAreErrors) {
  auto call = MakeCall(kernel_.get(), &inputs_);
  EXPECT_FALSE(call->ctx->input(-1).IsInitialized());
  EXPECT_THAT(call->ctx->status(),
              StatusIs(error::INTERNAL, HasSubstr("input(-1)")));

  auto call2 = MakeCall(kernel_.get(), &inputs_);
  OpInputList a;
  ASSERT_THAT(call2->ctx->input_list("a", &a), IsOk());
  EXPECT_FALSE(a[2].IsInitialized());
  EXPECT_THAT(call2->ctx->status(),
              StatusIs(error::INTERNAL, HasSubstr("OpInputList index 2")));
}

TEST_F(ContextTest, InputNameErrors) {
  {
    auto call = MakeCall(kernel_.get(), &inputs_);
    const Tensor* t = nullptr;
    EXPECT_THAT(call->ctx->input("nope", &t),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("Unknown input name: nope")));
    EXPECT_EQ(t, nullptr);
    EXPECT_FALSE(call->ctx->status().ok());
  }
  {
    auto call = MakeCall(kernel_.get(), &inputs_);
    const Tensor* t = nullptr;
    EXPECT_THAT(call->ctx->input("a", &t),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("OpKernel used list-valued input name 'a' "
                                   "when single-valued input was expected")));
  }
  {
    auto call = MakeCall(kernel_.get(), &inputs_);
    OpInputList list;
    EXPECT_THAT(call->ctx->input_list("c", &list),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("single-valued input name 'c'")));
    EXPECT_THAT(call->ctx->status(),
                StatusIs(error::INVALID_ARGUMENT, HasSubstr("'c'")));
  }
  {
    auto call = MakeCall(kernel_.get(), &inputs_);
    OpInputList list;
    EXPECT_THAT(call->ctx->input_list("zz", &list),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("Unknown input name: zz")));
  }
}

TEST_F(ContextTest, InputsThatDoNotMatchTheKernelAreReported) {
  std::vector<Tensor> too_few = {Tensor(static_cast<int32>(1))};
  auto call = MakeCall(kernel_.get(), &too_few);
  EXPECT_THAT(call->ctx->status(),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("expects 4 inputs, but 1 input was given")));
  // Still no undefined behaviour.
  EXPECT_FALSE(call->ctx->input(3).IsInitialized());

  std::vector<Tensor> wrong_type = inputs_;
  wrong_type[0] = Tensor(1.0f);
  auto call2 = MakeCall(kernel_.get(), &wrong_type);
  EXPECT_THAT(call2->ctx->status(),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Input 0 of {{node fn_node}} (op Fn) must be "
                                 "int32, but a float tensor was given")));

  OpKernelContext::Params params;  // No kernel.
  OpKernelContext no_kernel(&params);
  EXPECT_THAT(no_kernel.status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("op_kernel is null")));
  EXPECT_FALSE(no_kernel.input(0).IsInitialized());
  EXPECT_EQ(no_kernel.mutable_output(0), nullptr);
}

TEST_F(ContextTest, AllocateAndSetOutputs) {
  auto call = MakeCall(kernel_.get(), &inputs_);
  OpKernelContext& ctx = *call->ctx;
  EXPECT_EQ(ctx.expected_output_dtype(0), DT_INT32);
  EXPECT_EQ(ctx.expected_output_dtype(2), DT_FLOAT);
  Tensor* out = nullptr;
  ASSERT_THAT(ctx.allocate_output(0, TensorShape({2}), &out), IsOk());
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->dtype(), DT_INT32);
  EXPECT_EQ(ctx.mutable_output(0), out);
  ctx.set_output(1, Tensor(static_cast<int32>(5)));
  Tensor* single = nullptr;
  ASSERT_THAT(ctx.allocate_output("single", TensorShape({}), &single), IsOk());
  single->scalar<float>()() = 1.5f;
  EXPECT_THAT(ctx.status(), IsOk());
  EXPECT_THAT(ctx.CheckAllOutputsSet(), IsOk());

  Tensor released;
  ASSERT_THAT(ctx.release_output(2, &released), IsOk());
  EXPECT_EQ(released.scalar<float>()(), 1.5f);
  EXPECT_FALSE(ctx.output_is_set(2));
  EXPECT_THAT(ctx.release_output(2, &released),
              StatusIs(error::INTERNAL, HasSubstr("never set")));
  EXPECT_THAT(ctx.CheckAllOutputsSet(),
              StatusIs(error::INTERNAL,
                       HasSubstr("Missing 2-th output from {{node fn_node}}")));
  EXPECT_THAT(ctx.release_output(7, &released),
              StatusIs(error::INTERNAL, HasSubstr("out of range")));
}

TEST_F(ContextTest, OutputListAllocatesAndSets) {
  auto call = MakeCall(kernel_.get(), &inputs_);
  OpKernelContext& ctx = *call->ctx;
  OpOutputList out;
  ASSERT_THAT(ctx.output_list("out", &out), IsOk());
  ASSERT_EQ(out.size(), 2);
  EXPECT_EQ(out.expected_output_dtype(1), DT_INT32);
  Tensor* t = nullptr;
  ASSERT_THAT(out.allocate(0, TensorShape({3}), &t), IsOk());
  out.set(1, Tensor(static_cast<int32>(8)));
  EXPECT_EQ(out[0], t);
  EXPECT_EQ(out[1]->scalar<int32>()(), 8);
  int count = 0;
  for (Tensor* o : out) count += o != nullptr;
  EXPECT_EQ(count, 2);
  EXPECT_THAT(ctx.status(), IsOk());

  EXPECT_THAT(out.allocate(2, TensorShape({}), &t),
              StatusIs(error::INTERNAL, HasSubstr("OpOutputList index 2")));
  EXPECT_EQ(t, nullptr);

  auto call2 = MakeCall(kernel_.get(), &inputs_);
  EXPECT_THAT(call2->ctx->output_list("single", &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("single-valued output name 'single'")));
}

TEST_F(ContextTest, OutputIndexOutOfRangeIsAnError) {
  auto call = MakeCall(kernel_.get(), &inputs_);
  Tensor* out = reinterpret_cast<Tensor*>(0x1);
  EXPECT_THAT(call->ctx->allocate_output(3, TensorShape({}), &out),
              StatusIs(error::INTERNAL,
                       HasSubstr("allocate_output with bad index=3 "
                                 "num_outputs=3 kernel=fn_node")));
  EXPECT_EQ(out, nullptr);
  EXPECT_THAT(call->ctx->status(),
              StatusIs(error::INTERNAL, HasSubstr("bad index=3")));

  auto call2 = MakeCall(kernel_.get(), &inputs_);
  EXPECT_THAT(call2->ctx->allocate_output(-1, TensorShape({}), &out),
              StatusIs(error::INTERNAL, HasSubstr("bad index=-1")));

  auto call3 = MakeCall(kernel_.get(), &inputs_);
  call3->ctx->set_output(9, Tensor(1.0f));
  EXPECT_THAT(call3->ctx->status(),
              StatusIs(error::INTERNAL, HasSubstr("set_output with bad index=9")));

  auto call4 = MakeCall(kernel_.get(), &inputs_);
  EXPECT_EQ(call4->ctx->mutable_output(3), nullptr);
  EXPECT_EQ(call4->ctx->expected_output_dtype(3), DT_INVALID);
  EXPECT_FALSE(call4->ctx->status().ok());

  auto call5 = MakeCall(kernel_.get(), &inputs_);
  EXPECT_THAT(call5->ctx->allocate_output("nope", TensorShape({}), &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Unknown output name")));
  EXPECT_THAT(call5->ctx->allocate_output("out", TensorShape({}), &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("list-valued output")));
}

TEST_F(ContextTest, OutputAllocatedTwiceIsAnError) {
  auto call = MakeCall(kernel_.get(), &inputs_);
  Tensor* out = nullptr;
  ASSERT_THAT(call->ctx->allocate_output(2, TensorShape({}), &out), IsOk());
  Tensor* again = nullptr;
  EXPECT_THAT(call->ctx->allocate_output(2, TensorShape({}), &again),
              StatusIs(error::INTERNAL, HasSubstr("output 2 of kernel fn_node "
                                                  "is already set")));
  EXPECT_EQ(again, nullptr);
  EXPECT_FALSE(call->ctx->status().ok());

  auto call2 = MakeCall(kernel_.get(), &inputs_);
  call2->ctx->set_output(2, Tensor(1.0f));
  call2->ctx->set_output(2, Tensor(2.0f));
  EXPECT_THAT(call2->ctx->status(),
              StatusIs(error::INTERNAL, HasSubstr("already set")));
  // The first value stays.
  EXPECT_EQ(call2->ctx->mutable_output(2)->scalar<float>()(), 1.0f);
}

TEST_F(ContextTest, SetOutputWithWrongDtypeIsAnError) {
  auto call = MakeCall(kernel_.get(), &inputs_);
  call->ctx->set_output(0, Tensor(1.0f));
  EXPECT_THAT(call->ctx->status(),
              StatusIs(error::INTERNAL,
                       HasSubstr("output 0 of kernel fn_node (op Fn) must be "
                                 "int32, but a float tensor was given")));
  EXPECT_FALSE(call->ctx->output_is_set(0));

  auto call2 = MakeCall(kernel_.get(), &inputs_);
  EXPECT_THAT(call2->ctx->set_output("single", Tensor(static_cast<int32>(1))),
              StatusIs(error::INTERNAL, HasSubstr("must be float")));
}

TEST_F(ContextTest, AllocateTempAndTracking) {
  auto call = MakeCall(kernel_.get(), &inputs_);
  call->params.track_allocations = true;
  Tensor temp;
  ASSERT_THAT(call->ctx->allocate_temp(DT_DOUBLE, TensorShape({4}), &temp),
              IsOk());
  EXPECT_EQ(temp.NumElements(), 4);
  EXPECT_GE(call->ctx->temp_memory_allocated(), 32);
  Tensor* out = nullptr;
  ASSERT_THAT(call->ctx->allocate_output(2, TensorShape({8}), &out), IsOk());
  EXPECT_GE(call->ctx->output_memory_allocated(), 32);
  // A dtype without storage is the allocator's error, returned.
  EXPECT_THAT(call->ctx->allocate_temp(DT_INVALID, TensorShape({1}), &temp),
              StatusIs(error::INVALID_ARGUMENT, ::testing::_));
}

TEST_F(OpKernelTest, RefInputs) {
  NodeDef node;
  node.set_name("ref");
  node.set_op("RefOp");
  node.add_input("r");
  node.add_input("v");
  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(Create(node, &kernel), IsOk());
  EXPECT_EQ(kernel->input_type(0), DT_FLOAT_REF);

  mutex mu;
  Tensor var = Floats({1, 2});
  Tensor v = Floats({5});
  std::vector<TensorValue> values = {TensorValue(&mu, &var), TensorValue(&v)};
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.inputs = &values;
  {
    OpKernelContext ctx(&params);
    ASSERT_THAT(ctx.status(), IsOk());
    EXPECT_TRUE(ctx.input_is_ref(0));
    EXPECT_EQ(ctx.input_dtype(0), DT_FLOAT_REF);
    Tensor t = ctx.mutable_input(0, /*lock_held=*/false);
    t.flat<float>()(0) = 9.0f;  // Updates the variable in place.
    EXPECT_EQ(var.flat<float>()(0), 9.0f);
    Tensor by_name;
    ASSERT_THAT(ctx.mutable_input("r", &by_name, /*lock_held=*/true), IsOk());
    EXPECT_TRUE(by_name.SharesBufferWith(var));
    EXPECT_THAT(ctx.status(), IsOk());
    // Forwarding never takes a Ref input's buffer.
    Tensor* out = nullptr;
    int forwarded = 0;
    ASSERT_THAT(ctx.forward_input_or_allocate_output({0}, 0, TensorShape({2}),
                                                     &out, &forwarded),
                IsOk());
    EXPECT_EQ(forwarded, -1);
    EXPECT_FALSE(out->SharesBufferWith(var));
  }
  {
    OpKernelContext ctx(&params);
    const Tensor* t = nullptr;
    EXPECT_THAT(ctx.input("r", &t),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr("OpKernel used ref input name 'r' when "
                                   "non-ref input was expected")));
  }
  {
    OpKernelContext ctx(&params);
    EXPECT_FALSE(ctx.mutable_input(1, false).IsInitialized());
    EXPECT_THAT(ctx.status(),
                StatusIs(error::INTERNAL, HasSubstr("is not a Ref input")));
    Tensor t;
    EXPECT_THAT(ctx.mutable_input("v", &t, false),
                StatusIs(error::INVALID_ARGUMENT, HasSubstr("non-ref input")));
  }
  // A plain tensor where a Ref is expected is rejected up front.
  std::vector<TensorValue> plain = {TensorValue(&var), TensorValue(&v)};
  params.inputs = &plain;
  OpKernelContext ctx(&params);
  EXPECT_THAT(ctx.status(),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("must be float_ref, but a float tensor")));
}

// ---------------------------------------------------------------------------
// Forwarding.

TEST_F(OpKernelTest, ForwardsAnUnsharedInputAndAllocatesOtherwise) {
  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(Create(AddNode(), &kernel), IsOk());
  auto* add = static_cast<AddFloatKernel*>(kernel.get());

  // The caller keeps copies: the buffers are shared, so nothing is forwarded.
  Tensor x = Floats({1, 2, 3});
  Tensor y = Floats({10, 20, 30});
  {
    std::vector<Tensor> inputs = {x, y};
    auto call = MakeCall(kernel.get(), &inputs);
    kernel->Compute(call->ctx.get());
    ASSERT_THAT(call->ctx->status(), IsOk());
    EXPECT_EQ(add->forwarded, -1);
    Tensor z;
    ASSERT_THAT(call->ctx->release_output(0, &z), IsOk());
    EXPECT_FALSE(z.SharesBufferWith(x));
    EXPECT_FALSE(z.SharesBufferWith(y));
    EXPECT_EQ(z.flat<float>()(2), 33.0f);
    EXPECT_EQ(x.flat<float>()(2), 3.0f);  // Untouched.
  }
  // The inputs hold the only reference to y's buffer: it is reused.
  {
    std::vector<Tensor> inputs = {x, Floats({10, 20, 30})};
    auto call = MakeCall(kernel.get(), &inputs);
    kernel->Compute(call->ctx.get());
    ASSERT_THAT(call->ctx->status(), IsOk());
    EXPECT_EQ(add->forwarded, 1);
    Tensor z;
    ASSERT_THAT(call->ctx->release_output(0, &z), IsOk());
    EXPECT_TRUE(z.SharesBufferWith(inputs[1]));
    EXPECT_EQ(z.flat<float>()(0), 11.0f);
  }
}

TEST_F(ContextTest, ForwardInputOrAllocateOutputChecksItsArguments) {
  // Fresh tensors: `inputs` holds the only reference to each buffer.
  std::vector<Tensor> inputs = {Tensor(static_cast<int32>(1)),
                                Tensor(static_cast<int32>(2)), Tensor(3.0f),
                                Tensor(4.0f)};
  auto call = MakeCall(kernel_.get(), &inputs);
  Tensor* out = nullptr;
  int forwarded = 0;
  // Candidate out of range.
  EXPECT_THAT(call->ctx->forward_input_or_allocate_output(
                  {7}, 2, TensorShape({}), &out, &forwarded),
              StatusIs(error::INTERNAL, HasSubstr("out of range")));
  EXPECT_EQ(forwarded, -1);

  // Input 3 is float with one element, held only by `inputs`... but input
  // 0 is int32, so only 3 can be forwarded to the float output 2.
  auto call2 = MakeCall(kernel_.get(), &inputs);
  ASSERT_THAT(call2->ctx->forward_input_or_allocate_output(
                  {0, 3}, 2, TensorShape({}), &out, &forwarded),
              IsOk());
  EXPECT_EQ(forwarded, 3);
  EXPECT_TRUE(out->SharesBufferWith(inputs[3]));

  // Different element count: allocates.
  auto call3 = MakeCall(kernel_.get(), &inputs);
  ASSERT_THAT(call3->ctx->forward_input_or_allocate_output(
                  {2}, 2, TensorShape({2}), &out, &forwarded),
              IsOk());
  EXPECT_EQ(forwarded, -1);
  EXPECT_EQ(out->NumElements(), 2);
}

TEST_F(ContextTest, ForwardInputToOutputWithShape) {
  std::vector<Tensor> inputs = inputs_;
  Tensor keep = inputs[2];  // Shared: forwarding with shape ignores sharing.
  auto call = MakeCall(kernel_.get(), &inputs);
  Tensor* out = nullptr;
  EXPECT_TRUE(call->ctx->forward_input_to_output_with_shape(
      2, 2, TensorShape({1, 1}), &out));
  ASSERT_NE(out, nullptr);
  EXPECT_TRUE(out->SharesBufferWith(keep));
  EXPECT_EQ(out->dims(), 2);

  // Element counts differ: false, nothing recorded.
  auto call2 = MakeCall(kernel_.get(), &inputs);
  EXPECT_FALSE(call2->ctx->forward_input_to_output_with_shape(
      2, 2, TensorShape({2}), &out));
  EXPECT_THAT(call2->ctx->status(), IsOk());
  EXPECT_THAT(call2->ctx->forward_input_to_output_with_shape(
                  "c", "single", TensorShape({3}), &out),
              StatusIs(error::FAILED_PRECONDITION,
                       HasSubstr("could not forward input 'c' to output "
                                 "'single'")));
  // Wrong dtype: recorded.
  EXPECT_FALSE(call2->ctx->forward_input_to_output_with_shape(
      0, 2, TensorShape({}), &out));
  EXPECT_THAT(call2->ctx->status(),
              StatusIs(error::INTERNAL, HasSubstr("input 0 is int32")));
  ASSERT_THAT(call2->ctx->forward_input_to_output_with_shape(
                  "c", "single", TensorShape({}), &out),
              IsOk());
}

// ---------------------------------------------------------------------------
// Compute, OP_REQUIRES, async kernels, Eigen.

TEST_F(OpKernelTest, AddRunsAnEigenExpressionOnTheDevicePool) {
  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(Create(AddNode(), &kernel), IsOk());
  const int n = 10000;
  Tensor x(DT_FLOAT, TensorShape({n}));
  Tensor y(DT_FLOAT, TensorShape({n}));
  for (int i = 0; i < n; ++i) {
    x.flat<float>()(i) = static_cast<float>(i);
    y.flat<float>()(i) = 0.5f;
  }
  std::vector<Tensor> inputs = {x, y};
  auto call = MakeCall(kernel.get(), &inputs);
  kernel->Compute(call->ctx.get());
  ASSERT_THAT(call->ctx->status(), IsOk());
  const Tensor* z = call->ctx->mutable_output(0);
  ASSERT_NE(z, nullptr);
  for (int i = 0; i < n; i += 997) EXPECT_EQ(z->flat<float>()(i), i + 0.5f);

  // The Eigen devices are usable directly, too.
  Tensor w(DT_FLOAT, TensorShape({4}));
  w.flat<float>().device(call->ctx->eigen_device<Eigen::DefaultDevice>()) =
      w.flat<float>().constant(2.0f);
  EXPECT_EQ(w.flat<float>()(3), 2.0f);
  EXPECT_EQ(call->ctx->eigen_device<Eigen::ThreadPoolDevice>().numThreads(), 2);
}

TEST_F(OpKernelTest, EigenDeviceWithoutADeviceFallsBack) {
  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(CreateOpKernel(DeviceType(DEVICE_CPU), nullptr, nullptr,
                             AddNode(), 0, ops_, *kernels_, &kernel),
              IsOk());
  std::vector<Tensor> inputs = {Floats({1}), Floats({2})};
  std::vector<TensorValue> values = {TensorValue(&inputs[0]),
                                     TensorValue(&inputs[1])};
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.inputs = &values;
  OpKernelContext ctx(&params);
  EXPECT_EQ(ctx.device(), nullptr);
  EXPECT_EQ(ctx.resource_manager(), nullptr);
  EXPECT_EQ(ctx.allocator(), cpu_allocator());
  kernel->Compute(&ctx);
  ASSERT_THAT(ctx.status(), IsOk());
  EXPECT_EQ(ctx.mutable_output(0)->flat<float>()(0), 3.0f);
}

TEST_F(OpKernelTest, OpRequiresStopsComputeWithTheStatus) {
  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(Create(AddNode(), &kernel), IsOk());
  std::vector<Tensor> inputs = {Floats({1, 2}), Floats({1, 2, 3})};
  auto call = MakeCall(kernel.get(), &inputs);
  kernel->Compute(call->ctx.get());
  EXPECT_THAT(call->ctx->status(),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("shapes differ: [2] vs [3]")));
  EXPECT_THAT(call->ctx->failure_file(), HasSubstr("op_kernel_test.cc"));
  EXPECT_GT(call->ctx->failure_line(), 0);
  EXPECT_FALSE(call->ctx->output_is_set(0));  // Compute stopped.
}

TEST_F(OpKernelTest, OpRequiresOkAndValueInCompute) {
  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(Create(FnNode(1, DT_FLOAT, {}), &kernel), IsOk());
  std::vector<Tensor> inputs = {Floats({1}), Floats({2})};
  int reached = 0;
  ComputeFn fn = [&reached](OpKernelContext* ctx) {
    OP_REQUIRES_VALUE(int v, ctx, StatusOr<int>(41));
    reached = v + 1;
    OP_REQUIRES_OK(ctx, errors::Unavailable("try later"));
    reached = -1;  // Not reached.
  };
  g_compute = &fn;
  auto call = MakeCall(kernel.get(), &inputs);
  kernel->Compute(call->ctx.get());
  EXPECT_EQ(reached, 42);
  EXPECT_THAT(call->ctx->status(),
              StatusIs(error::UNAVAILABLE, HasSubstr("try later")));

  ComputeFn value_fails = [&reached](OpKernelContext* ctx) {
    OP_REQUIRES_VALUE(int v, ctx,
                      StatusOr<int>(errors::OutOfRange("no value")));
    reached = v;
  };
  g_compute = &value_fails;
  reached = 0;
  auto call2 = MakeCall(kernel.get(), &inputs);
  kernel->Compute(call2->ctx.get());
  EXPECT_EQ(reached, 0);
  EXPECT_THAT(call2->ctx->status(),
              StatusIs(error::OUT_OF_RANGE, HasSubstr("no value")));
}

TEST_F(OpKernelTest, AsyncKernelCompletesThroughDone) {
  NodeDef node;
  node.set_name("async");
  node.set_op("Async");
  node.add_input("x");
  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(Create(node, &kernel), IsOk());
  AsyncOpKernel* async = kernel->AsAsync();
  ASSERT_NE(async, nullptr);

  // ComputeAsync with our own wait.
  std::vector<Tensor> inputs = {Floats({1, 2})};
  auto call = MakeCall(kernel.get(), &inputs);
  mutex mu;
  condition_variable cv;
  bool done = false;
  async->ComputeAsync(call->ctx.get(), [&] {
    mutex_lock l(mu);
    done = true;
    cv.notify_all();
  });
  {
    mutex_lock l(mu);
    cv.wait(l, [&] { return done; });
  }
  ASSERT_THAT(call->ctx->status(), IsOk());
  EXPECT_EQ(call->ctx->mutable_output(0)->flat<float>()(1), 6.0f);

  // Compute() blocks until done.
  auto call2 = MakeCall(kernel.get(), &inputs);
  kernel->Compute(call2->ctx.get());
  ASSERT_THAT(call2->ctx->status(), IsOk());
  EXPECT_EQ(call2->ctx->mutable_output(0)->flat<float>()(0), 3.0f);

  // OP_REQUIRES_ASYNC calls done on the error path.
  std::vector<Tensor> empty = {Floats({})};
  auto call3 = MakeCall(kernel.get(), &empty);
  kernel->Compute(call3->ctx.get());
  EXPECT_THAT(call3->ctx->status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("empty input")));
}

TEST_F(OpKernelTest, ComputeRunsConcurrently) {
  std::unique_ptr<OpKernel> kernel;
  NodeDef node;
  node.set_name("scale");
  node.set_op("Async");
  node.add_input("x");
  ASSERT_THAT(Create(node, &kernel), IsOk());
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        std::vector<Tensor> inputs = {Floats({static_cast<float>(t)})};
        std::vector<TensorValue> values = {TensorValue(&inputs[0])};
        OpKernelContext::Params params;
        params.op_kernel = kernel.get();
        params.inputs = &values;
        params.device = device_.get();
        OpKernelContext ctx(&params);
        kernel->Compute(&ctx);
        if (ctx.status().ok() &&
            ctx.mutable_output(0)->flat<float>()(0) == 3.0f * t) {
          ++ok;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 80);
}

// ---------------------------------------------------------------------------
// REGISTER_KERNEL_BUILDER.

TEST_F(OpKernelTest, RegisterKernelBuilderRecordsPendingRegistrations) {
  std::vector<PendingKernelRegistration> mine = MacroRegistrations();
  // DroppedKernel was filtered out by SHOULD_REGISTER_OP_KERNEL.
  ASSERT_EQ(mine.size(), 2u);
  EXPECT_EQ(mine[0].registration.kernel_class_name, "ScaleKernel<float, 2>");
  EXPECT_EQ(mine[1].registration.kernel_class_name, "ScaleKernel<int32, 3>");
  EXPECT_THAT(mine[0].registration.origin.file, HasSubstr("op_kernel_test.cc"));
  EXPECT_GT(mine[0].registration.origin.line, 0);
  EXPECT_EQ(mine[0].registration.def.device_type(), "CPU");
  ASSERT_THAT(kernels_->CommitPending(std::move(mine), ""), IsOk());

  NodeDef node;
  node.set_name("scale");
  node.set_op("MacroScale");
  node.add_input("x");
  AddNodeAttr("T", DT_INT32, &node);
  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(Create(node, &kernel), IsOk());
  Tensor x(DT_INT32, TensorShape({2}));
  x.flat<int32>()(0) = 5;
  x.flat<int32>()(1) = 6;
  std::vector<Tensor> inputs = {x};
  auto call = MakeCall(kernel.get(), &inputs);
  kernel->Compute(call->ctx.get());
  ASSERT_THAT(call->ctx->status(), IsOk());
  EXPECT_EQ(call->ctx->mutable_output(0)->flat<int32>()(1), 18);

  // No kernel for double: it was dropped.
  NodeDef dbl = node;
  (*dbl.mutable_attr())["T"].set_type(DT_DOUBLE);
  EXPECT_THAT(Create(dbl, &kernel),
              StatusIs(error::NOT_FOUND, HasSubstr("No OpKernel")));
}

TEST_F(OpKernelTest, GlobalCreateOpKernelReportsUnknownOps) {
  MacroRegistrations();  // Keep this file's registrations out of Global().
  NodeDef node;
  node.set_name("g");
  node.set_op("OpkitTestOpThatDoesNotExist");
  OpKernel* kernel = reinterpret_cast<OpKernel*>(0x1);
  EXPECT_THAT(CreateOpKernel(DeviceType(DEVICE_CPU), nullptr, nullptr, node, 0,
                             &kernel),
              StatusIs(error::NOT_FOUND,
                       HasSubstr("OpkitTestOpThatDoesNotExist")));
  EXPECT_EQ(kernel, nullptr);
}

// --- Graph-execution additions: ref outputs, missing inputs, frames,
// cancellation, inline kernel types ---------------------------------------

TEST_F(OpKernelTest, RefOutputs) {
  NodeDef node;
  node.set_name("ref_out");
  node.set_op("RefOut");
  node.add_input("r");
  node.add_input("v");
  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(Create(node, &kernel), IsOk());
  EXPECT_EQ(kernel->output_type(0), DT_FLOAT_REF);

  mutex mu;
  Tensor var = Floats({1, 2});
  Tensor v = Floats({5});
  std::vector<TensorValue> values = {TensorValue(&mu, &var), TensorValue(&v)};
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.inputs = &values;
  {
    OpKernelContext ctx(&params);
    ASSERT_THAT(ctx.status(), IsOk());
    EXPECT_EQ(ctx.input_ref_mutex(0), &mu);
    ctx.forward_ref_input_to_ref_output(0, 0);
    ASSERT_THAT(ctx.status(), IsOk());
    EXPECT_TRUE(ctx.output_is_ref(0));
    EXPECT_EQ(ctx.output_ref(0).tensor, &var);
    EXPECT_EQ(ctx.output_ref(0).mutex_if_ref, &mu);
    EXPECT_FALSE(ctx.output_is_ref(1));
    EXPECT_EQ(ctx.output_ref(1).tensor, nullptr);
    // replace_ref_input changes what the ref points at.
    ctx.replace_ref_input(0, v, /*lock_held=*/false);
    EXPECT_TRUE(var.SharesBufferWith(v));
    // Reading the ref output as a value copies the current tensor.
    Tensor read;
    ASSERT_THAT(ctx.release_output(0, &read), IsOk());
    EXPECT_TRUE(read.SharesBufferWith(v));
    EXPECT_FALSE(ctx.output_is_ref(0));
  }
  {
    OpKernelContext ctx(&params);
    ctx.set_output_ref(1, &mu, &var);  // Not a Ref output.
    EXPECT_THAT(ctx.status(),
                StatusIs(error::INTERNAL, HasSubstr("is not a Ref output")));
  }
  {
    OpKernelContext ctx(&params);
    ctx.set_output_ref(0, nullptr, &var);
    EXPECT_THAT(ctx.status(), StatusIs(error::INTERNAL, HasSubstr("null")));
  }
  {
    OpKernelContext ctx(&params);
    Tensor ints(DT_INT32, TensorShape({1}));
    ctx.set_output_ref(0, &mu, &ints);
    EXPECT_THAT(ctx.status(), StatusIs(error::INTERNAL, HasSubstr("int32")));
  }
  {
    OpKernelContext ctx(&params);
    ctx.set_output_ref(0, &mu, &var);
    ctx.set_output_ref(0, &mu, &var);
    EXPECT_THAT(ctx.status(), StatusIs(error::INTERNAL, HasSubstr("already set")));
    ctx.set_output_ref(5, &mu, &var);
  }
  {
    OpKernelContext ctx(&params);
    // A Ref output cannot be allocated or set as a value.
    ctx.set_output(0, v);
    EXPECT_FALSE(ctx.status().ok());
  }
  {
    OpKernelContext ctx(&params);
    EXPECT_EQ(ctx.input_ref_mutex(1), nullptr);
    EXPECT_THAT(ctx.status(), StatusIs(error::INTERNAL, HasSubstr("not a Ref")));
    ctx.replace_ref_input(7, v, false);
    ctx.forward_ref_input_to_ref_output(1, 0);
    EXPECT_FALSE(ctx.output_is_ref(0));
  }
}

TEST_F(OpKernelTest, MissingInputsOnlyWhenTheRuntimeAllowsThem) {
  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(Create(AddNode(), &kernel), IsOk());
  Tensor x = Floats({1});
  std::vector<TensorValue> values = {TensorValue(), TensorValue(&x)};
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.inputs = &values;
  {
    OpKernelContext ctx(&params);
    EXPECT_THAT(ctx.status(),
                StatusIs(error::INVALID_ARGUMENT, HasSubstr("has no tensor")));
  }
  params.allow_missing_inputs = true;
  params.is_input_dead = true;
  params.frame_iter = FrameAndIter{2, 9};
  OpKernelContext ctx(&params);
  EXPECT_THAT(ctx.status(), IsOk());
  EXPECT_FALSE(ctx.has_input(0));
  EXPECT_TRUE(ctx.has_input(1));
  EXPECT_TRUE(ctx.is_input_dead());
  EXPECT_EQ(ctx.frame_iter().frame_id, 2);
  EXPECT_EQ(ctx.frame_iter().iter_id, 9);
  EXPECT_EQ(ctx.cancellation_manager(), nullptr);
  // Reading the missing input is a recorded misuse, not a crash.
  EXPECT_FALSE(ctx.input(0).IsInitialized());
  EXPECT_FALSE(ctx.status().ok());
}

TEST(CancellationManagerTest, RunsCallbacksOnceAndRefusesLateOnes) {
  CancellationManager cm;
  int ran = 0;
  const CancellationToken a = cm.get_cancellation_token();
  const CancellationToken b = cm.get_cancellation_token();
  EXPECT_NE(a, b);
  EXPECT_TRUE(cm.RegisterCallback(a, [&] { ++ran; }));
  EXPECT_TRUE(cm.RegisterCallback(b, [&] { ran += 10; }));
  EXPECT_TRUE(cm.DeregisterCallback(b));
  EXPECT_FALSE(cm.DeregisterCallback(b));
  EXPECT_FALSE(cm.IsCancelled());
  cm.StartCancel();
  cm.StartCancel();
  EXPECT_TRUE(cm.IsCancelled());
  EXPECT_EQ(ran, 1);
  EXPECT_FALSE(cm.RegisterCallback(cm.get_cancellation_token(), [&] { ++ran; }));
  EXPECT_FALSE(cm.DeregisterCallback(a));
  EXPECT_EQ(ran, 1);
}

TEST_F(OpKernelTest, TypesBeyondTheInlineOnes) {
  std::unique_ptr<OpKernel> kernel;
  ASSERT_THAT(Create(FnNode(6, DT_INT32, {DT_BOOL, DT_DOUBLE}), &kernel), IsOk());
  EXPECT_EQ(kernel->num_inputs(), 9);
  EXPECT_EQ(kernel->num_outputs(), 7);
  EXPECT_EQ(kernel->input_type(0), DT_INT32);
  EXPECT_EQ(kernel->input_type(5), DT_INT32);
  EXPECT_EQ(kernel->input_type(6), DT_BOOL);
  EXPECT_EQ(kernel->input_type(7), DT_DOUBLE);
  EXPECT_EQ(kernel->input_type(8), DT_FLOAT);
  EXPECT_EQ(kernel->input_type(9), DT_INVALID);
  EXPECT_EQ(kernel->input_type(-1), DT_INVALID);
  EXPECT_EQ(kernel->output_type(3), DT_INT32);
  EXPECT_EQ(kernel->output_type(6), DT_FLOAT);
  EXPECT_EQ(kernel->output_type(7), DT_INVALID);
  EXPECT_EQ(kernel->input_types().size(), 9u);
}

}  // namespace
}  // namespace opkit

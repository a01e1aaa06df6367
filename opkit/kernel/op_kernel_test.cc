// Tests of OpKernel, OpKernelConstruction, the OP_REQUIRES macros,
// REGISTER_KERNEL_BUILDER and CreateOpKernel (OpKernelContext's are in
// op_kernel_context_test.cc). Each test builds its own op and kernel
// registries.

// A kernel class this file registers but selective registration drops.
#define SHOULD_REGISTER_OP_KERNEL(clz) \
  (!::opkit::SelectiveNameEquals(clz, "DroppedKernel"))

#include "opkit/kernel/op_kernel.h"

#include <atomic>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/kernel/testing/op_kernel_test_fixture.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace kernel_test {

// Here, not in the fixture header: OpRequiresStopsComputeWithTheStatus
// expects this file as the location of its OP_REQUIRES failure.
void AddFloatKernel::Compute(OpKernelContext* ctx) {
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

}  // namespace kernel_test

namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using kernel_test::AddFloatKernel;
using kernel_test::AttrKernel;
using kernel_test::ComputeFn;
using kernel_test::FnKernel;
using kernel_test::g_compute;
using kernel_test::Make;
using kernel_test::OpKernelTest;

// ---------------------------------------------------------------------------
// Kernels registered through the macro.

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

TEST_F(OpKernelTest, NodePropertiesCarryTheArgumentRanges) {
  std::shared_ptr<const NodeProperties> props;
  ASSERT_THAT(NodeProperties::CreateFromNodeDef(
                  FnNode(2, DT_INT32, {DT_FLOAT, DT_BOOL}), ops_, &props),
              IsOk());
  EXPECT_TRUE(props->has_arg_ranges);
  EXPECT_EQ(props->input_ranges,
            NameRangeMap({{"a", {0, 2}}, {"b", {2, 4}}, {"c", {4, 5}}}));
  EXPECT_EQ(props->output_ranges,
            NameRangeMap({{"out", {0, 2}}, {"single", {2, 3}}}));
}

// Kernels built straight from NodeProperties (Note [Validate once]): an Fn
// node with N = 2 (inputs a: 0-2, b: 2-3, c: 3-4; outputs out: 0-2).
class NodePropertiesKernelTest : public OpKernelTest {
 protected:
  void SetUp() override {
    OpKernelTest::SetUp();
    ASSERT_THAT(ops_.LookUp("Fn", &fn_), IsOk());
    node_ = FnNode(2, DT_INT32, {DT_FLOAT});
    AddDefaultsToNodeDef(fn_->op_def, &node_);
  }
  Status CreateFn(std::shared_ptr<const NodeProperties> props) {
    KernelSelection selection;
    selection.factory = &Make<FnKernel>;
    return CreateOpKernel(selection, DeviceType(DEVICE_CPU), nullptr, nullptr,
                          std::move(props), 0, &kernel_);
  }
  // The index range of input `name`.
  std::pair<int, int> InputRange(const char* name) {
    int start = -1, stop = -1;
    EXPECT_THAT(kernel_->InputRange(name, &start, &stop), IsOk());
    return {start, stop};
  }

  const OpRegistrationData* fn_ = nullptr;
  NodeDef node_;
  std::unique_ptr<OpKernel> kernel_;
};

// A kernel takes its argument ranges from validated properties and does not
// read the attrs for them again.
TEST_F(NodePropertiesKernelTest, RangesComeFromValidatedProperties) {
  NodeSignature signature;
  ASSERT_THAT(ValidateNodeDef(node_, fn_->op_def, &signature), IsOk());
  // Without N and L the attrs could not give the ranges any more.
  node_.mutable_attr()->erase("N");
  node_.mutable_attr()->erase("L");
  ASSERT_THAT(CreateFn(std::make_shared<const NodeProperties>(
                  fn_->op_def, node_, std::move(signature))),
              IsOk());
  EXPECT_EQ(InputRange("b"), std::make_pair(2, 3));
  int start = -1, stop = -1;
  ASSERT_THAT(kernel_->OutputRange("out", &start, &stop), IsOk());
  EXPECT_EQ(start, 0);
  EXPECT_EQ(stop, 2);
}

// Properties built with TensorFlow's constructor carry no ranges; the kernel
// works them out from the attrs.
TEST_F(NodePropertiesKernelTest, HandBuiltPropertiesGetRangesFromTheAttrs) {
  auto props = std::make_shared<const NodeProperties>(
      fn_->op_def, node_, DataTypeVector{DT_INT32, DT_INT32, DT_FLOAT, DT_FLOAT},
      DataTypeVector{DT_INT32, DT_INT32, DT_FLOAT});
  EXPECT_FALSE(props->has_arg_ranges);
  ASSERT_THAT(CreateFn(props), IsOk());
  EXPECT_EQ(InputRange("b"), std::make_pair(2, 3));

  // Attrs that give no ranges are the construction's error, not a crash.
  node_.mutable_attr()->erase("N");
  EXPECT_THAT(CreateFn(std::make_shared<const NodeProperties>(
                  fn_->op_def, node_, DataTypeVector{}, DataTypeVector{})),
              StatusIs(error::NOT_FOUND, HasSubstr("No attr named 'N'")));
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

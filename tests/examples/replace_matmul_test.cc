// The story of shared/seeds/000, replacing the built-in CPU MatMul kernel
// from a library, told with examples/replace_matmul:
//   1. naive_matmul registers its kernel the plain way: loading it fails
//      with the ambiguity error ("Multiple OpKernel registrations match"),
//      naming both kernels, and leaves the registries as they were;
//   2. after KernelRegistry::Unregister(KernelFilter().Op("MatMul")
//      .Device("CPU")) it loads, and MatMul runs its kernel;
//   3. priority_matmul (Priority(1)) wins without unregistering anything,
//      and a loop multiplying matrices through one PreparedOp picks it up on
//      the iteration after it is loaded, and drops it after it is unloaded.
// The tests run in this order and each undoes what it changed.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/op/op_registry.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/runtime/library.h"
#include "opkit/testing/status_matchers.h"
#include "tests/examples/example_test_util.h"

#if !defined(NAIVE_MATMUL_LIB) || !defined(PRIORITY_MATMUL_LIB)
#error "NAIVE_MATMUL_LIB and PRIORITY_MATMUL_LIB must name the built libraries"
#endif

namespace opkit {
namespace {

using ::opkit::examples_test::AsTensor;
using ::opkit::examples_test::Attr;
using ::opkit::examples_test::Values;
using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kMyKernel[] = "MyMatMulOp";
constexpr char kBuiltinFloatKernel[] = "MatMulOp<float>";

// What a test compares to say "the registries are unchanged".
struct RegistrySnapshot {
  std::string matmul_kernels;  // KernelList of MatMul, serialized
  size_t num_kernels = 0;
  size_t num_ops = 0;

  static RegistrySnapshot Take() {
    RegistrySnapshot s;
    KernelRegistry::Global()
        ->GetRegisteredKernelsForOp("MatMul")
        .SerializeToString(&s.matmul_kernels);
    s.num_kernels = KernelRegistry::Global()->size();
    OpList ops;
    OpRegistry::Global()->Export(false, &ops);
    s.num_ops = static_cast<size_t>(ops.op_size());
    return s;
  }
  bool operator==(const RegistrySnapshot& o) const {
    return matmul_kernels == o.matmul_kernels &&
           num_kernels == o.num_kernels && num_ops == o.num_ops;
  }
};

class ReplaceMatMulTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx.status(), IsOk());
    ctx_ = std::move(ctx).value();
    a_ = AsTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
    b_ = AsTensor<float>({7, 8, 9, 10, 11, 12}, {3, 2});
  }

  // Runs a float MatMul of a_ * b_, checks the product, and returns the
  // class name of the kernel that ran.
  std::string MultiplyAndName() {
    auto prepared = ctx_->Prepare("MatMul", {DT_FLOAT, DT_FLOAT});
    EXPECT_THAT(prepared.status(), IsOk());
    if (!prepared.ok()) return "";
    std::vector<Tensor> out;
    EXPECT_THAT(prepared.value()->Run({a_, b_}, &out), IsOk());
    if (out.size() == 1) {
      EXPECT_THAT(Values<float>(out[0]), ElementsAre(58, 64, 139, 154));
    }
    return prepared.value()->kernel_class_name();
  }

  std::unique_ptr<EagerContext> ctx_;
  Tensor a_;
  Tensor b_;
};

TEST_F(ReplaceMatMulTest, BuiltinKernelRunsByDefault) {
  EXPECT_EQ(MultiplyAndName(), kBuiltinFloatKernel);
}

TEST_F(ReplaceMatMulTest, NaiveRegistrationIsAnAmbiguityAndChangesNothing) {
  const RegistrySnapshot before = RegistrySnapshot::Take();
  const uint64_t generation = KernelRegistry::Global()->generation();

  StatusOr<OpLibrary> lib = LoadOpLibrary(NAIVE_MATMUL_LIB);
  RecordProperty("load_error", lib.status().ToString());
  EXPECT_THAT(lib.status(),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("Multiple OpKernel registrations match"),
                             HasSubstr(kMyKernel),
                             HasSubstr(kBuiltinFloatKernel),
                             HasSubstr("naive_matmul"),
                             HasSubstr("Priority"))));

  EXPECT_TRUE(RegistrySnapshot::Take() == before);
  EXPECT_EQ(KernelRegistry::Global()->generation(), generation);
  EXPECT_EQ(MultiplyAndName(), kBuiltinFloatKernel);
  for (const OpLibrary& loaded : LoadedOpLibraries()) {
    EXPECT_THAT(loaded.path(), ::testing::Not(HasSubstr("naive_matmul")));
  }
}

TEST_F(ReplaceMatMulTest, NaiveLoadsOnceTheBuiltinIsUnregistered) {
  StatusOr<KernelRegistrationHandle> hidden = KernelRegistry::Global()->Unregister(
      KernelFilter().Op("MatMul").Device("CPU"));
  ASSERT_THAT(hidden.status(), IsOk());
  // Unlabelled and "eigen", for each of MatMul's eight types.
  EXPECT_EQ(hidden.value().size(), 16u);

  StatusOr<OpLibrary> lib = LoadOpLibrary(NAIVE_MATMUL_LIB);
  ASSERT_THAT(lib.status(), IsOk());
  EXPECT_EQ(lib.value().op_list().op_size(), 0);
  ASSERT_EQ(lib.value().kernel_list().kernel_size(), 1);
  EXPECT_EQ(lib.value().kernel_list().kernel(0).op(), "MatMul");

  EXPECT_EQ(MultiplyAndName(), kMyKernel);
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("MatMul", {a_, a_}, {{"transpose_b", Attr(true)}},
                        &out),
              IsOk());
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(14, 32, 32, 77));
  ASSERT_THAT(ctx_->Run("MatMul", {a_, a_}, {{"transpose_a", Attr(true)}},
                        &out),
              IsOk());
  EXPECT_THAT(Values<float>(out[0]),
              ElementsAre(17, 22, 27, 22, 29, 36, 27, 36, 45));
  EXPECT_THAT(ctx_->Run("MatMul", {a_, a_}, &out),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Matrix size-incompatible")));
  // Only float was replaced, and the built-in kernels are hidden: no double.
  EXPECT_THAT(ctx_->Run("MatMul",
                        {AsTensor<double>({1}, {1, 1}),
                         AsTensor<double>({1}, {1, 1})},
                        &out),
              StatusIs(error::NOT_FOUND));

  // Undo: unload the library, show the built-in kernels again.
  ASSERT_THAT(lib.value().Unload(), IsOk());
  ASSERT_THAT(hidden.value().Restore(), IsOk());
  EXPECT_EQ(MultiplyAndName(), kBuiltinFloatKernel);
}

TEST_F(ReplaceMatMulTest, PriorityLibraryWinsMidLoopWithoutUnregistering) {
  auto prepared = ctx_->Prepare("MatMul", {DT_FLOAT, DT_FLOAT});
  ASSERT_THAT(prepared.status(), IsOk());
  PreparedOp& matmul = *prepared.value();

  OpLibrary lib;
  std::vector<std::string> ran;
  for (int step = 0; step < 6; ++step) {
    if (step == 3) {
      StatusOr<OpLibrary> loaded = LoadOpLibrary(PRIORITY_MATMUL_LIB);
      ASSERT_THAT(loaded.status(), IsOk());
      lib = std::move(loaded).value();
    }
    std::vector<Tensor> out;
    ASSERT_THAT(matmul.Run({a_, b_}, &out), IsOk());
    EXPECT_THAT(Values<float>(out[0]), ElementsAre(58, 64, 139, 154));
    ran.push_back(matmul.kernel_class_name());
  }
  EXPECT_THAT(ran, ElementsAre(kBuiltinFloatKernel, kBuiltinFloatKernel,
                               kBuiltinFloatKernel, kMyKernel, kMyKernel,
                               kMyKernel));
  EXPECT_EQ(matmul.selections(), 2);
  EXPECT_EQ(matmul.kernel_def().priority(), 1);

  // The built-in kernels are all still registered: other types still run
  // them, and the "eigen" label still selects the built-in float kernel.
  std::vector<Tensor> out;
  ASSERT_THAT(ctx_->Run("MatMul",
                        {AsTensor<double>({2}, {1, 1}),
                         AsTensor<double>({3}, {1, 1})},
                        &out),
              IsOk());
  EXPECT_THAT(Values<double>(out[0]), ElementsAre(6));
  auto eigen = ctx_->Prepare("MatMul", {DT_FLOAT, DT_FLOAT},
                             {{"_kernel", Attr("eigen")}});
  ASSERT_THAT(eigen.status(), IsOk());
  EXPECT_EQ(eigen.value()->kernel_class_name(), kBuiltinFloatKernel);

  // Unloading it hands MatMul back to the built-in kernel at the next call.
  ASSERT_THAT(lib.Unload(), IsOk());
  ASSERT_THAT(matmul.Run({a_, b_}, &out), IsOk());
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(58, 64, 139, 154));
  EXPECT_EQ(matmul.kernel_class_name(), kBuiltinFloatKernel);
  EXPECT_EQ(matmul.selections(), 3);
}

}  // namespace
}  // namespace opkit

// Helpers for the tests of the reference examples: build tensors and attr
// values in one expression, read a tensor back as a vector, and a fixture
// that loads an op library and gives each test an EagerContext.
//
//   Tensor x = AsTensor<int32>({1, 2, 3, 4}, {2, 2});
//   std::vector<Tensor> out;
//   ASSERT_THAT(ctx->Run("ZeroOut", {x}, &out), IsOk());
//   EXPECT_THAT(Values<int32>(out[0]), ElementsAre(1, 0, 0, 0));
//   ctx->Run("ZeroOutPreserveIndex", {x}, {{"preserve_index", Attr(1)}}, &out);
#ifndef OPKIT_TESTS_EXAMPLES_EXAMPLE_TEST_UTIL_H_
#define OPKIT_TESTS_EXAMPLES_EXAMPLE_TEST_UTIL_H_

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "opkit/attr_value.pb.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/tensor/types.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/runtime/library.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace examples_test {

// Tensors and attr values in one expression, tensors read back as vectors:
// the kernel tests' helpers.
using ::opkit::test::AsTensor;
using ::opkit::test::Attr;
using ::opkit::test::Values;

// The op names of a library, sorted.
inline std::set<std::string> OpNames(const OpLibrary& lib) {
  std::set<std::string> names;
  for (const OpDef& op : lib.op_list().op()) names.insert(op.name());
  return names;
}

// A test of one op library: loads it before each test (after the first
// load the loader hands back the same library) and gives each test a fresh
// EagerContext.
//
//   class ZeroOutTest : public OpLibraryTest {
//    protected:
//     ZeroOutTest() : OpLibraryTest(ZERO_OUT_LIB) {}
//   };
class OpLibraryTest : public ::testing::Test {
 protected:
  explicit OpLibraryTest(std::string path) : path_(std::move(path)) {}

  void SetUp() override {
    StatusOr<OpLibrary> lib = LoadOpLibrary(path_);
    ASSERT_THAT(lib.status(), ::opkit::testing::IsOk());
    library_ = std::move(lib).value();
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx.status(), ::opkit::testing::IsOk());
    ctx_ = std::move(ctx).value();
  }

  // Runs `op` and returns its Status, dropping the outputs.
  Status RunStatus(const std::string& op, const std::vector<Tensor>& inputs,
                   const EagerAttrs& attrs = {}) {
    std::vector<Tensor> out;
    return ctx_->Run(op, inputs, attrs, &out);
  }

  const std::string path_;
  OpLibrary library_;
  std::unique_ptr<EagerContext> ctx_;
};

}  // namespace examples_test
}  // namespace opkit

#endif  // OPKIT_TESTS_EXAMPLES_EXAMPLE_TEST_UTIL_H_

// Test-only: helpers the tensor tests share (tensor_test.cc,
// tensor_proto_test.cc, tensor_print_test.cc).
#ifndef OPKIT_TENSOR_TESTING_TENSOR_TEST_UTIL_H_
#define OPKIT_TENSOR_TESTING_TENSOR_TEST_UTIL_H_

#include <cstddef>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "opkit/tensor/allocator.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/tensor/types.h"

namespace opkit {
namespace tensor_test {

// Every base DataType (from the proto descriptor).
inline std::vector<DataType> BaseTypes() {
  std::vector<DataType> out;
  const auto* desc = DataType_descriptor();
  for (int i = 0; i < desc->value_count(); ++i) {
    const auto dt = static_cast<DataType>(desc->value(i)->number());
    if (dt != DT_INVALID && !IsRefType(dt)) out.push_back(dt);
  }
  return out;
}

// Whether a tensor of `dt` has element storage of plain bytes or strings
// (DT_RESOURCE tensors hold ResourceHandle objects; resource_handle_test.cc
// covers them).
inline bool HasElementStorage(DataType dt) {
  return dt == DT_STRING || DataTypeSize(dt) > 0;
}

// Fails every request.
class FailingAllocator : public Allocator {
 public:
  std::string Name() override { return "failing"; }
  void* AllocateRaw(size_t, size_t) override { return nullptr; }
  void DeallocateRaw(void*) override {}
};

// A float tensor of `shape` holding `values`.
inline Tensor MakeFloat(const TensorShape& shape, std::vector<float> values) {
  Tensor t(DT_FLOAT, shape);
  EXPECT_EQ(static_cast<size_t>(t.NumElements()), values.size());
  auto flat = t.flat<float>();
  for (size_t i = 0; i < values.size(); ++i) flat(i) = values[i];
  return t;
}

}  // namespace tensor_test
}  // namespace opkit

#endif  // OPKIT_TENSOR_TESTING_TENSOR_TEST_UTIL_H_

// Test helpers for kernel tests: make tensors from values, run an op
// eagerly.
//
//   using OpTest = test::EagerOpTest;
//   TEST_F(OpTest, Adds) {
//     ASSERT_THAT(Run("AddV2", {test::I32({1, 2}), test::I32({3, 4})}), IsOk());
//     EXPECT_THAT(test::Values<int32>(out_[0]), ElementsAre(4, 6));
//   }
#ifndef OPKIT_TESTING_KERNEL_TEST_UTIL_H_
#define OPKIT_TESTING_KERNEL_TEST_UTIL_H_

#include <initializer_list>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/kernel/op_kernel.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/types.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace test {

// A tensor of `shape` holding `values` in row-major order; a test failure
// (and the tensor only partly filled) when their counts differ.
template <typename T>
Tensor AsTensor(std::initializer_list<T> values, const TensorShape& shape) {
  Tensor t(DataTypeToEnum<T>::value, shape);
  EXPECT_EQ(t.NumElements(), static_cast<int64_t>(values.size()))
      << "values for a tensor of shape " << shape.DebugString();
  auto flat = t.flat<T>();
  int64_t i = 0;
  for (const T& v : values) {
    if (i == flat.size()) break;
    flat(i++) = v;
  }
  return t;
}
// A vector holding `values`.
template <typename T>
Tensor AsTensor(std::initializer_list<T> values) {
  return AsTensor<T>(values, TensorShape({static_cast<int64_t>(values.size())}));
}

// The elements of `t`, row-major; empty (and a test failure) for another
// dtype than T.
template <typename T>
std::vector<T> Values(const Tensor& t) {
  if (t.dtype() != DataTypeToEnum<T>::value) {
    ADD_FAILURE() << "tensor has dtype " << DataTypeString(t.dtype())
                  << ", expected " << DataTypeString(DataTypeToEnum<T>::value);
    return {};
  }
  auto flat = t.flat<T>();
  return std::vector<T>(flat.data(), flat.data() + flat.size());
}

// A tensor of `dims` whose element i is (i % modulus) - offset, as numpy's
// (arange(n) % m - k): small exact values in every real dtype.
template <typename T>
Tensor Cycle(const std::vector<int64_t>& dims, int modulus, int offset) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape(dims));
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.flat<T>()(i) = static_cast<T>(static_cast<float>(i % modulus - offset));
  }
  return t;
}

// The elements of a T tensor as doubles (half and bfloat16 through float).
template <typename T>
std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if constexpr (std::is_same_v<T, double> || std::is_integral_v<T>) {
      v.push_back(static_cast<double>(t.flat<T>()(i)));
    } else {
      v.push_back(static_cast<double>(static_cast<float>(t.flat<T>()(i))));
    }
  }
  return v;
}

// A scalar tensor holding `v`.
template <typename T>
Tensor AsScalar(T v) {
  return AsTensor<T>({v}, TensorShape({}));
}

// The CPU kernel `def` selects (a test failure, and null, when none does).
inline std::unique_ptr<OpKernel> CreateKernel(const NodeDef& def) {
  OpKernel* k = nullptr;
  Status s = CreateOpKernel(DeviceType(DEVICE_CPU), nullptr, nullptr, def, 0, &k);
  EXPECT_THAT(s, ::opkit::testing::IsOk());
  return std::unique_ptr<OpKernel>(k);
}

// An AttrValue holding `v` (anything SetAttrValue takes).
template <typename V>
AttrValue Attr(const V& v) {
  AttrValue a;
  SetAttrValue(v, &a);
  return a;
}
// A list(type) AttrValue: Attr({DT_FLOAT, DT_INT32}).
inline AttrValue Attr(std::initializer_list<DataType> types) {
  return Attr(std::vector<DataType>(types));
}

// A fixture that runs ops eagerly on a fresh context; out_ holds the
// results of the last Run.
class EagerOpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx, ::opkit::testing::IsOk());
    ctx_ = std::move(ctx).value();
  }
  Status Run(const char* op, const std::vector<Tensor>& inputs,
             const EagerAttrs& attrs = {}) {
    return ctx_->Run(op, inputs, attrs, &out_);
  }
  std::unique_ptr<EagerContext> ctx_;
  std::vector<Tensor> out_;
};

// Vectors of int32 / int64 values.
inline Tensor I32(std::initializer_list<int32> v) { return AsTensor<int32>(v); }
inline Tensor I64(std::initializer_list<int64> v) { return AsTensor<int64>(v); }
// A float tensor of `shape` holding 0, 1, 2, ... in row-major order.
inline Tensor Iota(const TensorShape& shape) {
  Tensor t(DT_FLOAT, shape);
  auto f = t.flat<float>();
  for (int64_t i = 0; i < f.size(); ++i) f(i) = static_cast<float>(i);
  return t;
}
// A string tensor of `shape` holding `v` in row-major order.
inline Tensor Strings(std::initializer_list<const char*> v, const TensorShape& shape) {
  Tensor t(DT_STRING, shape);
  int64_t i = 0;
  for (const char* s : v) t.flat<tstring>()(i++) = s;
  return t;
}

}  // namespace test
}  // namespace opkit

#endif  // OPKIT_TESTING_KERNEL_TEST_UTIL_H_

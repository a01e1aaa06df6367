// Tests of Tensor: allocation and its failures, buffers, views, slicing,
// bitcasts, shapes from tensors, deep copies, string tensors.
#include "opkit/tensor/tensor.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/tensor/resource_handle.h"
#include "opkit/tensor/variant.h"
#include "opkit/tensor/testing/tensor_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;
using tensor_test::BaseTypes;
using tensor_test::FailingAllocator;
using tensor_test::HasElementStorage;
using tensor_test::MakeFloat;

// Counts live allocations so tests can see buffers being released.
class LiveCountingAllocator : public Allocator {
 public:
  std::string Name() override { return "counting"; }
  void* AllocateRaw(size_t alignment, size_t bytes) override {
    ++live;
    return cpu_allocator()->AllocateRaw(alignment, bytes);
  }
  void DeallocateRaw(void* p) override {
    --live;
    cpu_allocator()->DeallocateRaw(p);
  }
  int live = 0;
};

TEST(TensorTest, DefaultIsUninitializedFloatScalar) {
  Tensor t;
  EXPECT_EQ(t.dtype(), DT_FLOAT);
  EXPECT_EQ(t.dims(), 0);
  EXPECT_EQ(t.NumElements(), 1);
  EXPECT_FALSE(t.IsInitialized());
  EXPECT_EQ(t.data(), nullptr);
  EXPECT_EQ(t.DebugString(),
            "Tensor<type: float shape: [] values: uninitialized Tensor of 1 "
            "elements of type 1>");
}

TEST(TensorTest, EveryDtypeWithStorageAllocates) {
  const TensorShape shape({3, 5});
  for (DataType dt : BaseTypes()) {
    Tensor t;
    Status s = Tensor::Allocate(dt, shape, &t);
    // Resource and variant tensors hold ResourceHandle and Variant objects.
    if (!HasElementStorage(dt) && dt != DT_RESOURCE && dt != DT_VARIANT) {
      EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                              HasSubstr(DataTypeString(dt))))
          << DataTypeString(dt);
      continue;
    }
    ASSERT_THAT(s, IsOk()) << DataTypeString(dt);
    EXPECT_EQ(t.dtype(), dt);
    EXPECT_EQ(t.shape(), shape);
    EXPECT_TRUE(t.IsInitialized());
    EXPECT_TRUE(t.IsAligned());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % kAllocatorAlignment, 0u)
        << DataTypeString(dt);
    const size_t elem = dt == DT_STRING     ? sizeof(tstring)
                        : dt == DT_RESOURCE ? sizeof(ResourceHandle)
                        : dt == DT_VARIANT  ? sizeof(Variant)
                                            : DataTypeSize(dt);
    EXPECT_EQ(t.TotalBytes(), 15 * elem) << DataTypeString(dt);
    EXPECT_GE(t.AllocatedBytes(), t.TotalBytes());
  }
}

TEST(TensorTest, AllocateRejectsDtypesWithoutStorage) {
  Tensor t;
  EXPECT_THAT(Tensor::Allocate(DT_INVALID, TensorShape({2}), &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("INVALID")));
  EXPECT_THAT(Tensor::Allocate(DT_FLOAT_REF, TensorShape({2}), &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("ref dtype float_ref")));
  EXPECT_THAT(Tensor::Allocate(static_cast<DataType>(55), TensorShape({2}), &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("unknown dtype enum (55)")));
  EXPECT_FALSE(t.IsInitialized()) << "unchanged on error";
}

// A variant element holds any copyable value; copies of the tensor share the
// buffer, DeepCopy copies the values, and the values are destroyed with the
// buffer.
TEST(TensorTest, VariantTensorsHoldValues) {
  struct Counted {
    std::shared_ptr<int> alive;
    std::string TypeName() const { return "Counted"; }
    std::string DebugString() const { return "Counted(" + std::to_string(*alive) + ")"; }
  };
  auto alive = std::make_shared<int>(7);
  {
    Tensor t;
    ASSERT_THAT(Tensor::Allocate(DT_VARIANT, TensorShape({2}), &t), IsOk());
    EXPECT_TRUE(t.flat<Variant>()(0).is_empty());
    t.flat<Variant>()(1) = Counted{alive};
    EXPECT_EQ(alive.use_count(), 2);
    EXPECT_EQ(t.flat<Variant>()(1).TypeName(), "Counted");
    EXPECT_EQ(t.flat<Variant>()(1).get<int>(), nullptr) << "wrong type";
    ASSERT_NE(t.flat<Variant>()(1).get<Counted>(), nullptr);

    Tensor copy = DeepCopy(t);
    EXPECT_EQ(alive.use_count(), 3) << "DeepCopy copies the value";
    EXPECT_THAT(copy.DebugString(), HasSubstr("Counted(7)"));
  }
  EXPECT_EQ(alive.use_count(), 1) << "the buffers destroyed their values";
}

TEST(TensorTest, AllocationFailureIsResourceExhausted) {
  FailingAllocator failing;
  Tensor t;
  EXPECT_THAT(Tensor::Allocate(DT_FLOAT, TensorShape({2, 3}), &t, &failing),
              StatusIs(error::RESOURCE_EXHAUSTED,
                       HasSubstr("OOM when allocating tensor with shape [2,3] "
                                 "and type float (24 bytes) by allocator failing")));
  // Larger than the allocation limit (Note [Allocation limit]): refused
  // before the allocator is asked.
  EXPECT_THAT(Tensor::Allocate(DT_FLOAT, TensorShape({int64_t{1} << 39}), &t),
              StatusIs(error::RESOURCE_EXHAUSTED, HasSubstr("allocation limit")));
  // The byte count itself overflows size_t.
  EXPECT_THAT(Tensor::Allocate(DT_COMPLEX128,
                               TensorShape({int64_t{1} << 31, int64_t{1} << 31}), &t),
              StatusIs(error::RESOURCE_EXHAUSTED, HasSubstr("overflows")));
  EXPECT_FALSE(t.IsInitialized());

  // The constructor cannot report: it leaves the tensor without storage.
  Tensor u(&failing, DT_INT32, TensorShape({4}));
  EXPECT_EQ(u.dtype(), DT_INT32);
  EXPECT_EQ(u.shape(), TensorShape({4}));
  EXPECT_FALSE(u.IsInitialized());
  EXPECT_EQ(u.SummarizeValue(3), "uninitialized Tensor of 4 elements of type 3");
  EXPECT_THAT(u.CheckTypeAndRank<int32>(1),
              StatusIs(error::FAILED_PRECONDITION, HasSubstr("uninitialized")));
}

TEST(TensorTest, EmptyTensorNeedsNoStorage) {
  FailingAllocator failing;
  Tensor t;
  ASSERT_THAT(Tensor::Allocate(DT_FLOAT, TensorShape({0, 4}), &t, &failing), IsOk());
  EXPECT_TRUE(t.IsInitialized());
  EXPECT_EQ(t.TotalBytes(), 0u);
  EXPECT_EQ(t.data(), nullptr);
  EXPECT_EQ(t.flat<float>().size(), 0);
  EXPECT_EQ(t.DebugString(), "Tensor<type: float shape: [0,4] values: >");
}

TEST(TensorTest, BuffersAreReleased) {
  LiveCountingAllocator counting;
  {
    Tensor a(&counting, DT_STRING, TensorShape({3}));
    EXPECT_EQ(counting.live, 1);
    Tensor b = a;
    Tensor c = a.Slice(1, 2);
    EXPECT_EQ(counting.live, 1);
    a = Tensor();
    EXPECT_EQ(counting.live, 1) << "b and c still hold the buffer";
    b.flat<tstring>()(0) = std::string(1000, 'x');  // Heap-allocated string.
  }
  EXPECT_EQ(counting.live, 0);
}

TEST(TensorTest, CopyAndMoveShare) {
  Tensor a = MakeFloat(TensorShape({2}), {1, 2});
  EXPECT_TRUE(a.RefCountIsOne());
  Tensor b = a;
  EXPECT_TRUE(a.SharesBufferWith(b));
  EXPECT_FALSE(a.RefCountIsOne());
  b.flat<float>()(0) = 9;
  EXPECT_EQ(a.flat<float>()(0), 9);
  Tensor c = std::move(b);
  EXPECT_TRUE(c.SharesBufferWith(a));
  EXPECT_FALSE(b.IsInitialized());  // NOLINT: moved-from is documented.
  EXPECT_EQ(b.dtype(), DT_FLOAT);
  EXPECT_FALSE(b.SharesBufferWith(a));
  Tensor d;
  EXPECT_FALSE(d.SharesBufferWith(Tensor()));
}

TEST(TensorTest, ScalarConstructors) {
  EXPECT_EQ(Tensor(1.5f).scalar<float>()(), 1.5f);
  EXPECT_EQ(Tensor(2.5).scalar<double>()(), 2.5);
  EXPECT_EQ(Tensor(int32{-3}).scalar<int32>()(), -3);
  EXPECT_EQ(Tensor(int64{1} << 40).scalar<int64>()(), int64{1} << 40);
  EXPECT_EQ(Tensor(uint8{200}).scalar<uint8>()(), 200);
  EXPECT_EQ(Tensor(int8{-5}).scalar<int8>()(), -5);
  EXPECT_EQ(Tensor(int16{-300}).scalar<int16>()(), -300);
  EXPECT_EQ(Tensor(uint16{60000}).scalar<uint16>()(), 60000);
  EXPECT_EQ(Tensor(uint32{4000000000u}).scalar<uint32>()(), 4000000000u);
  EXPECT_EQ(Tensor(uint64{1} << 63).scalar<uint64>()(), uint64{1} << 63);
  EXPECT_EQ(Tensor(true).scalar<bool>()(), true);
  EXPECT_EQ(Tensor("hello").scalar<tstring>()(), "hello");
  EXPECT_EQ(Tensor(tstring("x")).dtype(), DT_STRING);
  EXPECT_EQ(Tensor(complex64(1, 2)).scalar<complex64>()(), complex64(1, 2));
  EXPECT_EQ(Tensor(complex128(3, 4)).scalar<complex128>()(), complex128(3, 4));
  EXPECT_EQ(static_cast<float>(Tensor(half(0.5f)).scalar<half>()()), 0.5f);
  EXPECT_EQ(static_cast<float>(Tensor(bfloat16(2.0f)).scalar<bfloat16>()()), 2.0f);
}

TEST(TensorTest, FlatVecMatrixTensorViews) {
  Tensor t(DT_INT32, TensorShape({2, 3}));
  auto x = t.flat<int32>();
  EXPECT_EQ(x.size(), 6);
  for (int i = 0; i < 6; ++i) x(i) = i;
  auto m = t.matrix<int32>();
  EXPECT_EQ(m.dimension(0), 2);
  EXPECT_EQ(m.dimension(1), 3);
  EXPECT_EQ(m(1, 2), 5);
  m(0, 1) = 42;
  EXPECT_EQ(x(1), 42);
  auto t2 = t.tensor<int32, 2>();
  EXPECT_EQ(t2(0, 1), 42);

  const Tensor& ct = t;
  TTypes<int32>::ConstFlat cf = ct.flat<int32>();
  EXPECT_EQ(cf(5), 5);
  TTypes<int32>::ConstMatrix cm = ct.matrix<int32>();
  EXPECT_EQ(cm(1, 0), 3);
  EXPECT_EQ((ct.shaped<int32, 2>({3, 2})(2, 1)), 5);
  EXPECT_EQ(ct.unaligned_flat<int32>()(4), 4);

  Tensor v(DT_FLOAT, TensorShape({4}));
  v.vec<float>().setConstant(1.5f);
  EXPECT_EQ(v.vec<float>()(3), 1.5f);
  Eigen::Tensor<float, 0, Eigen::RowMajor> sum = v.vec<float>().sum();
  EXPECT_EQ(sum(), 6.0f);

  Tensor s(DT_DOUBLE, TensorShape({}));
  s.scalar<double>()() = 2.25;
  EXPECT_EQ(s.flat<double>()(0), 2.25);
  // scalar() accepts any shape with one element, as TensorFlow does.
  Tensor one(DT_DOUBLE, TensorShape({1, 1}));
  one.scalar<double>()() = 7;
  EXPECT_EQ(one.matrix<double>()(0, 0), 7);
}

TEST(TensorTest, ReshapedViews) {
  Tensor t(DT_FLOAT, TensorShape({2, 3, 4}));
  auto flat = t.flat<float>();
  for (int i = 0; i < 24; ++i) flat(i) = static_cast<float>(i);
  auto t3 = t.tensor<float, 3>();
  EXPECT_EQ(t3(1, 2, 3), 23.0f);

  auto inner = t.flat_inner_dims<float>();
  EXPECT_EQ(inner.dimension(0), 6);
  EXPECT_EQ(inner.dimension(1), 4);
  EXPECT_EQ(inner(5, 3), 23.0f);
  auto inner3 = t.flat_inner_dims<float, 4>();
  EXPECT_EQ(inner3.dimension(0), 1);
  EXPECT_EQ(inner3.dimension(3), 4);
  auto outer = t.flat_outer_dims<float>();
  EXPECT_EQ(outer.dimension(0), 2);
  EXPECT_EQ(outer.dimension(1), 12);
  EXPECT_EQ(outer(1, 11), 23.0f);
  auto outer4 = t.flat_outer_dims<float, 4>();
  EXPECT_EQ(outer4.dimension(2), 4);
  EXPECT_EQ(outer4.dimension(3), 1);

  auto shaped = t.shaped<float, 2>({4, 6});
  EXPECT_EQ(shaped(3, 5), 23.0f);
  auto ushaped = t.unaligned_shaped<float, 1>({24});
  EXPECT_EQ(ushaped(23), 23.0f);

  Tensor v(DT_FLOAT, TensorShape({5}));
  EXPECT_EQ(v.flat_inner_dims<float>().dimension(0), 1);
  EXPECT_EQ(v.flat_inner_dims<float>().dimension(1), 5);
  EXPECT_EQ(v.flat_outer_dims<float>().dimension(0), 5);
  EXPECT_EQ(v.flat_outer_dims<float>().dimension(1), 1);
}

TEST(TensorTest, ConstViews) {
  Tensor t(DT_FLOAT, TensorShape({2, 3}));
  auto f = t.flat<float>();
  for (int i = 0; i < 6; ++i) f(i) = static_cast<float>(i);
  const Tensor& ct = t;
  TTypes<float, 2>::ConstTensor m = ct.tensor<float, 2>();
  EXPECT_EQ(m(1, 1), 4);
  EXPECT_EQ(ct.flat_inner_dims<float>()(1, 2), 5);
  EXPECT_EQ(ct.flat_outer_dims<float>()(0, 2), 2);
  EXPECT_EQ((ct.unaligned_shaped<float, 2>({3, 2})(2, 0)), 4);
  TTypes<float>::UnalignedConstFlat u = ct.unaligned_flat<float>();
  EXPECT_EQ(u(3), 3);
  const Tensor s(7.0f);
  TTypes<float>::ConstScalar cs = s.scalar<float>();
  EXPECT_EQ(cs(), 7.0f);
  const Tensor v(DT_INT64, TensorShape({0}));
  EXPECT_EQ(v.vec<int64>().size(), 0);
}

TEST(TensorTest, FlatInnerOuterDims) {
  Tensor t(DT_INT32, TensorShape({2, 3, 4, 5}));
  auto flat = t.flat<int32>();
  for (int i = 0; i < 120; ++i) flat(i) = i;
  auto io = t.flat_inner_outer_dims<int32, 2>(1);
  EXPECT_EQ(io.dimension(0), 6);
  EXPECT_EQ(io.dimension(1), 20);
  EXPECT_EQ(io(5, 19), 119);
  // Dims [3, 6) of [2,3,4,5,1,1] kept, the ones before folded in: [120,1,1].
  auto padded = t.flat_inner_outer_dims<int32, 3>(3);
  EXPECT_EQ(padded.dimension(0), 120);
  EXPECT_EQ(padded.dimension(1), 1);
  EXPECT_EQ(padded.dimension(2), 1);
  const Tensor& ct = t;
  EXPECT_EQ((ct.flat_inner_outer_dims<int32, 3>(0).dimension(2)), 20);
}

TEST(TensorTest, MakeShapeFromTensor) {
  Tensor dims(DT_INT64, TensorShape({3}));
  dims.flat<int64>()(0) = 2;
  dims.flat<int64>()(1) = 0;
  dims.flat<int64>()(2) = 7;
  TensorShape s;
  ASSERT_THAT(MakeShapeFromTensor(dims, &s), IsOk());
  EXPECT_EQ(s, TensorShape({2, 0, 7}));
  Tensor d32(DT_INT32, TensorShape({2}));
  d32.flat<int32>()(0) = 4;
  d32.flat<int32>()(1) = -1;
  EXPECT_THAT(MakeShapeFromTensor(d32, &s),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("non-negative, got -1")));
  PartialTensorShape p;
  ASSERT_THAT(MakeShapeFromTensor(d32, &p), IsOk());
  EXPECT_EQ(p.DebugString(), "[4,?]");
  ASSERT_THAT(MakeShapeFromTensor(Tensor(int32{-1}), &p), IsOk());
  EXPECT_TRUE(p.unknown_rank());
  EXPECT_THAT(MakeShapeFromTensor(Tensor(DT_FLOAT, TensorShape({2})), &s),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("got a vector of float")));
  EXPECT_THAT(MakeShapeFromTensor(Tensor(int32{3}), &s),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("got shape []")));
  Tensor huge(DT_INT64, TensorShape({2}));
  huge.flat<int64>().setConstant(int64_t{1} << 40);
  EXPECT_THAT(MakeShapeFromTensor(huge, &s),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("2**63 - 1")));
}

TEST(TensorTest, CheckTypeAndRank) {
  Tensor t(DT_FLOAT, TensorShape({2, 2}));
  EXPECT_THAT(t.CheckTypeAndRank<float>(2), IsOk());
  EXPECT_THAT(t.CheckTypeAndRank<float>(), IsOk());
  EXPECT_THAT(t.CheckTypeAndRank<int32>(2),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("int32 expected, got float")));
  EXPECT_THAT(t.CheckTypeAndRank(DT_FLOAT, 1),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Expected a tensor of rank 1, got shape [2,2]")));
}

TEST(TensorDeathTest, AccessorMisuseNamesBothTypes) {
  Tensor t(DT_FLOAT, TensorShape({2, 2}));
  EXPECT_DEATH(t.flat<int32>(), "int32 expected, got float");
  EXPECT_DEATH(t.vec<float>(), "rank 1 view of a tensor of shape \\[2,2\\]");
  EXPECT_DEATH(t.scalar<float>(), "one element");
  EXPECT_DEATH((t.shaped<float, 2>({3, 1})), "Cannot view");
  Tensor slice = Tensor(DT_FLOAT, TensorShape({4, 1})).Slice(1, 3);
  EXPECT_DEATH(slice.flat<float>(), "not aligned");
  EXPECT_DEATH(t.Slice(1, 3), "out of range");
  Tensor s(DT_STRING, TensorShape({1}));
  EXPECT_DEATH(s.tensor_data(), "not bytes");
}

TEST(TensorTest, SliceSharesBuffer) {
  Tensor t = MakeFloat(TensorShape({4, 2}), {0, 1, 2, 3, 4, 5, 6, 7});
  Tensor s = t.Slice(1, 3);
  EXPECT_EQ(s.shape(), TensorShape({2, 2}));
  EXPECT_TRUE(s.SharesBufferWith(t));
  auto m = s.unaligned_flat<float>();
  EXPECT_EQ(m(0), 2);
  EXPECT_EQ(m(3), 5);
  m(0) = 20;
  EXPECT_EQ(t.flat<float>()(2), 20);
  EXPECT_EQ(s.tensor_data().size(), 16u);
  EXPECT_EQ(s.SummarizeValue(10), "[20 3][4 5]");

  Tensor empty = t.Slice(2, 2);
  EXPECT_EQ(empty.NumElements(), 0);
  EXPECT_TRUE(empty.SharesBufferWith(t));

  // Rows of 16 floats keep 64-byte alignment.
  Tensor wide(DT_FLOAT, TensorShape({3, 16}));
  EXPECT_TRUE(wide.Slice(1, 2).IsAligned());
  EXPECT_FALSE(t.Slice(1, 2).IsAligned());

  Tensor sub = t.SubSlice(3);
  EXPECT_EQ(sub.shape(), TensorShape({2}));
  EXPECT_EQ(sub.unaligned_flat<float>()(1), 7);
  EXPECT_TRUE(sub.SharesBufferWith(t));

  Tensor out;
  EXPECT_THAT(t.SliceWithStatus(3, 5, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("out of range")));
  EXPECT_THAT(t.SliceWithStatus(-1, 1, &out), StatusIs(error::INVALID_ARGUMENT, ::testing::_));
  EXPECT_THAT(t.SliceWithStatus(2, 1, &out), StatusIs(error::INVALID_ARGUMENT, ::testing::_));
  EXPECT_THAT(Tensor(1.0f).SliceWithStatus(0, 1, &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("scalar")));
}

TEST(TensorTest, StringSliceShares) {
  Tensor t(DT_STRING, TensorShape({3}));
  t.flat<tstring>()(2) = "two";
  Tensor s = t.Slice(2, 3);
  EXPECT_EQ(s.unaligned_flat<tstring>()(0), "two");
}

TEST(TensorTest, CopyFromSharesWithoutCopying) {
  Tensor t = MakeFloat(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6});
  Tensor r;
  ASSERT_TRUE(r.CopyFrom(t, TensorShape({3, 2})));
  EXPECT_EQ(r.shape(), TensorShape({3, 2}));
  EXPECT_TRUE(r.SharesBufferWith(t));
  EXPECT_EQ(r.data(), t.data());
  EXPECT_EQ(r.matrix<float>()(2, 1), 6);
  EXPECT_FALSE(r.CopyFrom(t, TensorShape({7})));
  EXPECT_EQ(r.shape(), TensorShape({3, 2})) << "unchanged on failure";
}

TEST(TensorTest, BitcastFrom) {
  Tensor t(DT_INT32, TensorShape({2}));
  t.flat<int32>()(0) = 0x3f800000;  // 1.0f
  Tensor f;
  ASSERT_THAT(f.BitcastFrom(t, DT_FLOAT, TensorShape({2})), IsOk());
  EXPECT_EQ(f.flat<float>()(0), 1.0f);
  Tensor b;
  ASSERT_THAT(b.BitcastFrom(t, DT_UINT8, TensorShape({2, 4})), IsOk());
  EXPECT_TRUE(b.SharesBufferWith(t));
  EXPECT_THAT(b.BitcastFrom(t, DT_INT64, TensorShape({2})),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("does not match")));
  EXPECT_THAT(b.BitcastFrom(Tensor(DT_STRING, TensorShape({1})), DT_INT64,
                            TensorShape({1})),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Cannot bitcast from string")));
}

TEST(TensorTest, DeepCopyIsIndependent) {
  Tensor t = MakeFloat(TensorShape({2}), {1, 2});
  Tensor c = DeepCopy(t);
  EXPECT_FALSE(c.SharesBufferWith(t));
  c.flat<float>()(0) = 5;
  EXPECT_EQ(t.flat<float>()(0), 1);
  EXPECT_EQ(c.flat<float>()(1), 2);

  Tensor s(DT_STRING, TensorShape({2}));
  s.flat<tstring>()(0) = std::string(100, 'a');
  s.flat<tstring>()(1) = "b";
  Tensor sc;
  ASSERT_THAT(DeepCopy(s, &sc), IsOk());
  s.flat<tstring>()(0) = "changed";
  EXPECT_EQ(sc.flat<tstring>()(0), std::string(100, 'a'));
  EXPECT_EQ(sc.flat<tstring>()(1), "b");

  FailingAllocator failing;
  Tensor uninit(&failing, DT_FLOAT, TensorShape({2}));
  EXPECT_THAT(DeepCopy(uninit, &sc),
              StatusIs(error::FAILED_PRECONDITION, HasSubstr("uninitialized")));
  EXPECT_THAT(DeepCopy(t, &sc, &failing), StatusIs(error::RESOURCE_EXHAUSTED, ::testing::_));
}

TEST(TensorTest, StringTensors) {
  Tensor t(DT_STRING, TensorShape({2, 2}));
  auto m = t.matrix<tstring>();
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) EXPECT_EQ(m(i, j), "");
  }
  m(0, 0) = "short";
  m(1, 1) = std::string(10000, 'z');
  Tensor copy = t;
  t = Tensor();
  EXPECT_EQ(copy.flat<tstring>()(3).size(), 10000u);
  EXPECT_EQ(copy.TotalBytes(), 4 * sizeof(tstring));
}

}  // namespace
}  // namespace opkit

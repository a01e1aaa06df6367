#include "opkit/tensor/tensor.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Every base DataType (from the proto descriptor).
std::vector<DataType> BaseTypes() {
  std::vector<DataType> out;
  const auto* desc = DataType_descriptor();
  for (int i = 0; i < desc->value_count(); ++i) {
    const auto dt = static_cast<DataType>(desc->value(i)->number());
    if (dt != DT_INVALID && !IsRefType(dt)) out.push_back(dt);
  }
  return out;
}

bool HasElementStorage(DataType dt) {
  return dt == DT_STRING || DataTypeSize(dt) > 0;
}

// Fails every request.
class FailingAllocator : public Allocator {
 public:
  std::string Name() override { return "failing"; }
  void* AllocateRaw(size_t, size_t) override { return nullptr; }
  void DeallocateRaw(void*) override {}
};

// Counts live allocations so tests can see buffers being released.
class CountingAllocator : public Allocator {
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

Tensor MakeFloat(const TensorShape& shape, std::vector<float> values) {
  Tensor t(DT_FLOAT, shape);
  EXPECT_EQ(static_cast<size_t>(t.NumElements()), values.size());
  auto flat = t.flat<float>();
  for (size_t i = 0; i < values.size(); ++i) flat(i) = values[i];
  return t;
}

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
    if (!HasElementStorage(dt)) {
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
    const size_t elem = dt == DT_STRING ? sizeof(tstring) : DataTypeSize(dt);
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
  EXPECT_THAT(Tensor::Allocate(DT_RESOURCE, TensorShape({2}), &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("not supported")));
  EXPECT_THAT(Tensor::Allocate(static_cast<DataType>(55), TensorShape({2}), &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("unknown dtype enum (55)")));
  EXPECT_FALSE(t.IsInitialized()) << "unchanged on error";
}

TEST(TensorTest, AllocationFailureIsResourceExhausted) {
  FailingAllocator failing;
  Tensor t;
  EXPECT_THAT(Tensor::Allocate(DT_FLOAT, TensorShape({2, 3}), &t, &failing),
              StatusIs(error::RESOURCE_EXHAUSTED,
                       HasSubstr("OOM when allocating tensor with shape [2,3] "
                                 "and type float (24 bytes) by allocator failing")));
  // Larger than the CPU allocator will try.
  EXPECT_THAT(Tensor::Allocate(DT_FLOAT, TensorShape({int64_t{1} << 39}), &t),
              StatusIs(error::RESOURCE_EXHAUSTED, HasSubstr("by allocator cpu")));
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
  CountingAllocator counting;
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

// ---------------------------------------------------------------------------
// Protos.

TensorProto ProtoWithShape(DataType dt, const std::vector<int64_t>& dims) {
  TensorProto p;
  p.set_dtype(dt);
  for (int64_t d : dims) p.mutable_tensor_shape()->add_dim()->set_size(d);
  return p;
}

TEST(TensorProtoTest, TypedFieldsForEveryDtype) {
  Tensor t;
  {
    TensorProto p = ProtoWithShape(DT_FLOAT, {3});
    p.add_float_val(1.5f);
    p.add_float_val(-2);
    p.add_float_val(3);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_THAT(std::vector<float>(t.flat<float>().data(), t.flat<float>().data() + 3),
                ElementsAre(1.5f, -2, 3));
  }
  {
    TensorProto p = ProtoWithShape(DT_DOUBLE, {2});
    p.add_double_val(0.25);
    p.add_double_val(1e300);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<double>()(1), 1e300);
  }
  auto check_int = [&](DataType dt, auto tag) {
    using T = decltype(tag);
    TensorProto p = ProtoWithShape(dt, {2});
    p.add_int_val(7);
    p.add_int_val(-1);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk()) << DataTypeString(dt);
    EXPECT_EQ(t.dtype(), dt);
    EXPECT_EQ(t.flat<T>()(0), T(7)) << DataTypeString(dt);
    EXPECT_EQ(t.flat<T>()(1), static_cast<T>(-1)) << DataTypeString(dt);
  };
  check_int(DT_INT32, int32{});
  check_int(DT_INT16, int16{});
  check_int(DT_INT8, int8{});
  check_int(DT_UINT8, uint8{});
  check_int(DT_UINT16, uint16{});
  {
    TensorProto p = ProtoWithShape(DT_QINT8, {2});
    p.add_int_val(-100);
    p.add_int_val(100);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<qint8>()(0).value, -100);
    p.set_dtype(DT_QUINT8);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<quint8>()(1).value, 100);
    p.set_dtype(DT_QINT16);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<qint16>()(0).value, -100);
    p.set_dtype(DT_QUINT16);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<quint16>()(1).value, 100);
    p.set_dtype(DT_QINT32);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<qint32>()(0).value, -100);
  }
  {
    TensorProto p = ProtoWithShape(DT_INT64, {1});
    p.add_int64_val(int64_t{1} << 50);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<int64>()(0), int64_t{1} << 50);
  }
  {
    TensorProto p = ProtoWithShape(DT_UINT32, {1});
    p.add_uint32_val(4000000000u);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<uint32>()(0), 4000000000u);
  }
  {
    TensorProto p = ProtoWithShape(DT_UINT64, {1});
    p.add_uint64_val(uint64_t{1} << 63);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<uint64>()(0), uint64_t{1} << 63);
  }
  {
    TensorProto p = ProtoWithShape(DT_BOOL, {2});
    p.add_bool_val(true);
    p.add_bool_val(false);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_TRUE(t.flat<bool>()(0));
    EXPECT_FALSE(t.flat<bool>()(1));
  }
  {
    TensorProto p = ProtoWithShape(DT_STRING, {2});
    p.add_string_val("a");
    p.add_string_val(std::string("b\0c", 3));
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<tstring>()(1), std::string("b\0c", 3));
  }
  {
    TensorProto p = ProtoWithShape(DT_HALF, {2});
    p.add_half_val(Eigen::numext::bit_cast<uint16_t>(half(1.5f)));
    p.add_half_val(Eigen::numext::bit_cast<uint16_t>(half(-2.0f)));
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(static_cast<float>(t.flat<half>()(0)), 1.5f);
    EXPECT_EQ(static_cast<float>(t.flat<half>()(1)), -2.0f);
  }
  {
    TensorProto p = ProtoWithShape(DT_BFLOAT16, {1});
    p.add_half_val(Eigen::numext::bit_cast<uint16_t>(bfloat16(3.0f)));
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(static_cast<float>(t.flat<bfloat16>()(0)), 3.0f);
  }
  {
    TensorProto p = ProtoWithShape(DT_COMPLEX64, {2});
    for (float v : {1.f, 2.f, 3.f, 4.f}) p.add_scomplex_val(v);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<complex64>()(1), complex64(3, 4));
  }
  {
    TensorProto p = ProtoWithShape(DT_COMPLEX128, {1});
    p.add_dcomplex_val(5);
    p.add_dcomplex_val(-6);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(t.flat<complex128>()(0), complex128(5, -6));
  }
  {
    TensorProto p = ProtoWithShape(DT_FLOAT8_E4M3FN, {2});
    p.set_float8_val(std::string("\x38\x40", 2));
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(static_cast<const uint8_t*>(t.data())[1], 0x40);
  }
  {
    TensorProto p = ProtoWithShape(DT_INT4, {2});
    p.add_int_val(-8);
    p.add_int_val(7);
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
    EXPECT_EQ(static_cast<const int8_t*>(t.data())[0], -8);
  }
}

TEST(TensorProtoTest, FewerValuesArePaddedWithTheLast) {
  Tensor t;
  TensorProto p = ProtoWithShape(DT_INT32, {2, 3});
  p.add_int_val(4);
  p.add_int_val(5);
  ASSERT_TRUE(t.FromProto(p));
  EXPECT_EQ(t.SummarizeValue(-1), "[4 5 5][5 5 5]");

  TensorProto s = ProtoWithShape(DT_STRING, {3});
  s.add_string_val("x");
  ASSERT_THAT(Tensor::BuildFromProto(s, &t), IsOk());
  EXPECT_EQ(t.flat<tstring>()(2), "x");

  TensorProto c = ProtoWithShape(DT_COMPLEX64, {3});
  c.add_scomplex_val(1);
  c.add_scomplex_val(2);
  ASSERT_THAT(Tensor::BuildFromProto(c, &t), IsOk());
  EXPECT_EQ(t.flat<complex64>()(2), complex64(1, 2));
}

TEST(TensorProtoTest, NoValuesGiveZeros) {
  Tensor t;
  for (DataType dt : BaseTypes()) {
    if (!HasElementStorage(dt)) continue;
    TensorProto p = ProtoWithShape(dt, {4});
    ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk()) << DataTypeString(dt);
    if (dt == DT_STRING) {
      for (int i = 0; i < 4; ++i) EXPECT_EQ(t.flat<tstring>()(i), "");
    } else {
      const std::string_view bytes = t.tensor_data();
      EXPECT_EQ(bytes, std::string(bytes.size(), '\0')) << DataTypeString(dt);
    }
  }
  // A scalar shape with no values.
  ASSERT_THAT(Tensor::BuildFromProto(ProtoWithShape(DT_FLOAT, {}), &t), IsOk());
  EXPECT_EQ(t.scalar<float>()(), 0.0f);
}

TEST(TensorProtoTest, TensorContent) {
  Tensor t;
  TensorProto p = ProtoWithShape(DT_FLOAT, {2});
  const float values[] = {1.25f, -7};
  p.set_tensor_content(reinterpret_cast<const char*>(values), sizeof(values));
  p.add_float_val(99);  // Ignored when tensor_content is set, as in TensorFlow.
  ASSERT_THAT(Tensor::BuildFromProto(p, &t), IsOk());
  EXPECT_EQ(t.flat<float>()(0), 1.25f);
  EXPECT_EQ(t.flat<float>()(1), -7);

  // Bytes other than 0/1 in a bool tensor are normalised.
  TensorProto b = ProtoWithShape(DT_BOOL, {3});
  b.set_tensor_content(std::string("\x00\x01\x07", 3));
  ASSERT_THAT(Tensor::BuildFromProto(b, &t), IsOk());
  EXPECT_EQ(t.tensor_data(), std::string("\x00\x01\x01", 3));
}

TEST(TensorProtoTest, RoundTripsForEveryDtype) {
  for (DataType dt : BaseTypes()) {
    if (!HasElementStorage(dt)) continue;
    Tensor t(dt, TensorShape({2, 3}));
    if (dt == DT_STRING) {
      auto f = t.flat<tstring>();
      for (int i = 0; i < 6; ++i) f(i) = std::string(i * 50, static_cast<char>('a' + i));
    } else {
      // Bytes that are valid for every type (bool needs 0/1; float8 any).
      uint8_t* bytes = static_cast<uint8_t*>(t.data());
      for (size_t i = 0; i < t.TotalBytes(); ++i) {
        bytes[i] = dt == DT_BOOL ? (i % 2) : static_cast<uint8_t>(i * 7 + 1);
      }
      if (dt == DT_INT4 || dt == DT_INT2 || dt == DT_UINT4 || dt == DT_UINT2) {
        for (size_t i = 0; i < t.TotalBytes(); ++i) bytes[i] = i % 2;
      }
    }
    for (bool content : {false, true}) {
      TensorProto p;
      if (content) {
        t.AsProtoTensorContent(&p);
        EXPECT_FALSE(p.tensor_content().empty()) << DataTypeString(dt);
      } else {
        t.AsProtoField(&p);
        EXPECT_TRUE(p.tensor_content().empty()) << DataTypeString(dt);
      }
      EXPECT_EQ(p.dtype(), dt);
      EXPECT_EQ(p.tensor_shape().dim_size(), 2);
      Tensor back;
      ASSERT_THAT(Tensor::BuildFromProto(p, &back), IsOk())
          << DataTypeString(dt) << " content=" << content;
      EXPECT_EQ(back.dtype(), dt);
      EXPECT_EQ(back.shape(), t.shape());
      if (dt == DT_STRING) {
        for (int i = 0; i < 6; ++i) {
          EXPECT_EQ(back.flat<tstring>()(i), t.flat<tstring>()(i));
        }
      } else {
        EXPECT_EQ(back.tensor_data(), t.tensor_data())
            << DataTypeString(dt) << " content=" << content;
      }
    }
  }
}

TEST(TensorProtoTest, HalfFieldHoldsBits) {
  Tensor t(DT_HALF, TensorShape({1}));
  t.flat<half>()(0) = half(1.0f);
  TensorProto p;
  t.AsProtoField(&p);
  ASSERT_EQ(p.half_val_size(), 1);
  EXPECT_EQ(p.half_val(0), 0x3c00);
  Tensor c(DT_COMPLEX64, TensorShape({1}));
  c.flat<complex64>()(0) = complex64(1, 2);
  c.AsProtoField(&p);
  EXPECT_THAT(std::vector<float>(p.scomplex_val().begin(), p.scomplex_val().end()),
              ElementsAre(1, 2));
}

TEST(TensorProtoTest, EmptyTensors) {
  Tensor t(DT_FLOAT, TensorShape({0, 3}));
  TensorProto p;
  t.AsProtoTensorContent(&p);
  Tensor back;
  ASSERT_THAT(Tensor::BuildFromProto(p, &back), IsOk());
  EXPECT_EQ(back.shape(), TensorShape({0, 3}));
  EXPECT_TRUE(back.IsInitialized());
}

TEST(TensorProtoTest, MalformedProtosAreRejected) {
  Tensor t = MakeFloat(TensorShape({1}), {42});
  const Tensor original = t;

  TensorProto wrong_size = ProtoWithShape(DT_FLOAT, {2});
  wrong_size.set_tensor_content(std::string(7, 'x'));
  EXPECT_THAT(Tensor::BuildFromProto(wrong_size, &t),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("tensor_content holds 7 bytes but a float tensor of "
                                 "shape [2] needs 8")));

  TensorProto too_many = ProtoWithShape(DT_INT32, {2});
  for (int i = 0; i < 3; ++i) too_many.add_int_val(i);
  EXPECT_THAT(Tensor::BuildFromProto(too_many, &t),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("int_val has 3 values but a tensor of shape [2] has "
                                 "only 2 elements")));

  TensorProto values_for_empty = ProtoWithShape(DT_FLOAT, {0});
  values_for_empty.add_float_val(1);
  EXPECT_THAT(Tensor::BuildFromProto(values_for_empty, &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("float_val has 1 values")));

  TensorProto negative = ProtoWithShape(DT_FLOAT, {2, -1});
  EXPECT_THAT(Tensor::BuildFromProto(negative, &t),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("tensor_shape: Shape [2,-1] has negative dimensions")));

  TensorProto huge = ProtoWithShape(DT_FLOAT, {int64_t{1} << 40, int64_t{1} << 40});
  EXPECT_THAT(Tensor::BuildFromProto(huge, &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("too large")));

  TensorProto unknown_rank = ProtoWithShape(DT_FLOAT, {});
  unknown_rank.mutable_tensor_shape()->set_unknown_rank(true);
  EXPECT_THAT(Tensor::BuildFromProto(unknown_rank, &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("unknown rank")));

  TensorProto unknown_dtype = ProtoWithShape(static_cast<DataType>(50), {1});
  EXPECT_THAT(Tensor::BuildFromProto(unknown_dtype, &t),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("dtype unknown dtype enum (50) is not a valid")));

  EXPECT_THAT(Tensor::BuildFromProto(ProtoWithShape(DT_INVALID, {1}), &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("dtype INVALID")));
  EXPECT_THAT(Tensor::BuildFromProto(ProtoWithShape(DT_INT32_REF, {1}), &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("ref dtype int32_ref")));
  EXPECT_THAT(Tensor::BuildFromProto(ProtoWithShape(DT_VARIANT, {1}), &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("variant")));

  TensorProto odd_complex = ProtoWithShape(DT_COMPLEX128, {2});
  for (int i = 0; i < 3; ++i) odd_complex.add_dcomplex_val(i);
  EXPECT_THAT(Tensor::BuildFromProto(odd_complex, &t),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("dcomplex_val has 3 values; complex numbers need "
                                 "(real, imaginary) pairs")));

  TensorProto bad_strings = ProtoWithShape(DT_STRING, {2});
  bad_strings.set_tensor_content(std::string("\x03\x01" "abcdef", 8));
  EXPECT_THAT(Tensor::BuildFromProto(bad_strings, &t),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("declares 4 bytes of string data but holds 6")));
  TensorProto truncated = ProtoWithShape(DT_STRING, {2});
  truncated.set_tensor_content(std::string("\x80", 1));
  EXPECT_THAT(Tensor::BuildFromProto(truncated, &t),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("truncated or corrupt")));

  // The compat form returns false and leaves the tensor alone.
  EXPECT_FALSE(t.FromProto(too_many));
  EXPECT_TRUE(t.SharesBufferWith(original));
  EXPECT_EQ(t.flat<float>()(0), 42);
}

TEST(TensorProtoTest, AllocatorFailureIsReported) {
  FailingAllocator failing;
  Tensor t;
  TensorProto p = ProtoWithShape(DT_FLOAT, {2});
  EXPECT_THAT(Tensor::BuildFromProto(p, &t, &failing),
              StatusIs(error::RESOURCE_EXHAUSTED, ::testing::_));
  EXPECT_FALSE(t.FromProto(&failing, p));
}

// ---------------------------------------------------------------------------
// Printing.

TEST(TensorPrintTest, DebugString) {
  Tensor t = MakeFloat(TensorShape({2, 2}), {1, 2, 3, 4});
  EXPECT_EQ(t.DebugString(4), "Tensor<type: float shape: [2,2] values: [1 2][3 4]>");
  EXPECT_EQ(t.DebugString(), "Tensor<type: float shape: [2,2] values: [1 2][3...]...>");
  EXPECT_EQ(t.DeviceSafeDebugString(), "Tensor<type: float shape: [2,2]>");
  EXPECT_EQ(Tensor(int32{7}).DebugString(), "Tensor<type: int32 shape: [] values: 7>");
}

TEST(TensorPrintTest, SummarizeValueV1) {
  Tensor t = MakeFloat(TensorShape({2, 2}), {1, 2, 3, 4});
  EXPECT_EQ(t.SummarizeValue(-1), "[1 2][3 4]");
  EXPECT_EQ(t.SummarizeValue(10), "[1 2][3 4]");
  EXPECT_EQ(t.SummarizeValue(2), "[1 2]...");
  EXPECT_EQ(t.SummarizeValue(1), "[1...]...");
  EXPECT_EQ(t.SummarizeValue(0), "...");

  Tensor v(DT_INT32, TensorShape({5}));
  for (int i = 0; i < 5; ++i) v.flat<int32>()(i) = i + 1;
  EXPECT_EQ(v.SummarizeValue(3), "1 2 3...");
  EXPECT_EQ(v.SummarizeValue(5), "1 2 3 4 5");

  Tensor c(DT_INT64, TensorShape({2, 2, 2}));
  for (int i = 0; i < 8; ++i) c.flat<int64>()(i) = i;
  EXPECT_EQ(c.SummarizeValue(-1), "[[0 1][2 3]][[4 5][6 7]]");
  EXPECT_EQ(c.SummarizeValue(3), "[[0 1][2...]]...");

  Tensor f = MakeFloat(TensorShape({4}), {0.1f, 1e10f, 3.14159265f, -0.0f});
  EXPECT_EQ(f.SummarizeValue(-1), "0.1 1e+10 3.14159 -0");
  Tensor nan = MakeFloat(TensorShape({2}), {std::numeric_limits<float>::quiet_NaN(),
                                            -std::numeric_limits<float>::infinity()});
  EXPECT_EQ(nan.SummarizeValue(-1), "nan -inf");

  EXPECT_EQ(Tensor(half(1.5f)).SummarizeValue(1), "1.5");
  EXPECT_EQ(Tensor(bfloat16(-2.0f)).SummarizeValue(1), "-2");
  Tensor b(DT_BOOL, TensorShape({2}));
  b.flat<bool>()(0) = true;
  b.flat<bool>()(1) = false;
  EXPECT_EQ(b.SummarizeValue(-1), "1 0");
  Tensor i8(DT_INT8, TensorShape({2}));
  i8.flat<int8>()(0) = -3;
  i8.flat<int8>()(1) = 65;
  EXPECT_EQ(i8.SummarizeValue(-1), "-3 65");
  Tensor q(DT_QUINT8, TensorShape({1}));
  q.flat<quint8>()(0) = quint8(200);
  EXPECT_EQ(q.SummarizeValue(-1), "200");
  // TensorFlow prints no value for complex or qint32 elements.
  Tensor cx(DT_COMPLEX64, TensorShape({3}));
  EXPECT_EQ(cx.SummarizeValue(2), "? ?...");
  Tensor q32(DT_QINT32, TensorShape({2}));
  EXPECT_EQ(q32.SummarizeValue(-1, true), "[? ?]");
}

TEST(TensorPrintTest, Strings) {
  Tensor s(DT_STRING, TensorShape({3}));
  s.flat<tstring>()(0) = "a\nb";
  s.flat<tstring>()(1) = std::string("q\"'\\\x01", 5);
  s.flat<tstring>()(2) = "caf\xc3\xa9";
  EXPECT_EQ(s.SummarizeValue(-1), "a\\nb q\\\"\\'\\\\\\001 caf\xc3\xa9");
  EXPECT_EQ(s.SummarizeValue(-1, true), "[\"a\\nb\" \"q\\\"\\'\\\\\\001\" \"caf\xc3\xa9\"]");
}

TEST(TensorPrintTest, SummarizeValueV2) {
  Tensor t = MakeFloat(TensorShape({2, 2}), {1, 2, 3, 4});
  EXPECT_EQ(t.SummarizeValue(-1, true), "[[1 2]\n [3 4]]");
  Tensor v = MakeFloat(TensorShape({5}), {1, 2, 3, 4, 5});
  EXPECT_EQ(v.SummarizeValue(1, true), "[1 ... 5]");
  EXPECT_EQ(v.SummarizeValue(2, true), "[1 2 ... 4 5]");
  Tensor c(DT_INT32, TensorShape({2, 2, 2}));
  for (int i = 0; i < 8; ++i) c.flat<int32>()(i) = i;
  EXPECT_EQ(c.SummarizeValue(-1, true), "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]");
  EXPECT_EQ(Tensor(3.5f).SummarizeValue(-1, true), "3.5");
}

}  // namespace
}  // namespace opkit

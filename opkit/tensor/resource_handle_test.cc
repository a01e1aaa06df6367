// ResourceHandle and DT_RESOURCE tensors: storage, copies, protos, printing,
// the type check.
#include "opkit/tensor/resource_handle.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/tensor/tensor.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

struct Table {};
struct Other {};

// A DT_RESOURCE scalar holding `h`.
Tensor Scalar(const ResourceHandle& h) {
  Tensor t;
  EXPECT_THAT(Tensor::Allocate(DT_RESOURCE, TensorShape({}), &t), IsOk());
  t.scalar<ResourceHandle>()() = h;
  return t;
}

ResourceHandle MakeHandle(const std::string& name) {
  ResourceHandle h;
  h.set_device("/job:localhost/replica:0/task:0/device:CPU:0");
  h.set_container("localhost");
  h.set_name(name);
  const TypeIndex t = TypeIndex::Make<Table>();
  h.set_hash_code(t.hash_code());
  h.set_maybe_type_name(t.name());
  h.set_dtypes_and_shapes({{DT_FLOAT, PartialTensorShape({2, -1})}});
  return h;
}

TEST(ResourceHandleTest, DataTypeOfTheElementIsResource) {
  EXPECT_EQ(DataTypeToEnum<ResourceHandle>::value, DT_RESOURCE);
  static_assert(
      std::is_same_v<EnumToDataType<DT_RESOURCE>::Type, ResourceHandle>);
}

TEST(ResourceHandleTest, ResourceTensorsHoldHandlesAndShareThemOnCopy) {
  Tensor t;
  ASSERT_THAT(Tensor::Allocate(DT_RESOURCE, TensorShape({2}), &t), IsOk());
  EXPECT_TRUE(t.IsInitialized());
  EXPECT_EQ(t.flat<ResourceHandle>()(0).name(), "") << "empty handles";
  t.flat<ResourceHandle>()(1) = MakeHandle("b");
  Tensor shallow = t;
  EXPECT_EQ(shallow.flat<ResourceHandle>()(1).name(), "b");
  Tensor deep;
  ASSERT_THAT(DeepCopy(t, &deep), IsOk());
  t.flat<ResourceHandle>()(1).set_name("changed");
  EXPECT_EQ(deep.flat<ResourceHandle>()(1).name(), "b");
  EXPECT_EQ(shallow.flat<ResourceHandle>()(1).name(), "changed");

  Tensor scalar = Scalar(MakeHandle("s"));
  EXPECT_EQ(scalar.dtype(), DT_RESOURCE);
  EXPECT_EQ(scalar.scalar<ResourceHandle>()().name(), "s");
}

TEST(ResourceHandleTest, ProtoRoundTripKeepsEveryField) {
  const ResourceHandle h = MakeHandle("table");
  ResourceHandle back;
  ASSERT_TRUE(back.ParseFromString(h.SerializeAsString()));
  EXPECT_EQ(back.DebugString(), h.DebugString());
  ASSERT_EQ(back.dtypes_and_shapes().size(), 1u);
  EXPECT_EQ(back.dtypes_and_shapes()[0].dtype, DT_FLOAT);
  EXPECT_EQ(back.dtypes_and_shapes()[0].shape.DebugString(), "[2,?]");

  Tensor t = Scalar(h);
  TensorProto proto;
  t.AsProtoField(&proto);
  EXPECT_EQ(proto.resource_handle_val_size(), 1);
  Tensor from;
  ASSERT_THAT(Tensor::BuildFromProto(proto, &from), IsOk());
  EXPECT_EQ(from.scalar<ResourceHandle>()().name(), "table");
  t.AsProtoTensorContent(&proto);
  EXPECT_EQ(proto.resource_handle_val_size(), 1) << "handles have no bytes";
}

TEST(ResourceHandleTest, DebugStringIsTensorFlows) {
  ResourceHandle h;
  h.set_device("/cpu:0");
  h.set_container("c");
  h.set_name("n");
  h.set_hash_code(7);
  h.set_maybe_type_name("T");
  EXPECT_EQ(h.DebugString(),
            "device: /cpu:0 container: c name: n hash_code: 7 "
            "maybe_type_name: T");
  EXPECT_EQ(ProtoDebugString(h), h.DebugString());
  EXPECT_THAT(Scalar(h).SummarizeValue(3),
              HasSubstr("ResourceHandle(name=\"n\", device=\"/cpu:0\""));
}

TEST(ResourceHandleTest, ValidateTypeNamesBothTypes) {
  const ResourceHandle h = MakeHandle("table");
  EXPECT_THAT(h.ValidateType<Table>(), IsOk());
  EXPECT_THAT(
      h.ValidateType<Other>(),
      StatusIs(error::INVALID_ARGUMENT,
               HasSubstr("Trying to access a handle's resource using the "
                         "wrong type. The handle points to a resource (name "
                         "'table') of type '")));
}

TEST(ResourceHandleTest, UniqueIdsDiffer) {
  EXPECT_NE(ResourceHandle::GenerateUniqueId(),
            ResourceHandle::GenerateUniqueId());
}

}  // namespace
}  // namespace opkit

// Tests of DeviceNameUtils, DeviceBase and CpuDevice.

#include "opkit/device/device.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/threadpool.h"
#include "opkit/tensor/allocator.h"
#include "opkit/resource/resource_mgr.h"
#include "opkit/tensor/tensor.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

TEST(DeviceNameUtilsTest, ParsesFullNames) {
  ParsedDeviceName p;
  ASSERT_THAT(DeviceNameUtils::ParseDeviceName(
                  "/job:localhost/replica:0/task:0/device:CPU:0", &p),
              IsOk());
  EXPECT_TRUE(p.has_job);
  EXPECT_EQ(p.job, "localhost");
  EXPECT_TRUE(p.has_replica);
  EXPECT_EQ(p.replica, 0);
  EXPECT_TRUE(p.has_task);
  EXPECT_EQ(p.task, 0);
  EXPECT_TRUE(p.has_type);
  EXPECT_EQ(p.type, "CPU");
  EXPECT_TRUE(p.has_id);
  EXPECT_EQ(p.id, 0);

  ASSERT_THAT(DeviceNameUtils::ParseDeviceName("/job:worker_1/task:12/device:GPU:3",
                                               &p),
              IsOk());
  EXPECT_EQ(p.job, "worker_1");
  EXPECT_FALSE(p.has_replica);
  EXPECT_EQ(p.task, 12);
  EXPECT_EQ(p.type, "GPU");
  EXPECT_EQ(p.id, 3);
}

TEST(DeviceNameUtilsTest, ParsesShortAndLegacyNames) {
  ParsedDeviceName p;
  ASSERT_THAT(DeviceNameUtils::ParseDeviceName("/device:CPU:0", &p), IsOk());
  EXPECT_FALSE(p.has_job);
  EXPECT_EQ(p.type, "CPU");
  EXPECT_EQ(p.id, 0);

  ASSERT_THAT(DeviceNameUtils::ParseDeviceName("/cpu:1", &p), IsOk());
  EXPECT_EQ(p.type, "CPU");
  EXPECT_EQ(p.id, 1);

  ASSERT_THAT(DeviceNameUtils::ParseDeviceName("/gpu:*", &p), IsOk());
  EXPECT_EQ(p.type, "GPU");
  EXPECT_FALSE(p.has_id);

  ASSERT_THAT(DeviceNameUtils::ParseDeviceName("/device:XLA_CPU", &p), IsOk());
  EXPECT_EQ(p.type, "XLA_CPU");
  EXPECT_FALSE(p.has_id);

  ASSERT_THAT(DeviceNameUtils::ParseDeviceName("", &p), IsOk());
  EXPECT_EQ(p, ParsedDeviceName());

  EXPECT_TRUE(DeviceNameUtils::ParseFullName("/job:*/device:CPU:0", &p));
  EXPECT_FALSE(p.has_job);

  ASSERT_THAT(DeviceNameUtils::ParseLocalName("CPU:2", &p), IsOk());
  EXPECT_EQ(p.type, "CPU");
  EXPECT_EQ(p.id, 2);
}

TEST(DeviceNameUtilsTest, RejectsBadNames) {
  ParsedDeviceName p;
  for (const char* bad :
       {"cpu:0", "/device:", "/device:CPU:x", "/device:CPU:-1", "/job:Local",
        "/job:", "/replica:a", "/task:", "/device:1CPU:0", "/cpu:0/extra",
        "/device:CPU:99999999999", "/cpu", "//cpu:0"}) {
    SCOPED_TRACE(bad);
    EXPECT_THAT(DeviceNameUtils::ParseDeviceName(bad, &p),
                StatusIs(error::INVALID_ARGUMENT,
                         HasSubstr(std::string("Could not parse device name '") +
                                   bad + "'")));
    EXPECT_FALSE(DeviceNameUtils::ParseFullName(bad, &p));
  }
  EXPECT_THAT(DeviceNameUtils::ParseLocalName("CPU", &p),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("'CPU'")));
  EXPECT_THAT(DeviceNameUtils::ParseLocalName("/CPU:0", &p),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("device type")));
  EXPECT_THAT(DeviceNameUtils::ParseLocalName("CPU:0x", &p),
              StatusIs(error::INVALID_ARGUMENT, ::testing::_));
}

TEST(DeviceNameUtilsTest, FormatsNames) {
  EXPECT_EQ(DeviceNameUtils::FullName("localhost", 0, 1, "CPU", 2),
            "/job:localhost/replica:0/task:1/device:CPU:2");
  ParsedDeviceName p;
  ASSERT_THAT(DeviceNameUtils::ParseDeviceName("/cpu:3", &p), IsOk());
  EXPECT_EQ(DeviceNameUtils::ParsedNameToString(p), "/device:CPU:3");
  ASSERT_THAT(DeviceNameUtils::ParseDeviceName(
                  "/job:a/replica:1/task:2/device:GPU:*", &p),
              IsOk());
  EXPECT_EQ(DeviceNameUtils::ParsedNameToString(p),
            "/job:a/replica:1/task:2/device:GPU:*");
}

TEST(CpuDeviceTest, CreatesAWorkingDevice) {
  auto created = CpuDevice::Create("/job:localhost/replica:0/task:0/device:CPU:0", 3);
  ASSERT_THAT(created, IsOk());
  std::unique_ptr<Device> device = std::move(created).value();
  EXPECT_EQ(device->name(), "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(device->device_type(), "CPU");
  EXPECT_EQ(device->parsed_name().id, 0);
  EXPECT_EQ(device->DebugString(),
            "/job:localhost/replica:0/task:0/device:CPU:0 (CPU)");
  EXPECT_EQ(device->GetAllocator(), cpu_allocator());
  ASSERT_NE(device->resource_manager(), nullptr);
  ASSERT_NE(device->tensorflow_cpu_worker_threads(), nullptr);
  EXPECT_EQ(device->tensorflow_cpu_worker_threads()->num_threads, 3);
  ASSERT_NE(device->intra_op_thread_pool(), nullptr);
  EXPECT_EQ(device->intra_op_thread_pool()->NumThreads(), 3);
  ASSERT_TRUE(device->has_eigen_cpu_device());
  EXPECT_THAT(device->Sync(), IsOk());

  // The Eigen device evaluates expressions on the pool.
  Tensor a(DT_FLOAT, TensorShape({1000}));
  Tensor b(DT_FLOAT, TensorShape({1000}));
  a.flat<float>().setConstant(2.0f);
  b.flat<float>().device(*device->eigen_cpu_device()) = a.flat<float>() * 3.0f;
  EXPECT_EQ(b.flat<float>()(999), 6.0f);
}

TEST(CpuDeviceTest, DefaultsAndLegacyNames) {
  auto created = CpuDevice::Create();
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ((*created)->name(), "/device:CPU:0");
  EXPECT_GE((*created)->tensorflow_cpu_worker_threads()->num_threads, 1);

  auto legacy = CpuDevice::Create("/cpu:1", 1);
  ASSERT_THAT(legacy, IsOk());
  EXPECT_EQ((*legacy)->parsed_name().id, 1);
}

TEST(CpuDeviceTest, RejectsBadArguments) {
  EXPECT_THAT(CpuDevice::Create("/device:GPU:0", 1),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("of type GPU")));
  EXPECT_THAT(CpuDevice::Create("not a name", 1),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("Could not parse device name 'not a name'")));
  EXPECT_THAT(CpuDevice::Create("/device:CPU:0", -2),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("-2 intra-op threads")));
}

TEST(DeviceBaseTest, BareDeviceHasNoPieces) {
  DeviceBase base;
  EXPECT_EQ(base.name(), "");
  EXPECT_EQ(base.device_type(), "");
  EXPECT_EQ(base.GetAllocator(), cpu_allocator());
  EXPECT_EQ(base.resource_manager(), nullptr);
  EXPECT_EQ(base.tensorflow_cpu_worker_threads(), nullptr);
  EXPECT_EQ(base.intra_op_thread_pool(), nullptr);
  EXPECT_FALSE(base.has_eigen_cpu_device());
}

}  // namespace
}  // namespace opkit

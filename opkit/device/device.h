// Devices: where kernels run. DeviceBase is what a kernel sees through
// OpKernelContext::device() (allocator, Eigen device, intra-op thread pool,
// resource manager); Device adds a name and a type; CpuDevice is the CPU
// implementation. DeviceNameUtils parses device names.
//
//   OPKIT_ASSIGN_OR_RETURN(std::unique_ptr<Device> cpu,
//                          CpuDevice::Create("/device:CPU:0", /*intra_op_threads=*/4));
//   cpu->device_type();                 // "CPU"
//   out.flat<float>().device(*cpu->eigen_cpu_device()) = a.flat<float>() * 2.f;
//
//   ParsedDeviceName p;
//   OPKIT_RETURN_IF_ERROR(DeviceNameUtils::ParseDeviceName(
//       "/job:localhost/replica:0/task:0/device:CPU:0", &p));
//   p.type;  // "CPU"     p.id;  // 0
//
// Thread-safe: a device is shared by every kernel that runs on it.
#ifndef OPKIT_DEVICE_DEVICE_H_
#define OPKIT_DEVICE_DEVICE_H_

#include <memory>
#include <string>
#include <string_view>

#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/core/statusor.h"
#include "opkit/device/device_type.h"

namespace Eigen {
struct ThreadPoolDevice;
}  // namespace Eigen

namespace opkit {

class Allocator;
class ResourceMgr;
class ThreadPool;

// The pieces of a device name "/job:<job>/replica:<n>/task:<n>/device:<TYPE>:<n>".
// Every part is optional; has_* says whether it was given (a "*" wildcard
// leaves it unset).
struct OPKIT_EXPORT ParsedDeviceName {
  bool has_job = false;
  std::string job;
  bool has_replica = false;
  int replica = 0;
  bool has_task = false;
  int task = 0;
  bool has_type = false;
  std::string type;
  bool has_id = false;
  int id = 0;

  bool operator==(const ParsedDeviceName& other) const;
  bool operator!=(const ParsedDeviceName& other) const {
    return !(*this == other);
  }
};

// TensorFlow's device-name grammar, light. Thread-safe (no state).
class OPKIT_EXPORT DeviceNameUtils {
 public:
  // Parses `name` into `*parsed` (reset first). Accepts what TensorFlow's
  // ParseFullName accepts: any sequence of "/job:<name>" ([a-z][_a-z0-9]*),
  // "/replica:<n>", "/task:<n>", "/device:<TYPE>:<n>" ([A-Za-z][_A-Za-z0-9]*)
  // and the legacy "/cpu:<n>" / "/gpu:<n>" (types CPU and GPU), where any
  // value may be "*"; the empty name parses to nothing. InvalidArgument
  // quoting the name and the part that failed otherwise (numbers must fit
  // in an int).
  static Status ParseDeviceName(std::string_view name, ParsedDeviceName* parsed);

  // TensorFlow's spelling: true when ParseDeviceName() would succeed.
  static bool ParseFullName(std::string_view name, ParsedDeviceName* parsed);

  // "CPU:0" or "CPU:*" (no leading "/device:"): TensorFlow's local names.
  static Status ParseLocalName(std::string_view name, ParsedDeviceName* parsed);

  // "/job:<job>/replica:<r>/task:<t>/device:<type>:<id>".
  static std::string FullName(const std::string& job, int replica, int task,
                              const std::string& type, int id);

  // The name with every part that is set, in canonical order and spelling
  // ("/cpu:0" becomes "/device:CPU:0").
  static std::string ParsedNameToString(const ParsedDeviceName& parsed);
};

// What a kernel can reach of the device it runs on. Subclasses install the
// pieces they have; a piece that is missing is null (documented per call).
class OPKIT_EXPORT DeviceBase {
 public:
  // The CPU worker threads a kernel may parallelise over.
  struct CpuWorkerThreads {
    int num_threads = 0;
    ThreadPool* workers = nullptr;
  };

  DeviceBase();
  virtual ~DeviceBase();
  DeviceBase(const DeviceBase&) = delete;
  DeviceBase& operator=(const DeviceBase&) = delete;

  // The full device name; empty for a bare DeviceBase.
  virtual const std::string& name() const;
  // "CPU", "GPU", ...; empty for a bare DeviceBase.
  virtual const std::string& device_type() const;

  // Where tensors of this device are allocated. The base returns
  // cpu_allocator(). Never null.
  virtual Allocator* GetAllocator();

  // The device's resource manager, or null if it has none.
  virtual ResourceMgr* resource_manager();

  // The intra-op worker threads; null when the device has none.
  const CpuWorkerThreads* tensorflow_cpu_worker_threads() const {
    return cpu_worker_threads_;
  }
  // The intra-op thread pool; null when the device has none.
  ThreadPool* intra_op_thread_pool() const {
    return cpu_worker_threads_ == nullptr ? nullptr
                                          : cpu_worker_threads_->workers;
  }

  // The Eigen device over the intra-op pool, for Eigen tensor expressions;
  // null when the device has none.
  const Eigen::ThreadPoolDevice* eigen_cpu_device() const {
    return eigen_cpu_device_;
  }
  bool has_eigen_cpu_device() const { return eigen_cpu_device_ != nullptr; }

 protected:
  // Borrowed; must outlive the device (normally members of the subclass).
  void set_tensorflow_cpu_worker_threads(CpuWorkerThreads* threads) {
    cpu_worker_threads_ = threads;
  }
  void set_eigen_cpu_device(const Eigen::ThreadPoolDevice* device) {
    eigen_cpu_device_ = device;
  }

 private:
  CpuWorkerThreads* cpu_worker_threads_ = nullptr;
  const Eigen::ThreadPoolDevice* eigen_cpu_device_ = nullptr;
};

// A named device of a type.
class OPKIT_EXPORT Device : public DeviceBase {
 public:
  ~Device() override;

  const std::string& name() const override { return name_; }
  const std::string& device_type() const override {
    return device_type_.type_string();
  }
  const ParsedDeviceName& parsed_name() const { return parsed_name_; }

  // Waits for work queued on the device; CPU devices run synchronously, so
  // the default returns OK at once.
  virtual Status Sync();

  // "<name> (<type>)".
  std::string DebugString() const;

 protected:
  // `parsed` must be what DeviceNameUtils made of `name`.
  Device(std::string name, ParsedDeviceName parsed, DeviceType type);

 private:
  const std::string name_;
  const ParsedDeviceName parsed_name_;
  const DeviceType device_type_;
};

// The CPU device: cpu_allocator(), an intra-op ThreadPool, an
// Eigen::ThreadPoolDevice over it, and a ResourceMgr.
class OPKIT_EXPORT CpuDevice : public Device {
 public:
  // `name` must parse (DeviceNameUtils) and, if it names a type, name CPU
  // (InvalidArgument otherwise). `intra_op_threads` 0 means one per hardware
  // thread; negative is InvalidArgument.
  static StatusOr<std::unique_ptr<Device>> Create(
      const std::string& name = "/device:CPU:0", int intra_op_threads = 0);

  ~CpuDevice() override;

  Allocator* GetAllocator() override;
  ResourceMgr* resource_manager() override;

 private:
  CpuDevice(std::string name, ParsedDeviceName parsed, int num_threads);

  std::unique_ptr<ThreadPool> pool_;
  CpuWorkerThreads workers_;
  std::unique_ptr<ResourceMgr> resource_mgr_;
};

}  // namespace opkit

#endif  // OPKIT_DEVICE_DEVICE_H_

// Device-name parsing (DeviceNameUtils), DeviceBase, Device and the CPU
// device.
#include "opkit/device/device.h"

#include <cctype>
#include <cstdint>
#include <limits>
#include <thread>
#include <utility>

#include "opkit/core/machine_resources.h"
#include "opkit/core/errors.h"
#include "opkit/core/threadpool.h"
#include "opkit/tensor/allocator.h"
#include "opkit/resource/resource_mgr.h"

namespace opkit {
namespace {

bool ConsumePrefix(std::string_view* s, std::string_view prefix) {
  if (s->substr(0, prefix.size()) != prefix) return false;
  s->remove_prefix(prefix.size());
  return true;
}

// A non-negative decimal that fits in an int.
bool ConsumeNumber(std::string_view* s, int* value) {
  size_t i = 0;
  int64_t v = 0;
  while (i < s->size() && std::isdigit(static_cast<unsigned char>((*s)[i]))) {
    v = v * 10 + ((*s)[i] - '0');
    if (v > std::numeric_limits<int>::max()) return false;
    ++i;
  }
  if (i == 0) return false;
  *value = static_cast<int>(v);
  s->remove_prefix(i);
  return true;
}

// [a-z][_a-z0-9]*
bool ConsumeJobName(std::string_view* s, std::string* job) {
  if (s->empty() || !((*s)[0] >= 'a' && (*s)[0] <= 'z')) return false;
  size_t i = 1;
  while (i < s->size()) {
    char c = (*s)[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) break;
    ++i;
  }
  job->assign(s->data(), i);
  s->remove_prefix(i);
  return true;
}

// [A-Za-z][_A-Za-z0-9]*
bool ConsumeDeviceType(std::string_view* s, std::string* type) {
  if (s->empty() || !std::isalpha(static_cast<unsigned char>((*s)[0]))) {
    return false;
  }
  size_t i = 1;
  while (i < s->size()) {
    char c = (*s)[i];
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) break;
    ++i;
  }
  type->assign(s->data(), i);
  s->remove_prefix(i);
  return true;
}

// "*" (leaves *has false) or a number.
bool ConsumeIdOrWildcard(std::string_view* s, bool* has, int* value) {
  if (ConsumePrefix(s, "*")) {
    *has = false;
    return true;
  }
  *has = true;
  return ConsumeNumber(s, value);
}

Status ParseError(std::string_view name, std::string_view rest,
                  std::string_view what) {
  return errors::InvalidArgument(
      "Could not parse device name '", name, "': ", what, " at '", rest,
      "'. Expected a name like '/job:localhost/replica:0/task:0/device:CPU:0', "
      "'/device:CPU:0' or '/cpu:0'");
}

}  // namespace

bool ParsedDeviceName::operator==(const ParsedDeviceName& o) const {
  return has_job == o.has_job && (!has_job || job == o.job) &&
         has_replica == o.has_replica && (!has_replica || replica == o.replica) &&
         has_task == o.has_task && (!has_task || task == o.task) &&
         has_type == o.has_type && (!has_type || type == o.type) &&
         has_id == o.has_id && (!has_id || id == o.id);
}

Status DeviceNameUtils::ParseDeviceName(std::string_view name,
                                        ParsedDeviceName* parsed) {
  *parsed = ParsedDeviceName();
  std::string_view rest = name;
  while (!rest.empty()) {
    if (ConsumePrefix(&rest, "/job:")) {
      if (ConsumePrefix(&rest, "*")) {
        parsed->has_job = false;
      } else if (ConsumeJobName(&rest, &parsed->job)) {
        parsed->has_job = true;
      } else {
        return ParseError(name, rest,
                          "a job name must match [a-z][_a-z0-9]* or be '*'");
      }
    } else if (ConsumePrefix(&rest, "/replica:")) {
      if (!ConsumeIdOrWildcard(&rest, &parsed->has_replica, &parsed->replica)) {
        return ParseError(name, rest,
                          "a replica must be a non-negative int or '*'");
      }
    } else if (ConsumePrefix(&rest, "/task:")) {
      if (!ConsumeIdOrWildcard(&rest, &parsed->has_task, &parsed->task)) {
        return ParseError(name, rest, "a task must be a non-negative int or '*'");
      }
    } else if (ConsumePrefix(&rest, "/device:")) {
      if (ConsumePrefix(&rest, "*")) {
        parsed->has_type = false;
      } else if (ConsumeDeviceType(&rest, &parsed->type)) {
        parsed->has_type = true;
      } else {
        return ParseError(
            name, rest, "a device type must match [A-Za-z][_A-Za-z0-9]* or be '*'");
      }
      // TensorFlow allows "/device:CPU" without an id.
      if (ConsumePrefix(&rest, ":")) {
        if (!ConsumeIdOrWildcard(&rest, &parsed->has_id, &parsed->id)) {
          return ParseError(name, rest,
                            "a device id must be a non-negative int or '*'");
        }
      }
    } else if (ConsumePrefix(&rest, "/cpu:") || ConsumePrefix(&rest, "/CPU:")) {
      parsed->has_type = true;
      parsed->type = "CPU";
      if (!ConsumeIdOrWildcard(&rest, &parsed->has_id, &parsed->id)) {
        return ParseError(name, rest,
                          "a device id must be a non-negative int or '*'");
      }
    } else if (ConsumePrefix(&rest, "/gpu:") || ConsumePrefix(&rest, "/GPU:")) {
      parsed->has_type = true;
      parsed->type = "GPU";
      if (!ConsumeIdOrWildcard(&rest, &parsed->has_id, &parsed->id)) {
        return ParseError(name, rest,
                          "a device id must be a non-negative int or '*'");
      }
    } else {
      return ParseError(name, rest,
                        "expected /job:, /replica:, /task:, /device:, /cpu: "
                        "or /gpu:");
    }
  }
  return OkStatus();
}

bool DeviceNameUtils::ParseFullName(std::string_view name,
                                    ParsedDeviceName* parsed) {
  return ParseDeviceName(name, parsed).ok();
}

Status DeviceNameUtils::ParseLocalName(std::string_view name,
                                       ParsedDeviceName* parsed) {
  *parsed = ParsedDeviceName();
  std::string_view rest = name;
  if (!ConsumeDeviceType(&rest, &parsed->type)) {
    return errors::InvalidArgument(
        "Could not parse local device name '", name,
        "': it must start with a device type matching [A-Za-z][_A-Za-z0-9]*; "
        "expected a name like 'CPU:0'");
  }
  parsed->has_type = true;
  if (!ConsumePrefix(&rest, ":") ||
      !ConsumeIdOrWildcard(&rest, &parsed->has_id, &parsed->id) ||
      !rest.empty()) {
    return errors::InvalidArgument(
        "Could not parse local device name '", name,
        "': expected '<TYPE>:<id>' with a non-negative int id or '*', like "
        "'CPU:0'");
  }
  return OkStatus();
}

std::string DeviceNameUtils::FullName(const std::string& job, int replica,
                                      int task, const std::string& type,
                                      int id) {
  return StrCat("/job:", job, "/replica:", replica, "/task:", task, "/device:",
                type, ":", id);
}

std::string DeviceNameUtils::ParsedNameToString(const ParsedDeviceName& p) {
  std::string out;
  if (p.has_job) out += "/job:" + p.job;
  if (p.has_replica) out += StrCat("/replica:", p.replica);
  if (p.has_task) out += StrCat("/task:", p.task);
  if (p.has_type || p.has_id) {
    out += "/device:";
    out += p.has_type ? p.type : "*";
    out += p.has_id ? StrCat(":", p.id) : std::string(":*");
  }
  return out;
}

// ---------------------------------------------------------------------------

DeviceBase::DeviceBase() = default;
DeviceBase::~DeviceBase() = default;

const std::string& DeviceBase::name() const {
  static const std::string* const kEmpty = new std::string();
  return *kEmpty;
}

const std::string& DeviceBase::device_type() const { return name(); }

Allocator* DeviceBase::GetAllocator() { return cpu_allocator(); }

ResourceMgr* DeviceBase::resource_manager() { return nullptr; }

Device::Device(std::string name, ParsedDeviceName parsed, DeviceType type)
    : name_(std::move(name)),
      parsed_name_(std::move(parsed)),
      device_type_(std::move(type)) {}

Device::~Device() = default;

Status Device::Sync() { return OkStatus(); }

std::string Device::DebugString() const {
  return StrCat(name_, " (", device_type_.type_string(), ")");
}

// ---------------------------------------------------------------------------

StatusOr<std::unique_ptr<Device>> CpuDevice::Create(const std::string& name,
                                                    int intra_op_threads) {
  ParsedDeviceName parsed;
  OPKIT_RETURN_IF_ERROR(DeviceNameUtils::ParseDeviceName(name, &parsed));
  if (parsed.has_type && parsed.type != DEVICE_CPU) {
    return errors::InvalidArgument("Cannot create a CPU device named '", name,
                                   "': the name is of a device of type ",
                                   parsed.type, "; use a name like '/device:CPU:0'");
  }
  if (intra_op_threads < 0) {
    return errors::InvalidArgument(
        "Cannot create CPU device '", name, "' with ", intra_op_threads,
        " intra-op threads; use a positive count, or 0 for one per hardware "
        "thread");
  }
  parsed.has_type = true;
  parsed.type = DEVICE_CPU;
  int threads = intra_op_threads;
  if (threads == 0) {
    threads = NumSchedulableCpus();
  }
  return std::unique_ptr<Device>(new CpuDevice(name, std::move(parsed), threads));
}

CpuDevice::CpuDevice(std::string name, ParsedDeviceName parsed, int num_threads)
    : Device(std::move(name), std::move(parsed), DeviceType(DEVICE_CPU)),
      pool_(std::make_unique<ThreadPool>("intra_op", num_threads)),
      resource_mgr_(std::make_unique<ResourceMgr>()) {
  workers_.num_threads = pool_->NumThreads();
  workers_.workers = pool_.get();
  set_tensorflow_cpu_worker_threads(&workers_);
  set_eigen_cpu_device(&pool_->eigen_device());
}

CpuDevice::~CpuDevice() {
  // Resources may hold work on the pool: drop them first.
  resource_mgr_.reset();
  pool_.reset();
}

Allocator* CpuDevice::GetAllocator() { return cpu_allocator(); }

ResourceMgr* CpuDevice::resource_manager() { return resource_mgr_.get(); }

}  // namespace opkit

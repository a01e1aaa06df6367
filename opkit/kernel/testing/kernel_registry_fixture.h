// Test-only: the fixture the KernelRegistry tests share (an op registry
// with a few ops and a kernel registry over it) and helpers to build
// registrations and nodes and to capture the log.
#ifndef OPKIT_KERNEL_TESTING_KERNEL_REGISTRY_FIXTURE_H_
#define OPKIT_KERNEL_TESTING_KERNEL_REGISTRY_FIXTURE_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/logging.h"
#include "opkit/core/mutex.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/op/op_registry.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace kernel_testing {

inline OpKernel* FactoryA(OpKernelConstruction*) { return nullptr; }

// Captures what the registry logs.
class CapturingSink : public LogSink {
 public:
  CapturingSink() { AddLogSink(this); }
  ~CapturingSink() override { RemoveLogSink(this); }
  void Send(const LogEntry& entry) override {
    mutex_lock lock(mu_);
    entries_.push_back(entry);
  }
  std::vector<std::string> Messages(LogSeverity severity) {
    mutex_lock lock(mu_);
    std::vector<std::string> out;
    for (const LogEntry& e : entries_) {
      if (e.severity == severity) out.push_back(e.message);
    }
    return out;
  }
  void Clear() {
    mutex_lock lock(mu_);
    entries_.clear();
  }

 private:
  mutex mu_;
  std::vector<LogEntry> entries_;
};

inline std::vector<std::string> Matching(const std::vector<std::string>& messages,
                                  const std::string& needle) {
  std::vector<std::string> out;
  for (const std::string& m : messages) {
    if (m.find(needle) != std::string::npos) out.push_back(m);
  }
  return out;
}

inline void AddOp(OpRegistry* ops, OpDefBuilder builder) {
  OpRegistrationData data;
  OPKIT_ASSERT_OK(builder.Finalize(&data));
  OPKIT_ASSERT_OK(ops->Register(std::move(data)));
}

inline KernelRegistration Reg(const KernelDefBuilder& builder, std::string class_name,
                       int line = 1, std::string library = "") {
  KernelRegistration reg;
  reg.def = builder.BuildDef();
  reg.kernel_class_name = std::move(class_name);
  reg.factory = &FactoryA;
  reg.origin = RegistrationOrigin{"kernels.cc", line, std::move(library)};
  return reg;
}

inline NodeDef Node(const std::string& op, DataType t = DT_INVALID,
             const std::string& label = "") {
  NodeDef node;
  node.set_name("n");
  node.set_op(op);
  if (t != DT_INVALID) (*node.mutable_attr())["T"].set_type(t);
  if (!label.empty()) (*node.mutable_attr())["_kernel"].set_s(label);
  return node;
}

class KernelRegistryTest : public ::testing::Test {
 protected:
  KernelRegistryTest() : kernels_(&ops_) {
    AddOp(&ops_, OpDefBuilder("MatMul")
                     .Attr("T: {half, float, double, int32}")
                     .Attr("transpose_a: bool = false")
                     .Input("a: T")
                     .Input("b: T")
                     .Output("product: T"));
    AddOp(&ops_, OpDefBuilder("WithDefault")
                     .Attr("T: {float, int32} = DT_INT32")
                     .Input("x: T")
                     .Output("y: T"));
    AddOp(&ops_, OpDefBuilder("ListOp")
                     .Attr("Tin: list(type)")
                     .Input("x: Tin")
                     .Output("y: float"));
    AddOp(&ops_, OpDefBuilder("Modes")
                     .Attr("mode: string")
                     .Attr("n: int")
                     .Attr("flag: bool")
                     .Output("y: float"));
  }

  std::string Select(const NodeDef& node, const char* device = DEVICE_CPU) {
    std::string class_name;
    Status s = kernels_.FindKernelDef(DeviceType(device), node, nullptr,
                                      &class_name);
    return s.ok() ? class_name : "error: " + s.ToString();
  }

  OpRegistry ops_;
  KernelRegistry kernels_;
};

}  // namespace kernel_testing
}  // namespace opkit

#endif  // OPKIT_KERNEL_TESTING_KERNEL_REGISTRY_FIXTURE_H_

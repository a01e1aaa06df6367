// Test-only: how the op registry's tests (op_registry_test.cc,
// register_op_test.cc) make ops and read names back.
#ifndef OPKIT_OP_TESTING_OP_REGISTRY_TEST_UTIL_H_
#define OPKIT_OP_TESTING_OP_REGISTRY_TEST_UTIL_H_

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/registration_origin.h"
#include "opkit/op/op.h"
#include "opkit/op/op_def_builder.h"
#include "opkit/op/op_registry.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace op_test {

// A shape function for ops whose shapes a test does not look at.
inline Status UnknownShapeForTest(shape_inference::InferenceContext*) {
  return OkStatus();
}

// An op's signature as OpDefBuilder spec strings.
struct Spec {
  std::string name;
  std::vector<std::string> attrs;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
};

inline OpDefBuilder MakeBuilder(const Spec& spec, RegistrationOrigin origin = {}) {
  OpDefBuilder b(spec.name);
  for (const auto& a : spec.attrs) b.Attr(a);
  for (const auto& i : spec.inputs) b.Input(i);
  for (const auto& o : spec.outputs) b.Output(o);
  b.SetOrigin(std::move(origin));
  return b;
}

inline OpRegistrationData MakeOp(const Spec& spec, RegistrationOrigin origin = {}) {
  OpRegistrationData data;
  Status s = MakeBuilder(spec, std::move(origin)).Finalize(&data);
  EXPECT_THAT(s, ::opkit::testing::IsOk()) << spec.name;
  return data;
}

inline OpRegistrationData SimpleOp(const std::string& name,
                            RegistrationOrigin origin = {}) {
  return MakeOp({name, {"T: type"}, {"x: T"}, {"y: T"}}, std::move(origin));
}

inline std::vector<std::string> Names(const OpList& list) {
  std::vector<std::string> names;
  for (const OpDef& def : list.op()) names.push_back(def.name());
  return names;
}

inline std::vector<std::string> Names(const PendingOpRegistrations& regs) {
  std::vector<std::string> names;
  for (const auto& r : regs) names.push_back(r.op_name);
  return names;
}

}  // namespace op_test
}  // namespace opkit

#endif  // OPKIT_OP_TESTING_OP_REGISTRY_TEST_UTIL_H_

// Tests of Var, core::RefCountPtr, and ResourceMgr's lookups by handle.
#include "opkit/resource/resource_var.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/resource/resource_mgr.h"
#include "opkit/tensor/resource_handle.h"
#include "opkit/tensor/type_index.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

TEST(VarTest, DebugStringAndMemoryUsedDescribeTheValue) {
  core::RefCountPtr<Var> var(new Var(DT_FLOAT));
  EXPECT_FALSE(var->is_initialized);
  EXPECT_FALSE(var->tensor()->IsInitialized());
  {
    mutex_lock l(*var->mu());
    *var->tensor() = Tensor(DT_FLOAT, TensorShape({2, 3}));
    var->is_initialized = true;
  }
  EXPECT_EQ(var->DebugString(), "float/[2,3]");
  EXPECT_GE(var->MemoryUsed(), 24);
}

TEST(RefCountPtrTest, DropsItsReferenceAndGetNewRefAddsOne) {
  Var* raw = new Var(DT_INT32);
  raw->Ref();  // Ours, to watch the count.
  {
    core::RefCountPtr<Var> p(raw);
    core::RefCountPtr<Var> q = p.GetNewRef();
    EXPECT_EQ(q.get(), raw);
    EXPECT_FALSE(raw->RefCountIsOne());
  }
  EXPECT_TRUE(raw->RefCountIsOne());
  raw->Unref();
}

ResourceHandle HandleFor(const std::string& container, const std::string& name,
                         const TypeIndex& type) {
  ResourceHandle h;
  h.set_container(container);
  h.set_name(name);
  h.set_hash_code(type.hash_code());
  h.set_maybe_type_name(type.name());
  return h;
}

TEST(ResourceMgrHandleTest, LookupAndDeleteByHandleCheckTheTypeHash) {
  ResourceMgr rm;
  ASSERT_THAT(rm.Create("c", "v", new Var(DT_FLOAT)), IsOk());
  ResourceBase* found = nullptr;
  ASSERT_THAT(rm.Lookup(HandleFor("c", "v", TypeIndex::Make<Var>()), &found),
              IsOk());
  core::ScopedUnref unref(found);
  EXPECT_EQ(found->DebugString(), "float/[]");

  EXPECT_THAT(
      rm.Lookup(HandleFor("c", "v", TypeIndex::Make<int>()), &found),
      StatusIs(error::NOT_FOUND,
               HasSubstr("Resource c/v/ResourceBase does not exist.")));
  EXPECT_THAT(rm.Lookup(HandleFor("nope", "v", TypeIndex::Make<Var>()), &found),
              StatusIs(error::NOT_FOUND,
                       HasSubstr("Container nope does not exist.")));
  EXPECT_THAT(rm.Delete(HandleFor("c", "v", TypeIndex::Make<Var>())), IsOk());
  EXPECT_THAT(rm.Delete(HandleFor("c", "v", TypeIndex::Make<Var>())),
              StatusIs(error::NOT_FOUND));
}

}  // namespace
}  // namespace opkit

// LoadOpLibrary and OpLibrary::Unload with real plugins (built by this
// folder's CMakeLists.txt): loading, running, the all-or-nothing rule for
// every kind of fault, same-file and same-content loads, shared ops,
// unloading with kernel instances alive, reloading a changed build, and what
// happens to the libraries an op library links.
#include "opkit/runtime/library.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/env.h"
#include "opkit/kernel/kernel_registry.h"
#include "opkit/op/op.h"
#include "opkit/op/op_registry.h"
#include "opkit/runtime/eager_context.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A scratch folder for copies of plugins, removed at the end.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = ::testing::TempDir() + "/opkit-library-test-XXXXXX";
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    path_ = mkdtemp(name.data());
  }
  ~ScratchDir() {
    for (const std::string& f : files_) unlink(f.c_str());
    rmdir(path_.c_str());
  }
  // Copies `from` to <dir>/<name> (replacing the file: a new inode, as a
  // build does) and returns the new path.
  std::string Copy(const std::string& from, const std::string& name) {
    std::string contents;
    EXPECT_THAT(ReadFileToString(from, &contents), IsOk());
    std::string to = path_ + "/" + name;
    unlink(to.c_str());
    EXPECT_THAT(WriteStringToFile(to, contents), IsOk());
    files_.push_back(to);
    return to;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

bool IsMapped(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  dlclose(handle);
  return true;
}

// Runs the nullary int32 op `op` and returns its value (or -1).
int RunValue(EagerContext* ctx, const std::string& op) {
  std::vector<Tensor> out;
  Status s = ctx->Run(op, {}, &out);
  if (!s.ok() || out.size() != 1) return -1;
  return out[0].scalar<int32>()();
}

struct RegistrySizes {
  size_t ops;
  size_t kernels;
  bool operator==(const RegistrySizes& o) const {
    return ops == o.ops && kernels == o.kernels;
  }
};

RegistrySizes Sizes() {
  return {OpRegistry::Global()->size(), KernelRegistry::Global()->size()};
}

class LibraryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ctx = EagerContext::Create();
    ASSERT_THAT(ctx.status(), IsOk());
    ctx_ = *std::move(ctx);
  }
  std::unique_ptr<EagerContext> ctx_;
  ScratchDir scratch_;
};

TEST_F(LibraryTest, LoadsRunsAndUnloads) {
  StatusOr<OpLibrary> lib = LoadOpLibrary(LIBTEST_VALUE_V1);
  ASSERT_THAT(lib.status(), IsOk());
  EXPECT_TRUE(lib->loaded());
  ASSERT_EQ(lib->op_list().op_size(), 1);
  EXPECT_EQ(lib->op_list().op(0).name(), "LibTestValue");
  ASSERT_EQ(lib->kernel_list().kernel_size(), 1);
  EXPECT_EQ(lib->kernel_list().kernel(0).op(), "LibTestValue");
  EXPECT_EQ(lib->kernel_list().kernel(0).device_type(), "CPU");
  EXPECT_EQ(RunValue(ctx_.get(), "LibTestValue"), 1);

  // Origins name the library.
  const OpRegistrationData* data = OpRegistry::Global()->LookUp("LibTestValue");
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->origin.library, lib->path());
  EXPECT_THAT(data->origin.file, HasSubstr("value_op.cc"));

  ASSERT_THAT(lib->Unload(), IsOk());
  EXPECT_FALSE(lib->loaded());
  EXPECT_EQ(OpRegistry::Global()->LookUp("LibTestValue"), nullptr);
  EXPECT_THAT(KernelRegistry::Global()->GetRegisteredKernelsForOp("LibTestValue")
                  .kernel_size(),
              0);
  std::vector<Tensor> out;
  EXPECT_THAT(ctx_->Run("LibTestValue", {}, &out),
              StatusIs(error::NOT_FOUND, HasSubstr("LibTestValue")));
  EXPECT_THAT(lib->Unload(), StatusIs(error::FAILED_PRECONDITION,
                                      HasSubstr("already unloaded")));
}

TEST_F(LibraryTest, SameFileAndSameContentsGiveTheSameLibrary) {
  const std::string copy = scratch_.Copy(LIBTEST_VALUE_V1, "renamed_value.so");
  StatusOr<OpLibrary> first = LoadOpLibrary(LIBTEST_VALUE_V1);
  ASSERT_THAT(first.status(), IsOk());
  const RegistrySizes sizes = Sizes();
  StatusOr<OpLibrary> again = LoadOpLibrary(LIBTEST_VALUE_V1);
  ASSERT_THAT(again.status(), IsOk());
  EXPECT_EQ(*again, *first);
  StatusOr<OpLibrary> renamed = LoadOpLibrary(copy);
  ASSERT_THAT(renamed.status(), IsOk());
  EXPECT_EQ(*renamed, *first);
  EXPECT_EQ(Sizes(), sizes);
  std::vector<OpLibrary> all = LoadedOpLibraries();
  EXPECT_EQ(std::count(all.begin(), all.end(), *first), 1);
  ASSERT_THAT(first->Unload(), IsOk());
  EXPECT_FALSE(again->loaded());
}

TEST_F(LibraryTest, EveryFaultLeavesBothRegistriesAsTheyWere) {
  struct Case {
    const char* path;
    error::Code code;
    std::vector<std::string> message;
  };
  const std::vector<Case> cases = {
      {LIBTEST_BAD_1, error::ALREADY_EXISTS,
       {"op 'Identity'", "already registered", "bad_ops.cc"}},
      {LIBTEST_BAD_2, error::INVALID_ARGUMENT, {"LibTestBadSpec", "notatype"}},
      {LIBTEST_BAD_3, error::NOT_FOUND, {"LibTestNoSuchOp"}},
      {LIBTEST_BAD_4, error::INVALID_ARGUMENT,
       {"Multiple OpKernel registrations match", "MatMul", "priority 0",
        "matmul_op.cc", "bad_ops.cc", ".Priority(1)", "Unregister"}},
      {LIBTEST_BAD_5, error::INVALID_ARGUMENT,
       {"ABI version 999", "Rebuild the library"}},
      {LIBTEST_BAD_6, error::INVALID_ARGUMENT,
       {"undefined symbol", "opkit_test_symbol_nobody_defines"}},
      {LIBTEST_NOT_OPKIT, error::INVALID_ARGUMENT,
       {"does not define opkit_abi_version"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path);
    const RegistrySizes before = Sizes();
    StatusOr<OpLibrary> lib = LoadOpLibrary(c.path);
    ASSERT_FALSE(lib.ok());
    EXPECT_EQ(lib.status().code(), c.code) << lib.status();
    EXPECT_THAT(std::string(lib.status().message()),
                AllOf(HasSubstr("Cannot load op library"), HasSubstr(c.path),
                      HasSubstr("registries are unchanged")));
    for (const std::string& part : c.message) {
      EXPECT_THAT(std::string(lib.status().message()), HasSubstr(part));
    }
    EXPECT_EQ(Sizes(), before);
    EXPECT_EQ(OpRegistry::Global()->LookUp("LibTestInnocent"), nullptr);
    EXPECT_EQ(NumPendingOpRegistrations(), 0u);
    EXPECT_EQ(NumPendingKernelRegistrations(), 0u);
    // A failed library is closed again.
    CloseUnusedOpLibraries();
    EXPECT_FALSE(IsMapped(c.path));
  }
  EXPECT_EQ(LoadedOpLibraries().size(), 0u);
}

// Libraries whose build records do not fit (Note [ABI build record] in
// opkit/core/abi.h) are refused before dlopen() runs any of their code, with
// the flag to change, and leave everything as it was.
TEST_F(LibraryTest, MismatchedBuildRecordsAreRefusedBeforeLoading) {
  struct Case {
    const char* path;
    std::vector<std::string> message;
  };
  std::vector<Case> cases = {
      {LIBTEST_ABI_EIGEN_ALIGN,
       {"EIGEN_MAX_ALIGN_BYTES=16", "opkit with EIGEN_MAX_ALIGN_BYTES=64",
        "Rebuild it with -DEIGEN_MAX_ALIGN_BYTES=64"}},
      {LIBTEST_ABI_OLD_CXX,
       {"compiled with -D_GLIBCXX_USE_CXX11_ABI=0",
        "Remove -D_GLIBCXX_USE_CXX11_ABI=0"}},
  };
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512f")) {
    cases.push_back({LIBTEST_ABI_AVX512,
                     {"vector instructions this CPU lacks: avx512f", "-mavx512f",
                      "-march=native"}});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path);
    const RegistrySizes before = Sizes();
    StatusOr<OpLibrary> lib = LoadOpLibrary(c.path);
    ASSERT_FALSE(lib.ok());
    EXPECT_EQ(lib.status().code(), error::INVALID_ARGUMENT) << lib.status();
    const std::string message(lib.status().message());
    EXPECT_THAT(message, AllOf(HasSubstr("Cannot load op library"), HasSubstr(c.path),
                               HasSubstr("registries are unchanged")));
    for (const std::string& part : c.message) EXPECT_THAT(message, HasSubstr(part));
    // Not blamed on the opkit version.
    EXPECT_THAT(message, ::testing::Not(HasSubstr("ABI version")));
    EXPECT_EQ(Sizes(), before);
    EXPECT_EQ(NumPendingOpRegistrations(), 0u);
    EXPECT_EQ(NumPendingKernelRegistrations(), 0u);
    EXPECT_FALSE(IsMapped(c.path));  // never opened
  }
  EXPECT_EQ(LoadedOpLibraries().size(), 0u);
}

TEST_F(LibraryTest, MissingFileAndEmptyPath) {
  EXPECT_THAT(LoadOpLibrary(scratch_.path() + "/no_such_library.so").status(),
              StatusIs(error::NOT_FOUND, HasSubstr("no such file")));
  EXPECT_THAT(LoadOpLibrary("").status(),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("empty path")));
  const std::string text = scratch_.path() + "/not_a_library.so";
  ASSERT_THAT(WriteStringToFile(text, "not an ELF file\n"), IsOk());
  EXPECT_THAT(LoadOpLibrary(text).status(),
              StatusIs(error::INVALID_ARGUMENT,
                       AllOf(HasSubstr("not_a_library.so"),
                             HasSubstr("shared library"))));
  unlink(text.c_str());
  OpLibrary none;
  EXPECT_FALSE(none.loaded());
  EXPECT_THAT(none.Unload(), StatusIs(error::FAILED_PRECONDITION));
}

TEST_F(LibraryTest, IdenticalOpInTwoLibrariesIsSharedAndSurvivesTheFirst) {
  StatusOr<OpLibrary> a = LoadOpLibrary(LIBTEST_SHARED_A);
  ASSERT_THAT(a.status(), IsOk());
  StatusOr<OpLibrary> b = LoadOpLibrary(LIBTEST_SHARED_B);
  ASSERT_THAT(b.status(), IsOk());
  EXPECT_THAT(a->shared_op_names(), ::testing::IsEmpty());
  EXPECT_THAT(b->shared_op_names(), ElementsAre("LibTestShared"));
  EXPECT_EQ(b->op_list().op_size(), 2);

  ASSERT_THAT(a->Unload(), IsOk());
  const OpRegistrationData* shared = OpRegistry::Global()->LookUp("LibTestShared");
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->origin.library, b->path());
  EXPECT_EQ(OpRegistry::Global()->LookUp("LibTestSharedA"), nullptr);
  ASSERT_THAT(b->Unload(), IsOk());
  EXPECT_EQ(OpRegistry::Global()->LookUp("LibTestShared"), nullptr);
}

TEST_F(LibraryTest, LibraryStaysMappedWhileAKernelInstanceLives) {
  const std::string path = scratch_.Copy(LIBTEST_VALUE_V1, "alive.so");
  StatusOr<OpLibrary> lib = LoadOpLibrary(path);
  ASSERT_THAT(lib.status(), IsOk());
  StatusOr<std::unique_ptr<PreparedOp>> op = ctx_->Prepare("LibTestValue", {});
  ASSERT_THAT(op.status(), IsOk());
  std::vector<Tensor> out;
  ASSERT_THAT((*op)->Run({}, &out), IsOk());
  ctx_.reset();  // drops the context's own cached kernels

  ASSERT_THAT(lib->Unload(), IsOk());
  EXPECT_TRUE(IsMapped(path)) << "closed under a live kernel";
  op->reset();  // the last kernel instance
  EXPECT_EQ(CloseUnusedOpLibraries(), 1u);
  EXPECT_FALSE(IsMapped(path));
}

TEST_F(LibraryTest, ReloadsAChangedBuildAndRunsTheNewCode) {
  const std::string path = scratch_.Copy(LIBTEST_VALUE_V1, "value.so");
  StatusOr<OpLibrary> v1 = LoadOpLibrary(path);
  ASSERT_THAT(v1.status(), IsOk());
  EXPECT_EQ(RunValue(ctx_.get(), "LibTestValue"), 1);
  ASSERT_THAT(v1->Unload(), IsOk());

  scratch_.Copy(LIBTEST_VALUE_V2, "value.so");  // "rebuilt"
  StatusOr<OpLibrary> v2 = LoadOpLibrary(path);
  ASSERT_THAT(v2.status(), IsOk());
  EXPECT_NE(*v2, *v1);
  EXPECT_EQ(RunValue(ctx_.get(), "LibTestValue"), 2);
  ASSERT_THAT(v2->Unload(), IsOk());
}

TEST_F(LibraryTest, ReloadsWhileTheOldBuildIsStillInUse) {
  const std::string path = scratch_.Copy(LIBTEST_VALUE_V1, "busy.so");
  StatusOr<OpLibrary> v1 = LoadOpLibrary(path);
  ASSERT_THAT(v1.status(), IsOk());
  StatusOr<std::unique_ptr<PreparedOp>> old_op = ctx_->Prepare("LibTestValue", {});
  ASSERT_THAT(old_op.status(), IsOk());
  ASSERT_THAT(v1->Unload(), IsOk());
  ASSERT_TRUE(IsMapped(path));

  scratch_.Copy(LIBTEST_VALUE_V2, "busy.so");
  StatusOr<OpLibrary> v2 = LoadOpLibrary(path);
  ASSERT_THAT(v2.status(), IsOk());
  EXPECT_EQ(v2->path(), v1->path());
  EXPECT_EQ(RunValue(ctx_.get(), "LibTestValue"), 2);
  // The prepared op re-selects too: the registry changed under it.
  std::vector<Tensor> out;
  ASSERT_THAT((*old_op)->Run({}, &out), IsOk());
  EXPECT_EQ(out[0].scalar<int32>()(), 2);
  old_op->reset();
  ASSERT_THAT(v2->Unload(), IsOk());
}

// The basename of each path.
std::vector<std::string> Basenames(const std::vector<std::string>& paths) {
  std::vector<std::string> names;
  for (const std::string& p : paths) names.push_back(p.substr(p.rfind('/') + 1));
  return names;
}

TEST_F(LibraryTest, PlainDependenciesStayLoadedAfterUnload) {
  const std::string helper = LIBTEST_RUNTIME_HELPER;
  ASSERT_FALSE(IsMapped(helper)) << "loaded before the op library";
  StatusOr<OpLibrary> lib = LoadOpLibrary(LIBTEST_USES_RUNTIME);
  ASSERT_THAT(lib.status(), IsOk());
  EXPECT_THAT(Basenames(lib->kept_dependencies()),
              ElementsAre("libtest_runtime_helper.so"));
  EXPECT_EQ(RunValue(ctx_.get(), "LibTestUsesRuntime"), 7);
  ctx_.reset();
  ASSERT_THAT(lib->Unload(), IsOk());
  CloseUnusedOpLibraries();
  EXPECT_FALSE(IsMapped(LIBTEST_USES_RUNTIME));
  // Unmapping a runtime under its threads is what this guards against.
  EXPECT_TRUE(IsMapped(helper));

  // Loading again finds it loaded and keeps nothing new.
  StatusOr<OpLibrary> again = LoadOpLibrary(LIBTEST_USES_RUNTIME);
  ASSERT_THAT(again.status(), IsOk());
  EXPECT_THAT(again->kept_dependencies(), ::testing::IsEmpty());
  ASSERT_THAT(again->Unload(), IsOk());
}

TEST_F(LibraryTest, OpkitDependencyGoesWithTheLibraryAndRegistersAgain) {
  StatusOr<OpLibrary> lib = LoadOpLibrary(LIBTEST_USES_OPKIT_DEPENDENCY);
  ASSERT_THAT(lib.status(), IsOk());
  EXPECT_THAT(lib->kept_dependencies(), ::testing::IsEmpty());
  EXPECT_EQ(RunValue(ctx_.get(), "LibTestFromDependency"), 3);
  ctx_.reset();
  ASSERT_THAT(lib->Unload(), IsOk());
  CloseUnusedOpLibraries();
  EXPECT_EQ(OpRegistry::Global()->LookUp("LibTestFromDependency"), nullptr);
  EXPECT_FALSE(IsMapped(LIBTEST_OPKIT_DEPENDENCY));

  // Its static registrations run again with the next load.
  StatusOr<OpLibrary> again = LoadOpLibrary(LIBTEST_USES_OPKIT_DEPENDENCY);
  ASSERT_THAT(again.status(), IsOk());
  auto ctx = EagerContext::Create();
  ASSERT_THAT(ctx.status(), IsOk());
  EXPECT_EQ(RunValue(ctx->get(), "LibTestFromDependency"), 3);
  ASSERT_THAT(again->Unload(), IsOk());
}

}  // namespace
}  // namespace opkit

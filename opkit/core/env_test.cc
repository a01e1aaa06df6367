// Env: files, environment variables and dynamic libraries.
#include "opkit/core/env.h"

#include <algorithm>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/opkit_env_test_" +
         std::to_string(getpid()) + "_" + name;
}

TEST(EnvTest, WriteThenReadFile) {
  const std::string path = TempPath("rw");
  std::string data("a\0b\nc", 5);
  ASSERT_THAT(WriteStringToFile(path, data), IsOk());
  EXPECT_TRUE(FileExists(path));
  std::string back;
  ASSERT_THAT(ReadFileToString(path, &back), IsOk());
  EXPECT_EQ(back, data);
  std::string real;
  ASSERT_THAT(RealPath(path, &real), IsOk());
  EXPECT_EQ(real.front(), '/');
  std::remove(path.c_str());
}

TEST(EnvTest, MissingFileIsNotFound) {
  std::string out;
  EXPECT_THAT(ReadFileToString("/nonexistent/opkit/file", &out),
              StatusIs(error::NOT_FOUND, HasSubstr("/nonexistent/opkit/file")));
  EXPECT_FALSE(FileExists("/nonexistent/opkit/file"));
  EXPECT_THAT(RealPath("/nonexistent/opkit/file", &out),
              StatusIs(error::NOT_FOUND, HasSubstr("Cannot resolve")));
}

TEST(EnvTest, DirectoryIsNotAFile) {
  std::string out;
  EXPECT_THAT(ReadFileToString("/", &out),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("directory")));
}

TEST(EnvTest, WriteIntoMissingDirectoryFails) {
  EXPECT_THAT(WriteStringToFile("/nonexistent/opkit/dir/file", "x"),
              StatusIs(error::NOT_FOUND, HasSubstr("Cannot open for writing")));
}

TEST(EnvTest, EnvVar) {
  setenv("OPKIT_ENV_TEST_VAR", "value", 1);
  EXPECT_EQ(GetEnvVar("OPKIT_ENV_TEST_VAR"), std::optional<std::string>("value"));
  unsetenv("OPKIT_ENV_TEST_VAR");
  EXPECT_EQ(GetEnvVar("OPKIT_ENV_TEST_VAR"), std::nullopt);
}

TEST(EnvTest, DynamicLibraries) {
  void* handle = nullptr;
  ASSERT_THAT(LoadDynamicLibrary("libm.so.6", &handle), IsOk());
  void* cos_fn = nullptr;
  EXPECT_THAT(GetSymbolFromLibrary(handle, "cos", &cos_fn), IsOk());
  EXPECT_NE(cos_fn, nullptr);
  void* missing = nullptr;
  EXPECT_THAT(GetSymbolFromLibrary(handle, "opkit_no_such_symbol", &missing),
              StatusIs(error::NOT_FOUND, HasSubstr("opkit_no_such_symbol")));
  EXPECT_THAT(UnloadDynamicLibrary(handle), IsOk());
}

TEST(EnvTest, DynamicLibraryOptionsAndWhereThingsAre) {
  void* handle = nullptr;
  ASSERT_THAT(LoadDynamicLibrary("libm.so.6", &handle), IsOk());
  const std::string path = DynamicLibraryPath(handle);
  EXPECT_THAT(path, HasSubstr("libm"));
  void* cos_fn = nullptr;
  ASSERT_THAT(GetSymbolFromLibrary(handle, "cos", &cos_fn), IsOk());
  EXPECT_EQ(DynamicLibraryContaining(cos_fn), path);
  const std::vector<std::string> loaded = LoadedDynamicLibraries();
  EXPECT_NE(std::find(loaded.begin(), loaded.end(), path), loaded.end());

  // Loaded already: a second handle, marked never to be unmapped.
  DynamicLibraryOptions mapped;
  mapped.only_if_loaded = true;
  mapped.never_unload = true;
  void* again = nullptr;
  ASSERT_THAT(LoadDynamicLibrary(path, mapped, &again), IsOk());
  EXPECT_THAT(UnloadDynamicLibrary(again), IsOk());
  EXPECT_THAT(UnloadDynamicLibrary(handle), IsOk());

  void* none = nullptr;
  DynamicLibraryOptions only_if_loaded;
  only_if_loaded.only_if_loaded = true;
  EXPECT_THAT(LoadDynamicLibrary("libopkit_env_test_never_built.so", only_if_loaded, &none),
              StatusIs(error::NOT_FOUND, HasSubstr("is not loaded")));
  EXPECT_EQ(none, nullptr);
  EXPECT_EQ(DynamicLibraryPath(nullptr), "");
}

TEST(EnvTest, LoadingMissingOrBadLibraryIsAStatus) {
  void* handle = nullptr;
  EXPECT_THAT(LoadDynamicLibrary("/nonexistent/libfoo.so", &handle),
              StatusIs(error::NOT_FOUND, HasSubstr("/nonexistent/libfoo.so")));
  const std::string path = TempPath("not_a_library.so");
  ASSERT_THAT(WriteStringToFile(path, "this is not ELF"), IsOk());
  EXPECT_THAT(LoadDynamicLibrary(path, &handle),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Cannot load library")));
  EXPECT_THAT(LoadDynamicLibrary(path, &handle),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("shared library")));
  std::remove(path.c_str());
}

TEST(EnvClassTest, FilesUnderTensorFlowNames) {
  Env* env = Env::Default();
  ASSERT_EQ(env, Env::Default());
  const std::string dir = TempPath("envdir");
  const std::string nested = dir + "/a/b";
  ASSERT_THAT(env->RecursivelyCreateDir(nested), IsOk());
  EXPECT_THAT(env->RecursivelyCreateDir(nested), IsOk());
  EXPECT_THAT(env->IsDirectory(nested), IsOk());
  EXPECT_THAT(env->CreateDir(nested), StatusIs(error::ALREADY_EXISTS));

  const std::string file = nested + "/f.txt";
  ASSERT_THAT(WriteStringToFile(env, file, "hello"), IsOk());
  EXPECT_THAT(env->FileExists(file), IsOk());
  EXPECT_THAT(env->IsDirectory(file), StatusIs(error::FAILED_PRECONDITION));
  uint64_t size = 0;
  ASSERT_THAT(env->GetFileSize(file, &size), IsOk());
  EXPECT_EQ(size, 5u);
  std::string text;
  ASSERT_THAT(ReadFileToString(env, file, &text), IsOk());
  EXPECT_EQ(text, "hello");
  std::vector<std::string> children;
  ASSERT_THAT(env->GetChildren(nested, &children), IsOk());
  EXPECT_EQ(children, std::vector<std::string>{"f.txt"});

  const std::string moved = nested + "/g.txt";
  ASSERT_THAT(env->RenameFile(file, moved), IsOk());
  EXPECT_THAT(env->FileExists(file), StatusIs(error::NOT_FOUND));
  ASSERT_THAT(env->DeleteFile(moved), IsOk());
  EXPECT_THAT(env->DeleteFile(moved), StatusIs(error::NOT_FOUND));
  EXPECT_THAT(env->GetChildren(dir + "/missing", &children),
              StatusIs(error::NOT_FOUND));
  rmdir(nested.c_str());
  rmdir((dir + "/a").c_str());
  rmdir(dir.c_str());
}

TEST(EnvClassTest, ClockIsWallTimeAndMovesForward) {
  Env* env = Env::Default();
  const uint64_t start = env->NowMicros();
  // After 2020-01-01 in microseconds since the epoch.
  EXPECT_GT(start, 1577836800ull * 1000000);
  env->SleepForMicroseconds(2000);
  EXPECT_GE(env->NowMicros(), start + 2000);
  const uint64_t seconds = env->NowSeconds();
  EXPECT_LE(seconds, env->NowMicros() / 1000000);
  EXPECT_GE(seconds, start / 1000000);
}

}  // namespace
}  // namespace opkit

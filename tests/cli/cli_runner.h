// A GoogleTest fixture that runs the built `opkit` binary (OPKIT_CLI_PATH)
// as a user does, with stdout and stderr captured, in a fresh temporary
// folder that it removes afterwards:
//
//   class BenchCliTest : public CliRunnerTest {};
//   TEST_F(BenchCliTest, Help) {
//     CliResult r = Run({"bench", "--help"});
//     EXPECT_EQ(r.exit_code, 0);
//   }
//
// stdin is /dev/null and stderr a file, so the binary sees no terminal.
#ifndef OPKIT_TESTS_CLI_CLI_RUNNER_H_
#define OPKIT_TESTS_CLI_CLI_RUNNER_H_

#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "opkit/core/env.h"
#include "tests/cli/skip_without_library.h"

extern char** environ;

namespace opkit {
namespace testing {

struct CliResult {
  // The exit status; 1000 + the signal when the binary was killed by one.
  int exit_code = -1;
  std::string out;
  std::string err;
};

class CliRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "opkit_cli_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    const std::string cmd = "rm -rf '" + dir_ + "'";
    if (std::system(cmd.c_str()) != 0) ADD_FAILURE() << "cannot remove " << dir_;
  }

  // A path in the test's folder.
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  static std::string ReadAll(const std::string& path) {
    std::string s;
    ReadFileToString(path, &s).IgnoreError();
    return s;
  }

  // Runs `opkit args...`.
  CliResult Run(const std::vector<std::string>& args) {
    CliResult r;
    const std::string out_path = Path("stdout");
    const std::string err_path = Path("stderr");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    std::vector<std::string> argv_strings = {OPKIT_CLI_PATH};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& s : argv_strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, OPKIT_CLI_PATH, &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      ADD_FAILURE() << "posix_spawn failed: " << std::strerror(rc);
      return r;
    }
    int status = 0;
    waitpid(pid, &status, 0);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status)
                                    : 1000 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    r.out = ReadAll(out_path);
    r.err = ReadAll(err_path);
    return r;
  }

  // A user error: exit 1 and one line "opkit: error: ..." on stderr that
  // contains `message`.
  void ExpectError(const CliResult& r, const std::string& message) {
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_THAT(r.err, ::testing::StartsWith("opkit: error: "));
    EXPECT_THAT(r.err, ::testing::HasSubstr(message));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  // Bad usage: exit 2, the message and a usage line on stderr.
  void ExpectUsage(const CliResult& r, const std::string& message) {
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_THAT(r.err, ::testing::HasSubstr(message));
    EXPECT_THAT(r.err, ::testing::HasSubstr("usage: opkit"));
    EXPECT_EQ(r.out, "");
  }
  static nlohmann::json ParseJson(const std::string& text) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << text;
    return j;
  }

  std::string dir_;
};

}  // namespace testing
}  // namespace opkit

#endif  // OPKIT_TESTS_CLI_CLI_RUNNER_H_

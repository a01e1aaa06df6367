// SaveV2, RestoreV2 and MergeV2Checkpoints run eagerly: round trips,
// TensorFlow's input validation, dtype checks, slices refused, and a
// sharded save merged into one bundle.
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/io/tensor_bundle.h"
#include "opkit/testing/kernel_test_util.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using test::Attr;
using test::Strings;
using test::Values;

class SaveRestoreTest : public test::EagerOpTest {
 protected:
  void SetUp() override {
    test::EagerOpTest::SetUp();
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = ::testing::TempDir() + "/opkit_save_restore_" + info->name() + "_" +
           std::to_string(::getpid());
  }
  void TearDown() override {
    const std::string cmd = "rm -rf '" + dir_ + "'";
    (void)!std::system(cmd.c_str());
  }
  static Tensor Str(const std::string& s) { return Tensor(tstring(s)); }
  static Tensor StrVec(std::vector<std::string> v) {
    Tensor t(DT_STRING, TensorShape({static_cast<int64_t>(v.size())}));
    for (size_t i = 0; i < v.size(); ++i) t.flat<tstring>()(i) = v[i];
    return t;
  }
  Status Save(const std::string& prefix, std::vector<std::string> names,
              std::vector<Tensor> tensors) {
    std::vector<Tensor> inputs = {Str(prefix), StrVec(names),
                                  StrVec(std::vector<std::string>(names.size()))};
    std::vector<DataType> dtypes;
    for (const Tensor& t : tensors) {
      inputs.push_back(t);
      dtypes.push_back(t.dtype());
    }
    return Run("SaveV2", inputs, {{"dtypes", Attr(dtypes)}});
  }
  Status Restore(const std::string& prefix, std::vector<std::string> names,
                 std::vector<DataType> dtypes) {
    return Run("RestoreV2",
               {Str(prefix), StrVec(names),
                StrVec(std::vector<std::string>(names.size()))},
               {{"dtypes", Attr(dtypes)}});
  }
  std::string dir_;
};

TEST_F(SaveRestoreTest, RoundTripsTensorsOfSeveralDtypes) {
  const std::string prefix = dir_ + "/model";
  ASSERT_THAT(Save(prefix, {"w", "step", "names"},
                   {test::AsTensor<float>({1.5f, -2.f, 3.f, 4.f}, TensorShape({2, 2})),
                    Tensor(int64{42}), Strings({"a", "bc"}, TensorShape({2}))}),
              IsOk());
  ASSERT_THAT(Restore(prefix, {"names", "w", "step"}, {DT_STRING, DT_FLOAT, DT_INT64}),
              IsOk());
  ASSERT_EQ(out_.size(), 3u);
  EXPECT_THAT(Values<tstring>(out_[0]), ElementsAre("a", "bc"));
  EXPECT_EQ(out_[1].shape(), TensorShape({2, 2}));
  EXPECT_THAT(Values<float>(out_[1]), ElementsAre(1.5f, -2.f, 3.f, 4.f));
  EXPECT_THAT(Values<int64>(out_[2]), ElementsAre(42));
}

TEST_F(SaveRestoreTest, RestoreWithAnotherDtypeIsInvalidArgumentNamingTheTensor) {
  const std::string prefix = dir_ + "/model";
  ASSERT_THAT(Save(prefix, {"w"}, {test::AsTensor<float>({1.f})}), IsOk());
  EXPECT_THAT(Restore(prefix, {"w"}, {DT_INT32}),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("tensor_name = w; expected dtype int32 does not "
                                 "equal restored dtype float")));
}

TEST_F(SaveRestoreTest, MissingTensorsAndCheckpointsAreNotFound) {
  const std::string prefix = dir_ + "/model";
  ASSERT_THAT(Save(prefix, {"w"}, {test::AsTensor<float>({1.f})}), IsOk());
  EXPECT_THAT(Restore(prefix, {"v"}, {DT_FLOAT}),
              StatusIs(error::NOT_FOUND, HasSubstr("v")));
  EXPECT_THAT(Restore(dir_ + "/none", {"w"}, {DT_FLOAT}), StatusIs(error::NOT_FOUND));
}

TEST_F(SaveRestoreTest, ValidatesInputsAsTensorFlowDoes) {
  const std::string prefix = dir_ + "/model";
  // TFSA-2021-122: a prefix of several elements, mismatched name and slice
  // counts, more names than tensors.
  EXPECT_THAT(Run("SaveV2", {StrVec({"a", "b"}), StrVec({"w"}), StrVec({""}),
                             test::AsTensor<float>({1.f})},
                  {{"dtypes", Attr({DT_FLOAT})}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("single element")));
  EXPECT_THAT(Run("SaveV2", {Str(prefix), StrVec({"w"}), StrVec({}),
                             test::AsTensor<float>({1.f})},
                  {{"dtypes", Attr({DT_FLOAT})}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("different number")));
  EXPECT_THAT(Run("SaveV2", {Str(prefix), StrVec({"w", "v"}), StrVec({"", ""}),
                             test::AsTensor<float>({1.f})},
                  {{"dtypes", Attr({DT_FLOAT})}}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("2 tensor names but 1 tensors")));
  EXPECT_THAT(Run("RestoreV2", {Str(prefix), StrVec({"w", "v"}), StrVec({"", ""})},
                  {{"dtypes", Attr({DT_FLOAT})}}),
              StatusIs(error::INVALID_ARGUMENT));
}

TEST_F(SaveRestoreTest, SlicesAreUnimplemented) {
  const std::string prefix = dir_ + "/model";
  EXPECT_THAT(Run("SaveV2", {Str(prefix), StrVec({"w"}), StrVec({"4 0,2"}),
                             test::AsTensor<float>({1.f, 2.f})},
                  {{"dtypes", Attr({DT_FLOAT})}}),
              StatusIs(error::UNIMPLEMENTED, HasSubstr("'w'")));
}

TEST_F(SaveRestoreTest, MergesAShardedSave) {
  const std::string prefix = dir_ + "/model";
  std::vector<std::string> parts;
  for (int i = 0; i < 3; ++i) {
    parts.push_back(dir_ + "/model_temp/part-0000" + std::to_string(i) + "-of-00003");
    ASSERT_THAT(Save(parts.back(), {"v" + std::to_string(i)},
                     {test::AsTensor<int32>({i, 10 * i})}),
                IsOk());
  }
  ASSERT_THAT(Run("MergeV2Checkpoints", {StrVec(parts), Str(prefix)}), IsOk());
  ASSERT_THAT(Restore(prefix, {"v0", "v1", "v2"}, {DT_INT32, DT_INT32, DT_INT32}),
              IsOk());
  EXPECT_THAT(Values<int32>(out_[2]), ElementsAre(2, 20));
  // delete_old_dirs: the emptied temporary folder is gone.
  EXPECT_NE(::access((dir_ + "/model_temp").c_str(), F_OK), 0);
  EXPECT_THAT(Run("MergeV2Checkpoints", {Str(prefix), Str(prefix)}),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("1-D")));
}

}  // namespace
}  // namespace opkit

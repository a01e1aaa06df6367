// The loader's build-record checks (library_abi.h): reading records from ELF
// bytes (this test program's own), every refusal and its message, and the
// old-ABI std::string hint. Real plugins with mismatched records are loaded
// in tests/library.
#include "opkit/runtime/library_abi.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/env.h"
#include "opkit/core/eigen.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace internal {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string OwnExecutable() {
  std::string bytes;
  EXPECT_THAT(ReadFileToString("/proc/self/exe", &bytes), IsOk());
  return bytes;
}

OpkitAbiRecord Record(uint32_t isa, int32_t cxx11, int32_t align, int32_t static_align) {
  OpkitAbiRecord r = OPKIT_ABI_RECORD_INIT(align, static_align);
  r.isa = isa;
  r.cxx11_abi = cxx11;
  return r;
}

AbiHost Host() {
  AbiHost host;
  host.cpu_isa = kIsaSse3 | kIsaSsse3 | kIsaSse41 | kIsaSse42 | kIsaAvx | kIsaAvx2 | kIsaFma;
  host.cxx11_abi = 1;
  host.eigen_max_align_bytes = 64;
  host.eigen_max_static_align_bytes = 16;
  return host;
}

TEST(ReadAbiRecordsTest, ReadsEveryUnitsRecordOfAnObjectBuiltWithOpkitHeaders) {
  StatusOr<std::vector<OpkitAbiRecord>> records = ReadAbiRecords(OwnExecutable());
  ASSERT_THAT(records.status(), IsOk());
  ASSERT_GE(records->size(), 2u);  // abi.h's and eigen.h's, at least
  bool has_eigen = false;
  for (const OpkitAbiRecord& r : *records) {
    EXPECT_EQ(r.version, OPKIT_ABI_VERSION);
    EXPECT_EQ(r.isa, CompiledIsa());
    EXPECT_EQ(r.cxx11_abi, CompiledCxx11Abi());
    if (r.eigen_max_align_bytes >= 0) {
      has_eigen = true;
      EXPECT_EQ(r.eigen_max_align_bytes, EIGEN_MAX_ALIGN_BYTES);
      EXPECT_EQ(r.eigen_max_static_align_bytes, EIGEN_MAX_STATIC_ALIGN_BYTES);
    }
  }
  EXPECT_TRUE(has_eigen);
  EXPECT_THAT(CheckAbiRecords(*records, HostAbi()), IsOk());
}

TEST(ReadAbiRecordsTest, FilesThatAreNotElfOrAreCutShortHaveNoRecords) {
  EXPECT_THAT(*ReadAbiRecords(""), IsEmpty());
  EXPECT_THAT(*ReadAbiRecords("not an ELF file at all, just text"), IsEmpty());
  const std::string exe = OwnExecutable();
  for (size_t size : {size_t{4}, size_t{64}, size_t{4096}, exe.size() / 2}) {
    StatusOr<std::vector<OpkitAbiRecord>> records = ReadAbiRecords(exe.substr(0, size));
    // Section headers sit at the end: a cut file has none to read.
    ASSERT_THAT(records.status(), IsOk()) << size;
    EXPECT_THAT(*records, IsEmpty()) << size;
  }
}

TEST(ReadAbiRecordsTest, ASectionHoldingSomethingElseIsRefused) {
  std::string exe = OwnExecutable();
  // The first record: the magic followed by the version, spelled backwards
  // here so that this literal is not found instead.
  std::string record = "ibatikpo";
  std::reverse(record.begin(), record.end());
  const uint32_t version = OPKIT_ABI_VERSION;
  record.append(reinterpret_cast<const char*>(&version), sizeof(version));
  const size_t at = exe.find(record);
  ASSERT_NE(at, std::string::npos);
  exe[at] = 'X';
  EXPECT_THAT(ReadAbiRecords(exe).status(),
              StatusIs(error::INVALID_ARGUMENT,
                       HasSubstr("holds something other than opkit build records")));
}

TEST(CheckAbiRecordsTest, InstructionsTheCpuLacksAreNamedWithTheirFlags) {
  const Status s = CheckAbiRecords(
      {Record(Host().cpu_isa, 1, 64, 16),
       Record(Host().cpu_isa | kIsaAvx512f | kIsaAvx512bw, 1, 64, 64)},
      Host());
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                          AllOf(HasSubstr("vector instructions this CPU lacks: "
                                          "avx512f, avx512bw"),
                                HasSubstr("-mavx512f -mavx512bw"),
                                HasSubstr("-march=native"))));
}

TEST(CheckAbiRecordsTest, AnotherCxx11AbiNamesTheFlag) {
  const Status s = CheckAbiRecords({Record(0, 0, -1, -1)}, Host());
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                          AllOf(HasSubstr("compiled with -D_GLIBCXX_USE_CXX11_ABI=0"),
                                HasSubstr("opkit uses _GLIBCXX_USE_CXX11_ABI=1"),
                                HasSubstr("Remove -D_GLIBCXX_USE_CXX11_ABI=0"))));
  // Not the opkit version's fault.
  EXPECT_THAT(s.message(), ::testing::Not(HasSubstr("ABI version")));
}

TEST(CheckAbiRecordsTest, AnotherEigenMaxAlignmentIsRefused) {
  const Status s = CheckAbiRecords({Record(0, 1, 16, 16)}, Host());
  EXPECT_THAT(s, StatusIs(error::INVALID_ARGUMENT,
                          AllOf(HasSubstr("EIGEN_MAX_ALIGN_BYTES=16"),
                                HasSubstr("opkit with EIGEN_MAX_ALIGN_BYTES=64"),
                                HasSubstr("-DEIGEN_MAX_ALIGN_BYTES=64"))));
}

TEST(CheckAbiRecordsTest, WiderVectorsTheCpuHasAndTheirStaticAlignmentAreAccepted) {
  // A -march=native plugin of a portable opkit: AVX2 widens Eigen's static
  // alignment to 32, which no object crossing the interface depends on.
  EXPECT_THAT(CheckAbiRecords({Record(Host().cpu_isa, 1, 64, 32),
                               Record(Host().cpu_isa, 1, -1, -1)},
                              Host()),
              IsOk());
}

TEST(CheckAbiRecordsTest, RecordsOfAnotherVersionAreLeftToTheVersionCheck) {
  OpkitAbiRecord r = Record(kIsaAvx512f, 0, 16, 16);
  r.version = OPKIT_ABI_VERSION + 1;
  EXPECT_THAT(CheckAbiRecords({r}, Host()), IsOk());
}

TEST(OldCxxAbiHintTest, NamesTheFlagForAnOldAbiStdString) {
  // opkit::OpDefBuilder::OpDefBuilder(std::string), as compiled with
  // -D_GLIBCXX_USE_CXX11_ABI=0.
  const std::string hint = OldCxxAbiHint(
      "/tmp/x.so: undefined symbol: _ZN5opkit12OpDefBuilderC1ESs");
  EXPECT_THAT(hint, AllOf(HasSubstr("opkit::OpDefBuilder::OpDefBuilder(std::string)"),
                          HasSubstr("Remove -D_GLIBCXX_USE_CXX11_ABI=0")));
}

TEST(OldCxxAbiHintTest, SaysNothingForOtherErrors) {
  EXPECT_EQ(OldCxxAbiHint("/tmp/x.so: cannot open shared object file"), "");
  EXPECT_EQ(OldCxxAbiHint("undefined symbol: opkit_test_symbol_nobody_defines"), "");
  // The C++11 std::string.
  EXPECT_EQ(OldCxxAbiHint("undefined symbol: "
                          "_ZN5opkit1fERKNSt7__cxx1112basic_stringIcSt11char_"
                          "traitsIcESaIcEEE"),
            "");
}

}  // namespace
}  // namespace internal
}  // namespace opkit

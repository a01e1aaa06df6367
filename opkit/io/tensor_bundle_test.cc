// BundleWriter / BundleReader / MergeBundles: round trips of every dtype,
// the bytes on disk against Note [TensorBundle format], and every kind of
// damage a file can suffer (Note [Reading untrusted bundles]).
#include "opkit/io/tensor_bundle.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "opkit/core/env.h"
#include "opkit/io/crc32c.h"
#include "opkit/tensor/allocation_limit.h"
#include "opkit/tensor/types.h"
#include "opkit/testing/status_matchers.h"

namespace opkit {
namespace {

using ::opkit::testing::IsOk;
using ::opkit::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string ReadAll(const std::string& path) {
  std::string bytes;
  EXPECT_THAT(ReadFileToString(path, &bytes), IsOk()) << path;
  return bytes;
}

void WriteAll(const std::string& path, const std::string& bytes) {
  EXPECT_THAT(WriteStringToFile(path, bytes), IsOk()) << path;
}

bool Exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

class TensorBundleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = ::testing::TempDir() + "/opkit_bundle_" + info->name() + "_" +
           std::to_string(::getpid());
    prefix_ = dir_ + "/ckpt";
  }
  void TearDown() override {
    std::string cmd = "rm -rf '" + dir_ + "'";
    (void)!std::system(cmd.c_str());
  }

  // Writes `tensors` under their names into a bundle at `prefix`.
  void Write(const std::string& prefix,
             const std::vector<std::pair<std::string, Tensor>>& tensors) {
    BundleWriter writer(Env::Default(), prefix);
    for (const auto& [name, t] : tensors) ASSERT_THAT(writer.Add(name, t), IsOk());
    ASSERT_THAT(writer.Finish(), IsOk());
  }

  std::string dir_;
  std::string prefix_;
};

Tensor Floats(std::vector<float> v) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64_t>(v.size())}));
  std::memcpy(t.data(), v.data(), v.size() * sizeof(float));
  return t;
}

Tensor Strings(std::vector<std::string> v, TensorShape shape) {
  Tensor t(DT_STRING, shape);
  for (size_t i = 0; i < v.size(); ++i) t.flat<tstring>()(i) = v[i];
  return t;
}

TEST_F(TensorBundleTest, RoundTripsEveryFixedSizeDtype) {
  const std::vector<DataType> dtypes = {
      DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8, DT_COMPLEX64,
      DT_INT64, DT_BOOL, DT_QINT8, DT_QUINT8, DT_QINT32, DT_BFLOAT16, DT_QINT16,
      DT_QUINT16, DT_UINT16, DT_COMPLEX128, DT_HALF, DT_UINT32, DT_UINT64};
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (DataType dt : dtypes) {
    Tensor t(dt, TensorShape({2, 3}));
    ASSERT_TRUE(t.IsInitialized()) << DataTypeString(dt);
    auto* bytes = static_cast<unsigned char*>(t.data());
    for (size_t i = 0; i < t.TotalBytes(); ++i) {
      // bool must hold 0 or 1; everything else takes any bit pattern.
      bytes[i] = dt == DT_BOOL ? (i % 2) : static_cast<unsigned char>(i * 37 + dt);
    }
    tensors.emplace_back("t_" + DataTypeString(dt), t);
  }
  Write(prefix_, tensors);

  BundleReader reader(Env::Default(), prefix_);
  ASSERT_THAT(reader.status(), IsOk());
  for (const auto& [name, t] : tensors) {
    Tensor got;
    ASSERT_THAT(reader.Lookup(name, &got), IsOk()) << name;
    EXPECT_EQ(got.dtype(), t.dtype()) << name;
    EXPECT_EQ(got.shape(), t.shape()) << name;
    EXPECT_EQ(got.tensor_data(), t.tensor_data()) << name;
    DataType dtype;
    TensorShape shape;
    ASSERT_THAT(reader.LookupDtypeAndShape(name, &dtype, &shape), IsOk());
    EXPECT_EQ(dtype, t.dtype());
    EXPECT_EQ(shape, t.shape());
  }
}

TEST_F(TensorBundleTest, RoundTripsStringsScalarsAndEmptyTensors) {
  const std::string long_string(300, 'x');  // a two-byte varint length
  Write(prefix_, {
                     {"s", Strings({"ab", "", long_string, "\0z"}, TensorShape({2, 2}))},
                     {"s_scalar", Strings({"only"}, TensorShape({}))},
                     {"s_empty", Strings({}, TensorShape({0, 3}))},
                     {"f_empty", Tensor(DT_FLOAT, TensorShape({4, 0}))},
                     {"f_scalar", Tensor(2.5f)},
                 });
  BundleReader reader(Env::Default(), prefix_);
  ASSERT_THAT(reader.status(), IsOk());
  Tensor s;
  ASSERT_THAT(reader.Lookup("s", &s), IsOk());
  ASSERT_EQ(s.shape(), TensorShape({2, 2}));
  EXPECT_EQ(s.flat<tstring>()(0), "ab");
  EXPECT_EQ(s.flat<tstring>()(1), "");
  EXPECT_EQ(s.flat<tstring>()(2), long_string);
  Tensor scalar;
  ASSERT_THAT(reader.Lookup("s_scalar", &scalar), IsOk());
  EXPECT_EQ(scalar.scalar<tstring>()(), "only");
  Tensor empty;
  ASSERT_THAT(reader.Lookup("s_empty", &empty), IsOk());
  EXPECT_EQ(empty.dtype(), DT_STRING);
  EXPECT_EQ(empty.shape(), TensorShape({0, 3}));
  ASSERT_THAT(reader.Lookup("f_empty", &empty), IsOk());
  EXPECT_EQ(empty.dtype(), DT_FLOAT);
  EXPECT_EQ(empty.shape(), TensorShape({4, 0}));
  Tensor f;
  ASSERT_THAT(reader.Lookup("f_scalar", &f), IsOk());
  EXPECT_EQ(f.scalar<float>()(), 2.5f);
}

TEST_F(TensorBundleTest, LookupFillsAMatchingTensorInPlaceAndRefusesAnother) {
  Write(prefix_, {{"v", Floats({1, 2, 3})}});
  BundleReader reader(Env::Default(), prefix_);
  Tensor dst(DT_FLOAT, TensorShape({3}));
  const void* buffer = dst.data();
  ASSERT_THAT(reader.Lookup("v", &dst), IsOk());
  EXPECT_EQ(dst.data(), buffer);
  EXPECT_EQ(dst.flat<float>()(2), 3.f);
  Tensor wrong(DT_INT32, TensorShape({3}));
  EXPECT_THAT(reader.Lookup("v", &wrong),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("'v'")));
}

TEST_F(TensorBundleTest, IteratesKeysInOrderAfterTheHeader) {
  Write(prefix_, {{"b", Floats({1})}, {"a/x", Floats({2})}, {"c", Floats({3})}});
  BundleReader reader(Env::Default(), prefix_);
  ASSERT_THAT(reader.status(), IsOk());
  reader.Seek(kHeaderEntryKey);
  ASSERT_TRUE(reader.Valid());
  EXPECT_EQ(reader.key(), "");
  std::vector<std::string> keys;
  for (reader.Next(); reader.Valid(); reader.Next()) keys.emplace_back(reader.key());
  EXPECT_THAT(keys, ElementsAre("a/x", "b", "c"));
  OPKIT_EXPECT_OK(reader.IterationStatus());
  reader.Seek("b");
  Tensor t;
  ASSERT_THAT(reader.ReadCurrent(&t), IsOk());
  EXPECT_EQ(t.flat<float>()(0), 1.f);
}

TEST_F(TensorBundleTest, HeaderSaysOneLittleEndianShardOfVersionOne) {
  Write(prefix_, {{"v", Floats({1})}});
  BundleReader reader(Env::Default(), prefix_);
  ASSERT_THAT(reader.status(), IsOk());
  EXPECT_EQ(reader.header().num_shards(), 1);
  EXPECT_EQ(reader.header().endianness(), BundleHeaderProto::LITTLE);
  EXPECT_EQ(reader.header().version().producer(), kTensorBundleVersion);
  EXPECT_EQ(reader.header().version().min_consumer(), 0);
  EXPECT_TRUE(Exists(prefix_ + ".data-00000-of-00001"));
}

TEST_F(TensorBundleTest, MissingKeysAndBundlesAreNotFound) {
  Write(prefix_, {{"v", Floats({1})}});
  BundleReader reader(Env::Default(), prefix_);
  Tensor t;
  EXPECT_THAT(reader.Lookup("w", &t), StatusIs(error::NOT_FOUND, HasSubstr("w")));
  EXPECT_FALSE(reader.Contains("w"));
  EXPECT_TRUE(reader.Contains("v"));
  BundleReader missing(Env::Default(), dir_ + "/nothing");
  EXPECT_THAT(missing.status(),
              StatusIs(error::NOT_FOUND, HasSubstr("nothing.index")));
  EXPECT_THAT(missing.Lookup("v", &t), StatusIs(error::NOT_FOUND));
}

TEST_F(TensorBundleTest, WriterRejectsBadKeysAndDtypes) {
  BundleWriter writer(Env::Default(), prefix_);
  EXPECT_THAT(writer.Add("", Floats({1})), StatusIs(error::INVALID_ARGUMENT));
  OPKIT_ASSERT_OK(writer.Add("a", Floats({1})));
  EXPECT_THAT(writer.Add("a", Floats({2})),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("duplicate key 'a'")));
  Tensor resource(DT_RESOURCE, TensorShape({}));
  EXPECT_THAT(writer.Add("r", resource), StatusIs(error::UNIMPLEMENTED));
  OPKIT_EXPECT_OK(writer.Finish());
  EXPECT_THAT(writer.Finish(), StatusIs(error::FAILED_PRECONDITION));
}

TEST_F(TensorBundleTest, UnfinishedWriterLeavesNothingBehind) {
  {
    BundleWriter writer(Env::Default(), prefix_);
    OPKIT_ASSERT_OK(writer.Add("a", Floats({1, 2})));
  }
  std::vector<std::string> children;
  OPKIT_ASSERT_OK(Env::Default()->GetChildren(dir_, &children));
  EXPECT_THAT(children, ::testing::IsEmpty());
}

TEST_F(TensorBundleTest, OverwritingKeepsTheOldBundleUntilFinish) {
  Write(prefix_, {{"v", Floats({1})}});
  BundleWriter writer(Env::Default(), prefix_);
  OPKIT_ASSERT_OK(writer.Add("v", Floats({2})));
  {
    BundleReader reader(Env::Default(), prefix_);
    Tensor t;
    ASSERT_THAT(reader.Lookup("v", &t), IsOk());
    EXPECT_EQ(t.flat<float>()(0), 1.f);
  }
  OPKIT_ASSERT_OK(writer.Finish());
  BundleReader reader(Env::Default(), prefix_);
  Tensor t;
  ASSERT_THAT(reader.Lookup("v", &t), IsOk());
  EXPECT_EQ(t.flat<float>()(0), 2.f);
}

TEST_F(TensorBundleTest, DataAlignmentPadsBetweenTensors) {
  BundleWriter::Options options;
  options.data_alignment = 16;
  BundleWriter writer(Env::Default(), prefix_, options);
  OPKIT_ASSERT_OK(writer.Add("a", Floats({1})));
  OPKIT_ASSERT_OK(writer.Add("b", Floats({2})));
  OPKIT_ASSERT_OK(writer.Finish());
  BundleReader reader(Env::Default(), prefix_);
  BundleEntryProto b;
  OPKIT_ASSERT_OK(reader.GetBundleEntryProto("b", &b));
  EXPECT_EQ(b.offset(), 16);
  Tensor t;
  ASSERT_THAT(reader.Lookup("b", &t), IsOk());
  EXPECT_EQ(t.flat<float>()(0), 2.f);
}

// ---- The bytes on disk ----------------------------------------------------

uint64_t ReadVarint(const std::string& s, size_t* pos) {
  uint64_t v = 0;
  for (int shift = 0; *pos < s.size(); shift += 7) {
    const uint8_t b = static_cast<uint8_t>(s[(*pos)++]);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
  }
  return v;
}

uint32_t Fixed32(const std::string& s, size_t pos) {
  uint32_t v;
  std::memcpy(&v, s.data() + pos, 4);
  return v;
}

TEST_F(TensorBundleTest, IndexIsAnSSTableInLevelDBsLayout) {
  Write(prefix_, {{"a", Floats({1, 2})}});
  const std::string index = ReadAll(prefix_ + ".index");
  ASSERT_GE(index.size(), 48u);
  // Footer: the magic number, little-endian, in the last 8 bytes.
  const std::string magic = index.substr(index.size() - 8);
  EXPECT_EQ(magic, std::string("\x57\xfb\x80\x8b\x24\x75\x47\xdb", 8));
  // Then the metaindex and index block handles.
  size_t pos = index.size() - 48;
  const uint64_t meta_offset = ReadVarint(index, &pos);
  const uint64_t meta_size = ReadVarint(index, &pos);
  const uint64_t index_offset = ReadVarint(index, &pos);
  const uint64_t index_size = ReadVarint(index, &pos);
  EXPECT_EQ(index_offset, meta_offset + meta_size + 5);
  EXPECT_EQ(index_offset + index_size + 5 + 48, index.size());

  // The one data block runs from 0 to the metaindex block, less its trailer:
  // type 0 (uncompressed) and the masked CRC32C of contents and type.
  const size_t data_size = meta_offset - 5;
  const std::string block = index.substr(0, data_size);
  EXPECT_EQ(index[data_size], '\0');
  EXPECT_EQ(Fixed32(index, data_size + 1),
            crc32c::Mask(crc32c::Value(index.data(), data_size + 1)));

  // First entry: key "" holding the header {num_shards: 1, version {producer: 1}}.
  pos = 0;
  EXPECT_EQ(ReadVarint(block, &pos), 0u);  // shared key bytes
  EXPECT_EQ(ReadVarint(block, &pos), 0u);  // unshared key bytes
  const uint64_t header_size = ReadVarint(block, &pos);
  EXPECT_EQ(block.substr(pos, header_size), std::string("\x08\x01\x1a\x02\x08\x01", 6));
  pos += header_size;
  // Second entry: key "a" holding the BundleEntryProto.
  EXPECT_EQ(ReadVarint(block, &pos), 0u);
  EXPECT_EQ(ReadVarint(block, &pos), 1u);
  const uint64_t entry_size = ReadVarint(block, &pos);
  EXPECT_EQ(block[pos], 'a');
  BundleEntryProto entry;
  ASSERT_TRUE(entry.ParseFromString(block.substr(pos + 1, entry_size)));
  EXPECT_EQ(entry.dtype(), DT_FLOAT);
  EXPECT_EQ(entry.shape().dim_size(), 1);
  EXPECT_EQ(entry.shape().dim(0).size(), 2);
  EXPECT_EQ(entry.shard_id(), 0);
  EXPECT_EQ(entry.offset(), 0);
  EXPECT_EQ(entry.size(), 8);

  // The data file is the floats' bytes; the entry's CRC is their masked CRC32C.
  const std::string data = ReadAll(prefix_ + ".data-00000-of-00001");
  ASSERT_EQ(data.size(), 8u);
  float f[2];
  std::memcpy(f, data.data(), 8);
  EXPECT_EQ(f[0], 1.f);
  EXPECT_EQ(f[1], 2.f);
  EXPECT_EQ(entry.crc32c(), crc32c::Mask(crc32c::Value(data.data(), 8)));
}

TEST_F(TensorBundleTest, StringDataIsLengthsThenTheirChecksumThenBytes) {
  Write(prefix_, {{"s", Strings({"ab", ""}, TensorShape({2}))}});
  const std::string data = ReadAll(prefix_ + ".data-00000-of-00001");
  ASSERT_EQ(data.size(), 2u + 4u + 2u);
  EXPECT_EQ(data[0], '\x02');
  EXPECT_EQ(data[1], '\x00');
  const uint32_t lengths[2] = {2, 0};
  const uint32_t length_crc =
      crc32c::Value(reinterpret_cast<const char*>(lengths), sizeof(lengths));
  EXPECT_EQ(Fixed32(data, 2), crc32c::Mask(length_crc));
  EXPECT_EQ(data.substr(6), "ab");
  BundleReader reader(Env::Default(), prefix_);
  BundleEntryProto entry;
  OPKIT_ASSERT_OK(reader.GetBundleEntryProto("s", &entry));
  uint32_t crc = crc32c::Extend(length_crc, data.data() + 2, 4);
  crc = crc32c::Extend(crc, "ab", 2);
  EXPECT_EQ(entry.crc32c(), crc32c::Mask(crc));
}

// ---- Merging ------------------------------------------------------------

TEST_F(TensorBundleTest, MergesManyShardsIntoOneBundle) {
  std::vector<std::string> parts;
  for (int i = 0; i < 4; ++i) {
    parts.push_back(dir_ + "/tmp/part-" + std::to_string(i));
    Write(parts.back(), {{"v" + std::to_string(i), Floats({float(i), float(i) + .5f})},
                         {"s" + std::to_string(i),
                          Strings({"shard " + std::to_string(i)}, TensorShape({1}))}});
  }
  OPKIT_ASSERT_OK(MergeBundles(Env::Default(), parts, prefix_));
  for (const std::string& p : parts) EXPECT_FALSE(Exists(p + ".index")) << p;
  BundleReader reader(Env::Default(), prefix_);
  ASSERT_THAT(reader.status(), IsOk());
  EXPECT_EQ(reader.num_shards(), 4);
  for (int i = 0; i < 4; ++i) {
    Tensor v, s;
    ASSERT_THAT(reader.Lookup("v" + std::to_string(i), &v), IsOk());
    EXPECT_EQ(v.flat<float>()(1), i + .5f);
    ASSERT_THAT(reader.Lookup("s" + std::to_string(i), &s), IsOk());
    EXPECT_EQ(s.flat<tstring>()(0), "shard " + std::to_string(i));
    EXPECT_TRUE(Exists(prefix_ + ".data-0000" + std::to_string(i) + "-of-00004"));
  }
}

TEST_F(TensorBundleTest, MergeRefusesDuplicateKeysAndLeavesInputsAlone) {
  const std::string a = dir_ + "/a", b = dir_ + "/b";
  Write(a, {{"v", Floats({1})}});
  Write(b, {{"v", Floats({2})}});
  EXPECT_THAT(MergeBundles(Env::Default(), {a, b}, prefix_),
              StatusIs(error::INVALID_ARGUMENT, HasSubstr("Duplicate tensor keyed by v")));
  EXPECT_TRUE(Exists(a + ".data-00000-of-00001"));
  EXPECT_TRUE(Exists(b + ".index"));
  EXPECT_FALSE(Exists(prefix_ + ".index"));
}

TEST_F(TensorBundleTest, MergeOfABundleWithAMissingDataFileRenamesNothing) {
  const std::string a = dir_ + "/a", b = dir_ + "/b";
  Write(a, {{"v", Floats({1})}});
  Write(b, {{"w", Floats({2})}});
  ASSERT_EQ(::unlink((b + ".data-00000-of-00001").c_str()), 0);
  EXPECT_THAT(MergeBundles(Env::Default(), {a, b}, prefix_),
              StatusIs(error::DATA_LOSS, HasSubstr("b.data-00000-of-00001")));
  EXPECT_TRUE(Exists(a + ".data-00000-of-00001"));
}

// ---- Damage ---------------------------------------------------------------

class DamagedBundleTest : public TensorBundleTest {
 protected:
  void SetUp() override {
    TensorBundleTest::SetUp();
    Write(prefix_, {{"weights", Floats({1, 2, 3, 4})},
                    {"names", Strings({"alpha", "beta"}, TensorShape({2}))}});
    index_ = ReadAll(prefix_ + ".index");
    data_ = ReadAll(data_path());
  }
  std::string data_path() const { return prefix_ + ".data-00000-of-00001"; }
  Status LookupAll() {
    BundleReader reader(Env::Default(), prefix_);
    OPKIT_RETURN_IF_ERROR(reader.status());
    Tensor weights, names;
    OPKIT_RETURN_IF_ERROR(reader.Lookup("weights", &weights));
    return reader.Lookup("names", &names);
  }
  std::string index_, data_;
};

TEST_F(DamagedBundleTest, BadFooterMagicIsDataLoss) {
  std::string bad = index_;
  bad[bad.size() - 1] ^= 0x40;
  WriteAll(prefix_ + ".index", bad);
  BundleReader reader(Env::Default(), prefix_);
  EXPECT_THAT(reader.status(),
              StatusIs(error::DATA_LOSS, AllOf(HasSubstr("ckpt.index"),
                                               HasSubstr("bad footer"))));
}

TEST_F(DamagedBundleTest, FooterHandlePastTheFileIsDataLoss) {
  std::string bad = index_;
  // The index block's size, the footer's 4th varint: make it huge (5 bytes).
  size_t pos = bad.size() - 48;
  for (int field = 0; field < 3; ++field) {
    while (static_cast<uint8_t>(bad[pos]) & 0x80) ++pos;
    ++pos;
  }
  const std::string huge("\xff\xff\xff\xff\x0f", 5);
  bad.replace(pos, 5, huge);
  WriteAll(prefix_ + ".index", bad);
  BundleReader reader(Env::Default(), prefix_);
  EXPECT_THAT(reader.status(),
              StatusIs(error::DATA_LOSS, HasSubstr("outside the file")));
}

TEST_F(DamagedBundleTest, TruncatedIndexIsDataLoss) {
  for (size_t n : {size_t{0}, size_t{10}, index_.size() / 2, index_.size() - 1}) {
    WriteAll(prefix_ + ".index", index_.substr(0, n));
    BundleReader reader(Env::Default(), prefix_);
    EXPECT_THAT(reader.status(), StatusIs(error::DATA_LOSS, HasSubstr("ckpt.index")))
        << "index cut to " << n << " bytes";
  }
}

TEST_F(DamagedBundleTest, BadBlockCrcIsDataLoss) {
  std::string bad = index_;
  bad[2] ^= 0x01;  // inside the header entry of the first data block
  WriteAll(prefix_ + ".index", bad);
  BundleReader reader(Env::Default(), prefix_);
  EXPECT_THAT(reader.status(),
              StatusIs(error::DATA_LOSS, AllOf(HasSubstr("ckpt.index"),
                                               HasSubstr("checksum mismatch"))));
}

TEST_F(DamagedBundleTest, TensorCrcMismatchIsDataLossNamingTheTensor) {
  std::string bad = data_;
  bad[5] ^= 0x10;  // a byte of "weights"
  WriteAll(data_path(), bad);
  BundleReader reader(Env::Default(), prefix_);
  ASSERT_THAT(reader.status(), IsOk());
  Tensor t;
  EXPECT_THAT(reader.Lookup("weights", &t),
              StatusIs(error::DATA_LOSS, AllOf(HasSubstr("'weights'"),
                                               HasSubstr("checksum mismatch"))));
  EXPECT_THAT(reader.Lookup("names", &t), IsOk());
}

TEST_F(DamagedBundleTest, CorruptedStringLengthsAreDataLoss) {
  BundleReader probe(Env::Default(), prefix_);
  BundleEntryProto names;
  OPKIT_ASSERT_OK(probe.GetBundleEntryProto("names", &names));
  for (int64_t i = 0; i < names.size(); ++i) {
    std::string bad = data_;
    bad[names.offset() + i] ^= 0x21;
    WriteAll(data_path(), bad);
    BundleReader reader(Env::Default(), prefix_);
    Tensor t;
    EXPECT_THAT(reader.Lookup("names", &t),
                StatusIs(error::DATA_LOSS, HasSubstr("'names'")))
        << "byte " << i << " flipped";
  }
}

TEST_F(DamagedBundleTest, TruncatedDataFileIsDataLossNamingTheTensor) {
  WriteAll(data_path(), data_.substr(0, 3));
  BundleReader reader(Env::Default(), prefix_);
  ASSERT_THAT(reader.status(), IsOk());
  Tensor t;
  EXPECT_THAT(reader.Lookup("weights", &t),
              StatusIs(error::DATA_LOSS, AllOf(HasSubstr("'weights'"),
                                               HasSubstr("past the end"))));
}

TEST_F(DamagedBundleTest, MissingDataFileIsDataLossNamingTheFile) {
  ASSERT_EQ(::unlink(data_path().c_str()), 0);
  BundleReader reader(Env::Default(), prefix_);
  ASSERT_THAT(reader.status(), IsOk());
  Tensor t;
  EXPECT_THAT(reader.Lookup("weights", &t),
              StatusIs(error::DATA_LOSS, AllOf(HasSubstr("'weights'"),
                                               HasSubstr("ckpt.data-00000-of-00001"))));
}

// Every single-byte change and every truncation of the index, and every
// byte change of the data, ends in an error or the right values: never a
// crash, and never wrong data reported as OK.
TEST_F(DamagedBundleTest, EveryByteFlipIsCaught) {
  for (size_t i = 0; i < index_.size(); ++i) {
    std::string bad = index_;
    bad[i] ^= 0x5a;
    WriteAll(prefix_ + ".index", bad);
    BundleReader reader(Env::Default(), prefix_);
    if (!reader.status().ok()) continue;
    Tensor w, n;
    const Status sw = reader.Lookup("weights", &w);
    const Status sn = reader.Lookup("names", &n);
    if (sw.ok()) {
      EXPECT_EQ(w.flat<float>()(3), 4.f) << "index byte " << i;
    }
    if (sn.ok()) {
      EXPECT_EQ(n.flat<tstring>()(1), "beta") << "index byte " << i;
    }
  }
  for (size_t n = 0; n < index_.size(); ++n) {
    WriteAll(prefix_ + ".index", index_.substr(0, n));
    EXPECT_FALSE(LookupAll().ok()) << "index cut to " << n;
  }
  WriteAll(prefix_ + ".index", index_);
  for (size_t i = 0; i < data_.size(); ++i) {
    std::string bad = data_;
    bad[i] ^= 0x5a;
    WriteAll(data_path(), bad);
    EXPECT_THAT(LookupAll(), StatusIs(error::DATA_LOSS)) << "data byte " << i;
  }
}

TEST_F(TensorBundleTest, ReadingATensorAboveTheAllocationLimitFailsCleanly) {
  Write(prefix_, {{"big", Tensor(DT_FLOAT, TensorShape({1 << 16}))}});
  ScopedAllocationLimit limit(1 << 12);
  BundleReader reader(Env::Default(), prefix_);
  Tensor t;
  EXPECT_THAT(reader.Lookup("big", &t), StatusIs(error::RESOURCE_EXHAUSTED));
}

}  // namespace
}  // namespace opkit

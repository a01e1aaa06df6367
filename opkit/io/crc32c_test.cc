// CRC32C against published check values (RFC 3720 B.4, the "123456789"
// check value of the Castagnoli CRC) and the masking of Note [Masked CRC].
#include "opkit/io/crc32c.h"

#include <string>

#include "gtest/gtest.h"

namespace opkit {
namespace crc32c {
namespace {

TEST(Crc32cTest, CheckValue) {
  EXPECT_EQ(Value("123456789", 9), 0xE3069283u);
  EXPECT_EQ(Value("", 0), 0u);
}

TEST(Crc32cTest, Rfc3720Vectors) {
  std::string buf(32, '\0');
  EXPECT_EQ(Value(buf.data(), buf.size()), 0x8A9136AAu);
  buf.assign(32, '\xff');
  EXPECT_EQ(Value(buf.data(), buf.size()), 0x62A8AB43u);
  for (int i = 0; i < 32; ++i) buf[i] = static_cast<char>(i);
  EXPECT_EQ(Value(buf.data(), buf.size()), 0x46DD794Eu);
  for (int i = 0; i < 32; ++i) buf[i] = static_cast<char>(31 - i);
  EXPECT_EQ(Value(buf.data(), buf.size()), 0x113FDB5Cu);
}

TEST(Crc32cTest, ExtendEqualsValueOfConcatenation) {
  const std::string s = "hello, checkpoint world; a string longer than 8 bytes";
  for (size_t cut = 0; cut <= s.size(); ++cut) {
    EXPECT_EQ(Extend(Value(s.data(), cut), s.data() + cut, s.size() - cut),
              Value(s.data(), s.size()))
        << "cut at " << cut;
  }
}

TEST(Crc32cTest, MaskIsInvertibleAndChangesTheValue) {
  const uint32_t crc = Value("foo", 3);
  EXPECT_NE(Mask(crc), crc);
  EXPECT_NE(Mask(Mask(crc)), crc);
  EXPECT_EQ(Unmask(Mask(crc)), crc);
  EXPECT_EQ(Unmask(Unmask(Mask(Mask(crc)))), crc);
  // LevelDB's definition: rotate right by 15, add 0xa282ead8.
  EXPECT_EQ(Mask(0u), 0xa282ead8u);
  EXPECT_EQ(Mask(1u << 15), 1u + 0xa282ead8u);
}

}  // namespace
}  // namespace crc32c
}  // namespace opkit

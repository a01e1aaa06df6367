// CRC32C (Castagnoli polynomial), as LevelDB and TensorFlow compute it over
// checkpoint data, and the masking both apply to a CRC that is stored.
//
//   uint32_t crc = crc32c::Value(data.data(), data.size());
//   crc = crc32c::Extend(crc, more.data(), more.size());
//   entry.set_crc32c(crc32c::Mask(crc));
//   if (crc32c::Unmask(entry.crc32c()) != crc) { ... corrupted ... }
//
// Note [Masked CRC]
// A CRC computed over bytes that themselves hold CRCs is weak, so a stored
// CRC is rotated right by 15 bits and offset by 0xa282ead8 ("masked"), the
// transformation LevelDB's block trailers and TensorFlow's bundle entries
// (BundleEntryProto.crc32c, the length checksum of DT_STRING data) use.
// Every stored CRC in a bundle is masked; every computed one is compared
// after Unmask.
//
// Pure functions; thread-safe.
#ifndef OPKIT_IO_CRC32C_H_
#define OPKIT_IO_CRC32C_H_

#include <cstddef>
#include <cstdint>

#include "opkit/core/export.h"

namespace opkit {
namespace crc32c {

// The CRC32C of the concatenation of A and data[0, n), where `init_crc` is
// the CRC32C of A (0 for the empty string).
OPKIT_EXPORT uint32_t Extend(uint32_t init_crc, const char* data, size_t n);

// The CRC32C of data[0, n).
inline uint32_t Value(const char* data, size_t n) { return Extend(0, data, n); }

inline constexpr uint32_t kMaskDelta = 0xa282ead8u;

// `crc` masked for storage (Note [Masked CRC]).
inline uint32_t Mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}

// The CRC that Mask() turned into `masked_crc`.
inline uint32_t Unmask(uint32_t masked_crc) {
  const uint32_t rot = masked_crc - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

}  // namespace crc32c
}  // namespace opkit

#endif  // OPKIT_IO_CRC32C_H_

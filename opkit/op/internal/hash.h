// Stable 64-bit hashing of bytes for opkit's own value hashes (AttrValueHash,
// OpDefHash) and printed fingerprints. Stable means the same across runs and
// processes, which absl::Hash (seeded per process) is not; a printed
// `{attr_hash=N}` must not change from one run to the next.
//
//   uint64_t h = internal::HashBytes(op.name(), 0);
//   h = internal::HashCombine(h, AttrValueHash(value));
#ifndef OPKIT_OP_INTERNAL_HASH_H_
#define OPKIT_OP_INTERNAL_HASH_H_

#include <cstdint>
#include <string_view>

namespace opkit {
namespace internal {

// 64-bit FNV-1a over `bytes`, continuing from `seed`.
inline uint64_t HashBytes(std::string_view bytes, uint64_t seed) {
  uint64_t h = seed ^ 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// Mixes `b` into `a` (the boost-style combine, widened to 64 bits).
inline uint64_t HashCombine(uint64_t a, uint64_t b) {
  return a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
}

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_OP_INTERNAL_HASH_H_

// The bytes of a protobuf message with map entries in key order, so that
// equal messages give equal bytes: what attr value and OpDef comparisons and
// hashes compare. Not a wire format to store (protobuf promises nothing
// across its versions).
#ifndef OPKIT_OP_INTERNAL_DETERMINISTIC_SERIALIZATION_H_
#define OPKIT_OP_INTERNAL_DETERMINISTIC_SERIALIZATION_H_

#include <string>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/message.h>

namespace opkit {
namespace internal {

inline std::string DeterministicSerialization(const google::protobuf::Message& m) {
  std::string out;
  m.ByteSizeLong();  // SerializeWithCachedSizes needs the sizes.
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    m.SerializeWithCachedSizes(&coded);
  }
  return out;
}

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_OP_INTERNAL_DETERMINISTIC_SERIALIZATION_H_

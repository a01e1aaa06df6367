// DeviceType: the kind of device a kernel runs on ("CPU", "GPU", ...), and
// the names TensorFlow code uses for the common ones.
//
//   REGISTER_KERNEL_BUILDER(Name("MatMul").Device(DEVICE_CPU), MatMulOp);
//   DeviceType cpu(DEVICE_CPU);
//   cpu.type_string();  // "CPU"
#ifndef OPKIT_DEVICE_DEVICE_TYPE_H_
#define OPKIT_DEVICE_DEVICE_TYPE_H_

#include <ostream>
#include <string>
#include <string_view>

namespace opkit {

inline constexpr const char DEVICE_DEFAULT[] = "DEFAULT";
inline constexpr const char DEVICE_CPU[] = "CPU";
inline constexpr const char DEVICE_GPU[] = "GPU";

// A device kind, compared by name. Thread-compatible value type.
class DeviceType {
 public:
  explicit DeviceType(const char* type) : type_(type) {}
  explicit DeviceType(std::string_view type) : type_(type) {}

  const char* type() const { return type_.c_str(); }
  const std::string& type_string() const { return type_; }

  bool operator<(const DeviceType& other) const { return type_ < other.type_; }
  bool operator==(const DeviceType& other) const { return type_ == other.type_; }
  bool operator!=(const DeviceType& other) const { return type_ != other.type_; }

 private:
  std::string type_;
};

inline std::ostream& operator<<(std::ostream& os, const DeviceType& d) {
  return os << d.type_string();
}

}  // namespace opkit

#endif  // OPKIT_DEVICE_DEVICE_TYPE_H_

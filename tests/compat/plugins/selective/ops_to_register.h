// The ops_to_register.h that the selective plugin (selective_ops.cc) is built
// with, in the shape TensorFlow's print_selective_registration_header writes
// it: a constexpr ShouldRegisterOp over the op names a model needs, the
// kernel classes as one comma-separated string searched with strstr (not a
// constant expression), and no gradients. It keeps CompatSelectiveKept and
// drops CompatSelectiveDropped with its kernel. Like the generated one, it
// includes nothing: strstr comes from selective_registration.h.
#ifndef OPS_TO_REGISTER
#define OPS_TO_REGISTER

namespace {
constexpr const char* skip(const char* x) {
  return (*x) ? (*x == ' ' ? skip(x + 1) : x) : x;
}

struct isequal {
  static constexpr bool value(const char* x, const char* y) {
    return *skip(x) == *skip(y) &&
           (*skip(x) == '\0' || value(skip(x) + 1, skip(y) + 1));
  }
};
}  // namespace

constexpr inline bool ShouldRegisterOp(const char op[]) {
  return false || isequal::value(op, "CompatSelectiveKept");
}
#define SHOULD_REGISTER_OP(op) ShouldRegisterOp(op)

const char kNecessaryOpKernelClasses[] = ","
    "SelectiveKeptOp,"
    ;
#define SHOULD_REGISTER_OP_KERNEL(clz) \
  (strstr(kNecessaryOpKernelClasses, "," clz ",") != nullptr)

#define SHOULD_REGISTER_OP_GRADIENT false

#endif  // OPS_TO_REGISTER

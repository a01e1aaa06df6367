// Variant: the element of a DT_VARIANT tensor, a value of any copyable C++
// type (TensorFlow's tensorflow::Variant). Kernels keep structured values in
// tensors this way: a TensorList (opkit/kernels/tensor_list.h) travels
// between list ops as a scalar DT_VARIANT tensor.
//
//   Tensor t;
//   OPKIT_RETURN_IF_ERROR(Tensor::Allocate(DT_VARIANT, TensorShape({}), &t));
//   t.scalar<Variant>()() = MyValue{...};
//   const MyValue* v = t.scalar<Variant>()().get<MyValue>();  // null if not
//
// Copying a Variant copies the value it holds (the value's own copy
// constructor); moving it moves the pointer. A stored type may define
// `std::string TypeName() const` and `std::string DebugString() const`,
// which TypeName() and DebugString() then report; otherwise the C++ type's
// name is used. Variants have no serialised form in opkit: a DT_VARIANT
// tensor cannot be written to or read from a TensorProto's contents.
#ifndef OPKIT_TENSOR_VARIANT_H_
#define OPKIT_TENSOR_VARIANT_H_

#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "opkit/core/export.h"
#include "opkit/tensor/types.h"

namespace opkit {

class OPKIT_EXPORT Variant {
 public:
  Variant() = default;
  Variant(const Variant& other)
      : value_(other.value_ ? other.value_->Clone() : nullptr) {}
  Variant(Variant&& other) noexcept = default;
  Variant& operator=(const Variant& other) {
    if (this != &other) {
      value_ = other.value_ ? other.value_->Clone() : nullptr;
    }
    return *this;
  }
  Variant& operator=(Variant&& other) noexcept = default;
  ~Variant() = default;

  // Holds a copy (or the moved value) of `value`.
  template <typename T,
            typename V = std::decay_t<T>,
            typename = std::enable_if_t<!std::is_same_v<V, Variant>>>
  Variant(T&& value)  // NOLINT: implicit, as TensorFlow's
      : value_(std::make_unique<Value<V>>(std::forward<T>(value))) {}
  template <typename T,
            typename V = std::decay_t<T>,
            typename = std::enable_if_t<!std::is_same_v<V, Variant>>>
  Variant& operator=(T&& value) {
    value_ = std::make_unique<Value<V>>(std::forward<T>(value));
    return *this;
  }

  // The held value when it is a T, else null.
  template <typename T>
  T* get() {
    if (value_ == nullptr || value_->type() != typeid(T)) return nullptr;
    return &static_cast<Value<T>*>(value_.get())->value;
  }
  template <typename T>
  const T* get() const {
    if (value_ == nullptr || value_->type() != typeid(T)) return nullptr;
    return &static_cast<const Value<T>*>(value_.get())->value;
  }

  bool is_empty() const { return value_ == nullptr; }
  void clear() { value_.reset(); }

  // The stored type's TypeName(), or its C++ name; "" when empty.
  std::string TypeName() const { return value_ ? value_->TypeName() : ""; }
  // "Variant<type: NAME value: ...>", what printing a tensor shows.
  std::string DebugString() const {
    if (value_ == nullptr) return "Variant<empty>";
    return "Variant<type: " + value_->TypeName() +
           " value: " + value_->DebugString() + ">";
  }

 private:
  struct ValueInterface {
    virtual ~ValueInterface() = default;
    virtual std::unique_ptr<ValueInterface> Clone() const = 0;
    virtual const std::type_info& type() const = 0;
    virtual std::string TypeName() const = 0;
    virtual std::string DebugString() const = 0;
  };

  template <typename T, typename = void>
  struct HasTypeName : std::false_type {};
  template <typename T>
  struct HasTypeName<T, std::void_t<decltype(std::declval<const T&>().TypeName())>>
      : std::true_type {};
  template <typename T, typename = void>
  struct HasDebugString : std::false_type {};
  template <typename T>
  struct HasDebugString<
      T, std::void_t<decltype(std::declval<const T&>().DebugString())>>
      : std::true_type {};

  template <typename T>
  struct Value final : ValueInterface {
    template <typename U>
    explicit Value(U&& v) : value(std::forward<U>(v)) {}
    std::unique_ptr<ValueInterface> Clone() const override {
      return std::make_unique<Value<T>>(value);
    }
    const std::type_info& type() const override { return typeid(T); }
    std::string TypeName() const override {
      if constexpr (HasTypeName<T>::value) {
        return std::string(value.TypeName());
      } else {
        return typeid(T).name();
      }
    }
    std::string DebugString() const override {
      if constexpr (HasDebugString<T>::value) {
        return std::string(value.DebugString());
      } else {
        return "";
      }
    }
    T value;
  };

  std::unique_ptr<ValueInterface> value_;
};

template <>
struct DataTypeToEnum<Variant> {
  static constexpr DataType v() { return DT_VARIANT; }
  static constexpr DataType ref() { return MakeRefType(DT_VARIANT); }
  static constexpr DataType value = DT_VARIANT;
};
template <>
struct EnumToDataType<DT_VARIANT> {
  using Type = Variant;
};

}  // namespace opkit

#endif  // OPKIT_TENSOR_VARIANT_H_

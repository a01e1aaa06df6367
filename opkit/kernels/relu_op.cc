// Relu, Relu6, Elu, LeakyRelu and Selu on CPU, and their gradients:
// element-wise Eigen expressions over the flattened input, any shape (empty
// included). Registered for the types TensorFlow's CPU kernels take: every
// real number type for Relu, Relu6 and their gradients, half/bfloat16/float/
// double for the others. NaN stays NaN in the forward ops.
//
// The gradient ops take the incoming gradients and the forward op's features
// (Relu, Relu6, LeakyRelu) or outputs (Elu, Selu), of one shape:
//   ReluGrad       g * (features > 0)
//   Relu6Grad      g * (0 < features < 6)
//   LeakyReluGrad  g where features > 0, else alpha * g
//   EluGrad        g where outputs >= 0, else g * (outputs + 1)
//   SeluGrad       g * scale where outputs >= 0, else g * (outputs + scale * alpha)
// ReluGrad and Relu6Grad multiply by the mask, as TensorFlow's kernels do, so
// a NaN gradient stays NaN where the mask is 0.
#include <cstdint>
#include <type_traits>

#include "opkit/kernel/op_kernel.h"
#include "opkit/kernel/op_requires.h"
#include "opkit/kernel/register_types.h"
#include "opkit/kernels/kernel_shard.h"

namespace opkit {
namespace {

// max(x, 0) with x first: Eigen's default max returns its first argument
// when that is NaN (std::max's rule, which its packets follow too), so NaN
// stays NaN without PropagateNaN's extra compare per packet (which costs
// about 1.5x the time on a large input). ReluAndRelu6KeepNanInEveryLane checks it.
template <typename T>
struct ReluFunctor {
  template <typename X>
  auto operator()(const X& x) const {
    return x.cwiseMax(T(0));
  }
};

// min(max(x, 0), 6), x first in both: NaN stays NaN (see ReluFunctor).
template <typename T>
struct Relu6Functor {
  template <typename X>
  auto operator()(const X& x) const {
    return x.cwiseMax(T(0)).cwiseMin(T(6));
  }
};

// x for x >= 0, e^x - 1 below (NaN compares false and so goes to expm1,
// which keeps it NaN).
template <typename T>
struct EluFunctor {
  template <typename X>
  auto operator()(const X& x) const {
    return (x >= x.constant(T(0))).select(x, x.expm1());
  }
};

// Selu's constants (Klambauer et al., 2017), as TensorFlow uses them.
constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluScaleAlpha = 1.7580993408473768599402175208123;

// scale * x for x > 0, scale * alpha * (e^x - 1) otherwise.
template <typename T>
struct SeluFunctor {
  template <typename X>
  auto operator()(const X& x) const {
    return (x > x.constant(T(0)))
        .select(x * x.constant(static_cast<T>(kSeluScale)),
                x.expm1() * x.constant(static_cast<T>(kSeluScaleAlpha)));
  }
};

// The gradient functors: g is the incoming gradient, a the forward op's
// features or outputs (kSecondInput names which), alpha LeakyReluGrad's attr
// (unused by the others).
template <typename T>
struct ReluGradFunctor {
  static constexpr const char* kSecondInput = "features";
  template <typename G, typename A>
  auto operator()(const G& g, const A& a, T) const {
    return g * (a > a.constant(T(0))).template cast<T>();
  }
};

template <typename T>
struct Relu6GradFunctor {
  static constexpr const char* kSecondInput = "features";
  template <typename G, typename A>
  auto operator()(const G& g, const A& a, T) const {
    return g * ((a > a.constant(T(0))) && (a < a.constant(T(6))))
                   .template cast<T>();
  }
};

template <typename T>
struct LeakyReluGradFunctor {
  static constexpr const char* kSecondInput = "features";
  template <typename G, typename A>
  auto operator()(const G& g, const A& a, T alpha) const {
    return (a > a.constant(T(0))).select(g, g * g.constant(alpha));
  }
};

template <typename T>
struct EluGradFunctor {
  static constexpr const char* kSecondInput = "outputs";
  template <typename G, typename A>
  auto operator()(const G& g, const A& a, T) const {
    return (a < a.constant(T(0))).select(g * (a + a.constant(T(1))), g);
  }
};

template <typename T>
struct SeluGradFunctor {
  static constexpr const char* kSecondInput = "outputs";
  template <typename G, typename A>
  auto operator()(const G& g, const A& a, T) const {
    return (a < a.constant(T(0)))
        .select(g * (a + a.constant(static_cast<T>(kSeluScaleAlpha))),
                g * g.constant(static_cast<T>(kSeluScale)));
  }
};

// gradients (input 0) and the forward op's features or outputs (input 1)
// must have one shape; the result has it too. Only LeakyReluGrad has the
// alpha attr.
template <typename T, typename Functor>
class ActivationGradOp : public OpKernel {
 public:
  explicit ActivationGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->HasAttr("alpha")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", &alpha_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& gradients = ctx->input(0);
    const Tensor& activations = ctx->input(1);
    OP_REQUIRES(ctx, gradients.shape() == activations.shape(),
                errors::InvalidArgument(
                    type_string(), ": gradients (input 0) and ",
                    Functor::kSecondInput, " (input 1) must have the same shape, got ",
                    gradients.shape().DebugString(), " and ",
                    activations.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0, 1}, 0, gradients.shape(), &out));
    const int64_t n = gradients.NumElements();
    if (n == 0) return;
    if constexpr (std::is_same_v<Functor, ReluGradFunctor<T>> &&
                  std::is_floating_point_v<T>) {
      // g * (a > 0) on Eigen's packets (its tensor expression casts the
      // comparison element by element, and a plain loop compiles to a
      // branch per element): the mask is 1 or 0 and multiplies, so a NaN
      // gradient stays NaN where the mask is 0, as in TensorFlow. Each
      // packet is loaded before it is stored, so `out` may be either input.
      using Packet = typename Eigen::internal::packet_traits<T>::type;
      constexpr int64_t kSize = Eigen::internal::packet_traits<T>::size;
      const T* gp = gradients.flat<T>().data();
      const T* ap = activations.flat<T>().data();
      T* yp = out->flat<T>().data();
      auto run = [=](int64_t first, int64_t last) {
        namespace ei = Eigen::internal;
        const Packet zero = ei::pset1<Packet>(T(0));
        const Packet one = ei::pset1<Packet>(T(1));
        int64_t i = first;
        for (; i + kSize <= last; i += kSize) {
          const Packet mask = ei::pand(ei::pcmp_lt(zero, ei::ploadu<Packet>(ap + i)), one);
          ei::pstoreu(yp + i, ei::pmul(ei::ploadu<Packet>(gp + i), mask));
        }
        for (; i < last; ++i) yp[i] = gp[i] * (ap[i] > T(0) ? T(1) : T(0));
      };
      // Small inputs inline, as the Eigen path below: waking a pool thread
      // costs more than it saves.
      if (n <= kInlineElements) {
        run(0, n);
      } else {
        Shard(ctx, n, 1.0, run);
      }
      return;
    }
    auto g = gradients.flat<T>();
    auto a = activations.flat<T>();
    auto y = out->flat<T>();
    auto expr = Functor()(g, a, static_cast<T>(alpha_));
    if (n <= kInlineElements) {
      y = expr;
    } else {
      y.device(ctx->eigen_device<Eigen::ThreadPoolDevice>()) = expr;
    }
  }

 private:
  float alpha_ = 0.2f;
};

template <typename T, typename Functor>
class UnaryActivationOp : public OpKernel {
 public:
  explicit UnaryActivationOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0,
                                                              in.shape(), &out));
    const int64_t n = in.NumElements();
    if (n == 0) return;
    auto x = in.flat<T>();
    auto y = out->flat<T>();
    Functor f;
    if (n <= kInlineElements) {
      y = f(x);
    } else {
      y.device(ctx->eigen_device<Eigen::ThreadPoolDevice>()) = f(x);
    }
  }
};

// x for x > 0, alpha * x otherwise. alpha may be anything (> 1 or negative
// too), so this is a select, not max(x, alpha * x).
template <typename T>
class LeakyReluOp : public OpKernel {
 public:
  explicit LeakyReluOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", &alpha_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0}, 0,
                                                              in.shape(), &out));
    const int64_t n = in.NumElements();
    if (n == 0) return;
    auto x = in.flat<T>();
    auto y = out->flat<T>();
    const T alpha = static_cast<T>(alpha_);
    auto expr = (x > x.constant(T(0))).select(x, x * x.constant(alpha));
    if (n <= kInlineElements) {
      y = expr;
    } else {
      y.device(ctx->eigen_device<Eigen::ThreadPoolDevice>()) = expr;
    }
  }

 private:
  float alpha_ = 0.2f;
};

#define OPKIT_REGISTER_RELU(T)                                          \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("Relu").Device(DEVICE_CPU).TypeConstraint<T>("T"),           \
      UnaryActivationOp<T, ReluFunctor<T>>);                            \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("Relu6").Device(DEVICE_CPU).TypeConstraint<T>("T"),          \
      UnaryActivationOp<T, Relu6Functor<T>>);                           \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("ReluGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),       \
      ActivationGradOp<T, ReluGradFunctor<T>>);                         \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("Relu6Grad").Device(DEVICE_CPU).TypeConstraint<T>("T"),      \
      ActivationGradOp<T, Relu6GradFunctor<T>>);
TF_CALL_REAL_NUMBER_TYPES(OPKIT_REGISTER_RELU)
#undef OPKIT_REGISTER_RELU

#define OPKIT_REGISTER_ELU(T)                                           \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("Elu").Device(DEVICE_CPU).TypeConstraint<T>("T"),            \
      UnaryActivationOp<T, EluFunctor<T>>);                            \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("LeakyRelu").Device(DEVICE_CPU).TypeConstraint<T>("T"),      \
      LeakyReluOp<T>);                                                  \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("Selu").Device(DEVICE_CPU).TypeConstraint<T>("T"),           \
      UnaryActivationOp<T, SeluFunctor<T>>);                            \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("EluGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),        \
      ActivationGradOp<T, EluGradFunctor<T>>);                          \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("SeluGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),       \
      ActivationGradOp<T, SeluGradFunctor<T>>);                         \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("LeakyReluGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),  \
      ActivationGradOp<T, LeakyReluGradFunctor<T>>);
TF_CALL_FLOAT_TYPES(OPKIT_REGISTER_ELU)
#undef OPKIT_REGISTER_ELU

}  // namespace
}  // namespace opkit

// See onednn_util.h.
#include "onednn_util.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <new>

#if DNNL_CPU_RUNTIME == DNNL_RUNTIME_OMP
#include <omp.h>
#endif

#include "opkit/core/errors.h"
#include "opkit/device/device.h"
#include "opkit/kernel/op_kernel_construction.h"
#include "opkit/kernel/op_kernel_context.h"
#include "opkit/tensor/tensor.h"

namespace opkit {
namespace onednn_kernels {

const dnnl::engine& CpuEngine() {
  // A throwing initialiser leaves the static uninitialised; the next call
  // tries again. Destroyed when the library is unloaded.
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

Status RunGuarded(const std::string& op, const std::function<Status()>& body) {
  try {
    return body();
  } catch (const dnnl::error& e) {
    if (e.status == dnnl_unimplemented) {
      return errors::Unimplemented(
          op, ": oneDNN has no implementation for this case (", e.what(),
          "); unload onednn_kernels to run the built-in kernel");
    }
    return errors::Internal(op, ": oneDNN failed with status ",
                            static_cast<int>(e.status), ": ", e.what());
  } catch (const std::bad_alloc&) {
    return errors::ResourceExhausted(op, ": out of memory in oneDNN");
  } catch (const std::exception& e) {
    return errors::Internal(op, ": ", e.what());
  }
}

int SetOpenMpThreads(OpKernelContext* ctx) {
  int threads = 1;
  const DeviceBase* device = ctx->device();
  if (device != nullptr && device->tensorflow_cpu_worker_threads() != nullptr) {
    threads = std::max(1, device->tensorflow_cpu_worker_threads()->num_threads);
  }
#if DNNL_CPU_RUNTIME == DNNL_RUNTIME_OMP
  // nthreads-var is per thread: this sets the team size of parallel regions
  // that this thread starts, and no other thread's.
  if (omp_get_max_threads() != threads) omp_set_num_threads(threads);
#endif
  return threads;
}

Status ParseFusedOps(OpKernelConstruction* ctx, FusedOps* out) {
  *out = FusedOps();
  if (!ctx->HasAttr("fused_ops")) return OkStatus();
  std::vector<std::string> ops;
  OPKIT_RETURN_IF_ERROR(ctx->GetAttr("fused_ops", &ops));
  int num_args = 0;
  OPKIT_RETURN_IF_ERROR(ctx->GetAttr("num_args", &num_args));
  if (ctx->HasAttr("leakyrelu_alpha")) {
    OPKIT_RETURN_IF_ERROR(ctx->GetAttr("leakyrelu_alpha", &out->leakyrelu_alpha));
  }
  std::string list;
  for (const std::string& op : ops) list += (list.empty() ? "" : ", ") + op;
  const std::string supported =
      "onednn_kernels supports [BiasAdd] and [BiasAdd, X] with X one of Relu, "
      "Relu6, Elu, LeakyRelu; unload it to run the built-in kernel";
  if (ops.empty()) {
    return errors::InvalidArgument(ctx->def().op(),
                                   " must have at least one fused op");
  }
  if (ops[0] != "BiasAdd" || ops.size() > 2) {
    return errors::Unimplemented(ctx->def().op(), ": fused_ops [", list,
                                 "] is not supported; ", supported);
  }
  out->bias = true;
  if (ops.size() == 2) {
    const std::string& a = ops[1];
    if (a == "Relu") {
      out->activation = Activation::kRelu;
    } else if (a == "Relu6") {
      out->activation = Activation::kRelu6;
    } else if (a == "Elu") {
      out->activation = Activation::kElu;
    } else if (a == "LeakyRelu") {
      out->activation = Activation::kLeakyRelu;
    } else {
      return errors::Unimplemented(ctx->def().op(), ": fused_ops [", list,
                                   "] is not supported; ", supported);
    }
  }
  if (num_args != 1) {
    return errors::InvalidArgument(ctx->def().op(), " with fused_ops [", list,
                                   "] takes one extra argument (the bias), "
                                   "got num_args = ",
                                   num_args);
  }
  return OkStatus();
}

dnnl::primitive_attr MakeAttr(const FusedOps& fused) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  dnnl::post_ops post;
  switch (fused.activation) {
    case Activation::kNone:
      break;
    case Activation::kRelu:
      post.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
      break;
    case Activation::kRelu6:
      post.append_eltwise(1.f, dnnl::algorithm::eltwise_clip, 0.f, 6.f);
      break;
    case Activation::kElu:
      post.append_eltwise(1.f, dnnl::algorithm::eltwise_elu, 1.f, 0.f);
      break;
    case Activation::kLeakyRelu:
      post.append_eltwise(1.f, dnnl::algorithm::eltwise_relu,
                          fused.leakyrelu_alpha, 0.f);
      break;
  }
  attr.set_post_ops(post);
  return attr;
}

Status CheckBias(const Tensor& bias, int64_t channels) {
  if (bias.dims() != 1 || bias.dim_size(0) != channels) {
    return errors::InvalidArgument("bias must be a vector of ", channels,
                                   " values (one per output channel), got "
                                   "shape ",
                                   bias.shape().DebugString());
  }
  return OkStatus();
}

namespace {

float Activate(Activation a, float alpha, float x) {
  switch (a) {
    case Activation::kNone:
      return x;
    case Activation::kRelu:
      return std::max(x, 0.f);
    case Activation::kRelu6:
      return std::min(std::max(x, 0.f), 6.f);
    case Activation::kElu:
      return x < 0.f ? std::expm1(x) : x;
    case Activation::kLeakyRelu:
      return x < 0.f ? alpha * x : x;
  }
  return x;
}

}  // namespace

void FillEmptyReduction(const FusedOps& fused, const float* bias,
                        int64_t outer, int64_t channels, int64_t inner,
                        float* out) {
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t c = 0; c < channels; ++c) {
      const float v = bias == nullptr
                          ? 0.f
                          : Activate(fused.activation, fused.leakyrelu_alpha,
                                     bias[c]);
      std::fill_n(out + (o * channels + c) * inner, inner, v);
    }
  }
}

Status Execute(OpKernelContext* ctx, const dnnl::primitive_desc_base& pd,
               const dnnl::primitive& prim,
               std::unordered_map<int, dnnl::memory> args) {
  const dnnl::memory::desc scratch_desc = pd.scratchpad_desc();
  Tensor scratch;
  if (scratch_desc.get_size() > 0) {
    OPKIT_RETURN_IF_ERROR(ctx->allocate_temp(
        DT_UINT8,
        TensorShape({static_cast<int64_t>(scratch_desc.get_size())}),
        &scratch));
    args.emplace(DNNL_ARG_SCRATCHPAD,
                 dnnl::memory(scratch_desc, CpuEngine(), scratch.data()));
  }
  dnnl::stream stream(CpuEngine());
  prim.execute(stream, args);
  stream.wait();
  return OkStatus();
}

dnnl::memory WrapTensor(const dnnl::memory::desc& desc, const Tensor& t) {
  return dnnl::memory(desc, CpuEngine(), t.data());
}

}  // namespace onednn_kernels
}  // namespace opkit

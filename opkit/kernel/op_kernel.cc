// OpKernel and AsyncOpKernel, and the registrar behind
// REGISTER_KERNEL_BUILDER. The rest of the kernel API is split by concept:
// node_properties.cc, op_kernel_construction.cc, create_op_kernel.cc,
// op_kernel_context*.cc.
#include "opkit/kernel/op_kernel.h"

#include <memory>

#include "opkit/core/errors.h"
#include "opkit/core/logging.h"
#include "opkit/kernel/internal/op_kernel_util.h"
#include "opkit/op/node_def_util.h"

namespace opkit {

using internal::Basename;

// ---------------------------------------------------------------------------
// OpKernel

OpKernel::OpKernel(OpKernelConstruction* context)
    : props_(context->props()),
      library_owner_(context->library_owner()) {
  // Note [Inline kernel types]
  num_inputs_ = static_cast<int>(props_->input_types.size());
  num_outputs_ = static_cast<int>(props_->output_types.size());
  for (int i = 0; i < kInlineTypes && i < num_inputs_; ++i) {
    inline_input_types_[i] = props_->input_types[i];
  }
  for (int i = 0; i < kInlineTypes && i < num_outputs_; ++i) {
    inline_output_types_[i] = props_->output_types[i];
  }
  // Properties from CreateFromNodeDef carry the ranges (Note [Validate
  // once] in node_def_util.h); only hand-built ones need the attrs read.
  NameRangeMap computed_inputs;
  NameRangeMap computed_outputs;
  if (!props_->has_arg_ranges) {
    Status s = NameRangesForNode(AttrSlice(props_->node_def), props_->op_def,
                                 &computed_inputs, &computed_outputs);
    if (!s.ok()) {
      context->SetStatus(s);
      return;
    }
  }
  const NameRangeMap& inputs =
      props_->has_arg_ranges ? props_->input_ranges : computed_inputs;
  const NameRangeMap& outputs =
      props_->has_arg_ranges ? props_->output_ranges : computed_outputs;
  // The ranges must agree with the types, or the context would index past
  // the inputs it was given.
  auto add = [&](const auto& args, const NameRangeMap& ranges, int count,
                 ArgRangeMap* out, const char* kind) -> Status {
    for (const OpDef::ArgDef& arg : args) {
      auto it = ranges.find(arg.name());
      if (it == ranges.end()) continue;
      const auto [start, stop] = it->second;
      if (start < 0 || stop < start || stop > count) {
        return errors::Internal("The ", kind, " range [", start, ", ", stop,
                                ") of argument '", arg.name(), "' of ",
                                FormatNodeDefForError(props_->node_def),
                                " does not fit its ", count, " ", kind, "s");
      }
      const bool is_list =
          !arg.number_attr().empty() || !arg.type_list_attr().empty();
      out->emplace(arg.name(), ArgRange{start, stop, is_list});
    }
    return OkStatus();
  };
  Status s = add(props_->op_def.input_arg(), inputs, num_inputs(),
                 &input_ranges_, "input");
  if (s.ok()) {
    s = add(props_->op_def.output_arg(), outputs, num_outputs(),
            &output_ranges_, "output");
  }
  if (!s.ok()) context->SetStatus(s);
}

OpKernel::~OpKernel() = default;

DataType OpKernel::InputTypeSlow(int i) const {
  if (i < 0 || i >= num_inputs()) return DT_INVALID;
  return props_->input_types[i];
}

DataType OpKernel::OutputTypeSlow(int i) const {
  if (i < 0 || i >= num_outputs()) return DT_INVALID;
  return props_->output_types[i];
}

Status OpKernel::InputRange(std::string_view input_name, int* start,
                            int* stop) const {
  bool is_list = false;
  return InputRange(input_name, start, stop, &is_list);
}

Status OpKernel::OutputRange(std::string_view output_name, int* start,
                             int* stop) const {
  bool is_list = false;
  return OutputRange(output_name, start, stop, &is_list);
}

Status OpKernel::InputRange(std::string_view input_name, int* start, int* stop,
                            bool* is_list) const {
  auto it = input_ranges_.find(input_name);
  if (it == input_ranges_.end()) {
    return errors::InvalidArgument("Unknown input name: ", input_name);
  }
  *start = it->second.start;
  *stop = it->second.stop;
  *is_list = it->second.is_list;
  return OkStatus();
}

Status OpKernel::OutputRange(std::string_view output_name, int* start,
                             int* stop, bool* is_list) const {
  auto it = output_ranges_.find(output_name);
  if (it == output_ranges_.end()) {
    return errors::InvalidArgument("Unknown output name: ", output_name);
  }
  *start = it->second.start;
  *stop = it->second.stop;
  *is_list = it->second.is_list;
  return OkStatus();
}

void AsyncOpKernel::Compute(OpKernelContext* context) {
  // Shared with the callback, so that a late or repeated `done` touches
  // live memory even after this call has returned.
  struct State {
    mutex mu;
    condition_variable cv;
    bool done = false;
  };
  auto state = std::make_shared<State>();
  ComputeAsync(context, [state]() {
    mutex_lock l(state->mu);
    state->done = true;
    state->cv.notify_all();
  });
  mutex_lock l(state->mu);
  state->cv.wait(l, [&state] { return state->done; });
}

// ---------------------------------------------------------------------------
// REGISTER_KERNEL_BUILDER

namespace kernel_factory {
namespace {

// Appends `registration` to the pending list. Runs during static
// initialization: nothing may escape.
void AddPending(PendingKernelRegistration registration) {
  try {
    ::opkit::internal::AddPendingKernelRegistration(std::move(registration));
  } catch (...) {
    LOG(ERROR) << "Could not record a kernel registration made with "
                  "OpKernelRegistrar (out of memory?); it is not registered";
  }
}

// A pending registration of `kernel_def` (taken over) for TensorFlow's
// constructors; false when there is nothing to register.
bool FromKernelDef(const KernelDef* kernel_def, std::string_view class_name,
                   const char* file, int line, PendingKernelRegistration* p) {
  std::unique_ptr<const KernelDef> owned(kernel_def);
  p->registration.kernel_class_name = std::string(class_name);
  p->registration.origin = RegistrationOrigin{file != nullptr ? file : "", line, ""};
  if (owned == nullptr) {
    p->build_status = errors::InvalidArgument(
        "OpKernelRegistrar for kernel class '", class_name, "' at ",
        Basename(file), ":", line,
        " was given a null KernelDef; pass Name(\"Op\")...Build()");
    return true;
  }
  // TensorFlow's register_kernel::Name names a dropped op "_no_register".
  if (owned->op() == "_no_register") return false;
  p->registration.def = *owned;
  return true;
}

}  // namespace

OpKernelRegistrar::OpKernelRegistrar(bool should_register,
                                     const KernelDefBuilder& builder,
                                     const char* kernel_class_name,
                                     KernelFactory factory, const char* file,
                                     int line) {
  if (!should_register) return;
  // Runs during static initialization: nothing may escape.
  try {
    ::opkit::internal::AddPendingKernelRegistration(
        builder, kernel_class_name != nullptr ? kernel_class_name : "",
        factory, RegistrationOrigin{file != nullptr ? file : "", line, ""});
  } catch (...) {
    LOG(ERROR) << "Could not record the kernel registration of "
               << (kernel_class_name != nullptr ? kernel_class_name : "")
               << " at " << Basename(file) << ":" << line
               << " (out of memory?); the kernel is not registered";
  }
}

OpKernelRegistrar::OpKernelRegistrar(const KernelDef* kernel_def,
                                     std::string_view kernel_class_name,
                                     std::unique_ptr<OpKernelFactory> factory,
                                     const char* file, int line) {
  PendingKernelRegistration p;
  try {
    if (!FromKernelDef(kernel_def, kernel_class_name, file, line, &p)) return;
    p.registration.factory_object = std::move(factory);
  } catch (...) {
    return;  // Out of memory: as above, nothing may escape.
  }
  AddPending(std::move(p));
}

OpKernelRegistrar::OpKernelRegistrar(const KernelDef* kernel_def,
                                     std::string_view kernel_class_name,
                                     OpKernel* (*create_fn)(OpKernelConstruction*),
                                     const char* file, int line) {
  PendingKernelRegistration p;
  try {
    if (!FromKernelDef(kernel_def, kernel_class_name, file, line, &p)) return;
    p.registration.factory = create_fn;
  } catch (...) {
    return;
  }
  AddPending(std::move(p));
}

}  // namespace kernel_factory

}  // namespace opkit

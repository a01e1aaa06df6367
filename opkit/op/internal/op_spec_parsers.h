// The parsers OpDefBuilder::Finalize runs over the spec strings it was
// given (internal to OpDefBuilder): each adds what one spec declares to an
// OpDef and appends any error to *errors. Not part of the API.
//
// Note [Spec parsing]: the parsers follow TensorFlow's OpDefBuilder token
// by token (which characters a name may hold, where blanks are skipped,
// what is left in the quoted remainder of an error message), because users
// and the conformance data compare error texts and OpDefs with TensorFlow's.
// Every parser works on a std::string_view that it only shrinks from the
// front, so no input can index out of range; a failed parse pushes one
// message and abandons that spec (the half-filled entry stays in the OpDef,
// as in TensorFlow, so that later references to it produce the same texts).
#ifndef OPKIT_OP_INTERNAL_OP_SPEC_PARSERS_H_
#define OPKIT_OP_INTERNAL_OP_SPEC_PARSERS_H_

#include <string>
#include <string_view>
#include <vector>

#include "opkit/op_def.pb.h"

namespace opkit {
namespace internal {

// "<name>: <type> [>= <int>] [= <default>]" (op_spec_parse.cc).
void FinalizeAttr(std::string_view spec, OpDef* op_def,
                  std::vector<std::string>* errors);
// "<name>: [Ref(] <type-expr> [)]" for an input or (`is_output`) an output.
// Attrs must have been finalized first: the spec refers to them.
void FinalizeInputOrOutput(std::string_view spec, bool is_output,
                           OpDef* op_def, std::vector<std::string>* errors);
// "<name>" of a control output.
void FinalizeControlOutput(std::string_view spec, OpDef* op_def,
                           std::vector<std::string>* errors);
// The Doc() text: summary, description, "<name>: <text>" paragraphs for
// inputs, outputs and attrs, which must have been finalized first
// (op_spec_doc.cc).
void FinalizeDoc(const std::string& text, OpDef* op_def,
                 std::vector<std::string>* errors);

}  // namespace internal
}  // namespace opkit

#endif  // OPKIT_OP_INTERNAL_OP_SPEC_PARSERS_H_

// AttrSlice: a read-only view of a node's (or a map's) attrs, optionally
// layered over a second map.
#include "opkit/op/attr_slice.h"

#include <string>
#include <string_view>

#include "opkit/core/errors.h"
#include "opkit/op/attr_value_util.h"
#include "opkit/op/internal/node_def_helpers.h"
#include "opkit/op/node_def_util.h"

namespace opkit {
namespace {

const AttrValueMap& EmptyAttrValueMap() {
  // Leaked on purpose: AttrSlices may outlive static destruction order.
  static const AttrValueMap* const kEmpty = new AttrValueMap;
  return *kEmpty;
}

}  // namespace

using internal::SortedAttrs;
using internal::SummarizeNodeWithAttrs;

// ---------------------------------------------------------------------------
// AttrSlice

AttrSlice::AttrSlice(const NodeDef* ndef, const AttrValueMap* front,
                     const AttrValueMap* back)
    : ndef_(ndef), front_(front != nullptr ? front : &EmptyAttrValueMap()), back_(back) {}

AttrSlice::AttrSlice() : AttrSlice(nullptr, nullptr, nullptr) {}

AttrSlice::AttrSlice(const NodeDef& node_def)
    : AttrSlice(&node_def, &node_def.attr(), nullptr) {}

AttrSlice::AttrSlice(const AttrValueMap* attrs) : AttrSlice(nullptr, attrs, nullptr) {}

AttrSlice::AttrSlice(const NodeDef& node_def, const AttrValueMap* overlay)
    : AttrSlice(&node_def, overlay != nullptr ? overlay : &node_def.attr(),
                overlay != nullptr ? &node_def.attr() : nullptr) {}

AttrSlice::AttrSlice(const AttrValueMap* attrs, const AttrValueMap* overlay)
    : AttrSlice(nullptr, overlay != nullptr ? overlay : attrs,
                overlay != nullptr ? attrs : nullptr) {}

AttrSlice AttrSlice::WithDefaults(const NodeDef& node_def, const AttrValueMap* defaults) {
  return AttrSlice(&node_def, &node_def.attr(), defaults);
}

int AttrSlice::size() const {
  size_t n = front_->size();
  if (back_ != nullptr) {
    for (const auto& entry : *back_) {
      if (front_->find(entry.first) == front_->end()) ++n;
    }
  }
  return static_cast<int>(n);
}

const AttrValue* AttrSlice::Find(std::string_view attr_name) const {
  // Heterogeneous lookup: protobuf's Map hashes the string_view directly.
  auto it = front_->find(attr_name);
  if (it != front_->end()) return &it->second;
  if (back_ != nullptr) {
    it = back_->find(attr_name);
    if (it != back_->end()) return &it->second;
  }
  return nullptr;
}

Status AttrSlice::Find(std::string_view attr_name, const AttrValue** attr_value) const {
  *attr_value = Find(attr_name);
  if (*attr_value != nullptr) return OkStatus();
  Status s = errors::NotFound("No attr named '", attr_name, "' in NodeDef:");
  if (ndef_ != nullptr) return AttachDef(s, *ndef_);
  return errors::AppendToMessage(s, " ", SummarizeNode());
}

bool AttrSlice::EqualAttrs(const AttrSlice& other) const {
  if (size() != other.size()) return false;
  for (const auto& entry : other) {
    const AttrValue* mine = Find(entry.first);
    if (mine == nullptr || !AreAttrValuesEqual(*mine, entry.second)) return false;
  }
  return true;
}

std::string AttrSlice::SummarizeNode() const {
  if (ndef_ != nullptr) return SummarizeNodeWithAttrs(*ndef_, *this, -1);
  return StrCat("[", SummarizeAttrsHelper(*this, std::string_view()), "]");
}

std::string AttrSlice::DebugString() const {
  std::string ret;
  for (const auto* entry : SortedAttrs(*this)) {
    if (!ret.empty()) ret += ", ";
    ret += StrCat(entry->first, "=", SummarizeAttrValue(entry->second));
  }
  return ret;
}

AttrSlice::const_iterator::const_iterator(const AttrSlice* slice, bool in_back,
                                          AttrValueMap::const_iterator it)
    : slice_(slice), in_back_(in_back), it_(it) {
  Settle();
}

void AttrSlice::const_iterator::Settle() {
  if (!in_back_) {
    if (it_ != slice_->front_->end() || slice_->back_ == nullptr) return;
    in_back_ = true;
    it_ = slice_->back_->begin();
  }
  while (it_ != slice_->back_->end() &&
         slice_->front_->find(it_->first) != slice_->front_->end()) {
    ++it_;
  }
}

AttrSlice::const_iterator& AttrSlice::const_iterator::operator++() {
  ++it_;
  Settle();
  return *this;
}

AttrSlice::const_iterator AttrSlice::begin() const {
  return const_iterator(this, false, front_->begin());
}

AttrSlice::const_iterator AttrSlice::end() const {
  if (back_ != nullptr) return const_iterator(this, true, back_->end());
  return const_iterator(this, false, front_->end());
}

}  // namespace opkit

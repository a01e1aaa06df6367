// AttrSlice: a read-only view of a node's attrs (or of an attr map),
// optionally layered over a second map, and AttrValueMap. Part of
// node_def_util.h, which includes this header; see it for GetNodeAttr and
// the other functions that take an AttrSlice.
//
//   AttrSlice attrs = AttrSlice::WithDefaults(node_def, &op_defaults);
//   const AttrValue* t = attrs.Find("T");  // the node's, else the default
#ifndef OPKIT_OP_ATTR_SLICE_H_
#define OPKIT_OP_ATTR_SLICE_H_

#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>

#include "google/protobuf/map.h"
#include "opkit/attr_value.pb.h"
#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/node_def.pb.h"

namespace opkit {

// The attr map of a NodeDef (and of an eager call).
using AttrValueMap = google::protobuf::Map<std::string, AttrValue>;

// A read-only view of a set of attrs: a NodeDef's, an AttrValueMap, or one of
// those combined with a second map. It borrows everything it is built from;
// those must outlive it and must not be modified while it is used.
//
// Two layers: a *front* map whose entries win, and a *back* map that supplies
// the names the front one lacks.
//   AttrSlice(node_def)                    back: none  front: node's attrs
//   AttrSlice(node_def, &overlay)          overlay wins over the node's attrs
//   AttrSlice::WithDefaults(node_def, &d)  the node's attrs win over `d`
// Iteration visits every distinct name once (front entries, then back
// entries the front does not shadow); the order is unspecified.
//
// Lookups do not allocate: protobuf's Map takes a std::string_view key here
// (protobuf >= 3.21 has heterogeneous lookup), so Find is a hash lookup per
// layer with no temporary std::string.
//
// Copyable and cheap (three pointers). Thread-compatible.
class OPKIT_EXPORT AttrSlice {
 public:
  // No attrs.
  AttrSlice();
  // The attrs of `node_def`. Implicit, as in TensorFlow, so that every
  // function taking an AttrSlice also takes a NodeDef.
  AttrSlice(const NodeDef& node_def);  // NOLINT(runtime/explicit)
  // The attrs in `attrs` (null means none).
  explicit AttrSlice(const AttrValueMap* attrs);
  // `node_def`'s attrs with `overlay`'s entries replacing or adding to them
  // (null `overlay` means none). Messages still name `node_def`.
  AttrSlice(const NodeDef& node_def, const AttrValueMap* overlay);
  // `attrs` with `overlay`'s entries replacing or adding to them.
  AttrSlice(const AttrValueMap* attrs, const AttrValueMap* overlay);
  // `node_def`'s attrs, with `defaults` supplying those it does not set
  // (how kernel selection applies an op's defaults without copying the
  // NodeDef).
  static AttrSlice WithDefaults(const NodeDef& node_def, const AttrValueMap* defaults);

  // Number of distinct attr names. O(1) for one layer, linear in the back
  // layer's size for two.
  int size() const;
  bool empty() const { return size() == 0; }

  // The value of `attr_name`, or nullptr. Does not allocate.
  const AttrValue* Find(std::string_view attr_name) const;
  // TensorFlow's name for the std::string lookup; same as Find.
  const AttrValue* FindByString(const std::string& attr_name) const {
    return Find(attr_name);
  }

  // Sets *attr_value and returns OK, or sets it to nullptr and returns
  // NotFound "No attr named 'x' in NodeDef:" followed by the node
  // ("\n\t [[{{node n}}]]") or, for a slice without a NodeDef, the attrs
  // (" [a=1, b=2]").
  Status Find(std::string_view attr_name, const AttrValue** attr_value) const;

  // Whether both slices hold the same names with equal values
  // (AreAttrValuesEqual, so tensors compare by content).
  bool EqualAttrs(const AttrSlice& other) const;

  // For messages: SummarizeNodeDef of the node (with this slice's attrs) if
  // the slice has one, else "[a=1, b=2]" with the attrs sorted by name.
  std::string SummarizeNode() const;
  // "a=1, b=2": every attr, sorted by name (TensorFlow leaves them unsorted).
  std::string DebugString() const;

  // The NodeDef the slice was built from, or nullptr. For messages.
  const NodeDef* node_def() const { return ndef_; }

  // Forward iteration over (name, value) pairs; `it->first`, `it->second`.
  class OPKIT_EXPORT const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = AttrValueMap::value_type;
    using difference_type = std::ptrdiff_t;
    using pointer = const value_type*;
    using reference = const value_type&;

    const_iterator() = default;
    reference operator*() const { return *it_; }
    pointer operator->() const { return &*it_; }
    const_iterator& operator++();
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++*this;
      return old;
    }
    bool operator==(const const_iterator& o) const {
      return in_back_ == o.in_back_ && it_ == o.it_;
    }
    bool operator!=(const const_iterator& o) const { return !(*this == o); }

   private:
    friend class AttrSlice;
    const_iterator(const AttrSlice* slice, bool in_back, AttrValueMap::const_iterator it);
    // Moves into the back layer when the front one is done, and past back
    // entries the front layer shadows.
    void Settle();

    const AttrSlice* slice_ = nullptr;
    bool in_back_ = false;
    AttrValueMap::const_iterator it_;
  };
  const_iterator begin() const;
  const_iterator end() const;

 private:
  AttrSlice(const NodeDef* ndef, const AttrValueMap* front, const AttrValueMap* back);

  const NodeDef* ndef_;
  // Never null (an empty map stands for none).
  const AttrValueMap* front_;
  // Null when there is one layer.
  const AttrValueMap* back_;
};

}  // namespace opkit

#endif  // OPKIT_OP_ATTR_SLICE_H_

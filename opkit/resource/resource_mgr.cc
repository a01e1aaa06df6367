// ResourceMgr: resources by container and name, with type checks and clean
// errors.
#include "opkit/resource/resource_mgr.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <vector>

#include "opkit/core/errors.h"
#include "opkit/tensor/resource_handle.h"

namespace opkit {
namespace {

// "opkit::Counter" rather than "N5opkit7CounterE"; the mangled name when the
// demangler cannot read it.
std::string Demangle(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  if (status != 0 || out == nullptr) return mangled;
  return out.get();
}

}  // namespace

ResourceMgr::ResourceMgr() : ResourceMgr("localhost") {}

ResourceMgr::ResourceMgr(std::string default_container)
    : default_container_(std::move(default_container)) {}

ResourceMgr::~ResourceMgr() { Clear(); }

Status ResourceMgr::DoCreate(const std::string& container,
                             const std::string& name, std::type_index type,
                             const char* mangled_type, ResourceBase* resource) {
  if (resource == nullptr) {
    return errors::InvalidArgument("Cannot create resource ", container, "/",
                                   name, "/", Demangle(mangled_type),
                                   ": the resource pointer is null");
  }
  Status s;
  {
    mutex_lock l(mu_);
    s = DoCreateLocked(container, name, type, mangled_type, resource);
  }
  // The manager took the caller's reference; on failure nobody holds it.
  if (!s.ok()) resource->Unref();
  return s;
}

Status ResourceMgr::DoCreateLocked(const std::string& container,
                                   const std::string& name,
                                   std::type_index type,
                                   const char* mangled_type,
                                   ResourceBase* resource) {
  Container& c = containers_[container];
  auto it = c.find(name);
  if (it != c.end()) {
    // TensorFlow's wording, plus the type already there when it differs.
    std::string type_name = Demangle(mangled_type);
    if (it->second.type != type) {
      return errors::AlreadyExists("Resource ", container, "/", name, "/",
                                   type_name,
                                   " cannot be created: the name is taken by "
                                   "a resource of type ",
                                   it->second.type_name);
    }
    return errors::AlreadyExists("Resource ", container, "/", name, "/",
                                 type_name);
  }
  c.emplace(name, Entry{type, Demangle(mangled_type), resource});
  return OkStatus();
}

Status ResourceMgr::DoLookup(const std::string& container,
                             const std::string& name, std::type_index type,
                             const char* mangled_type,
                             ResourceBase** resource) const {
  shared_lock l(mu_);
  return DoLookupLocked(container, name, type, mangled_type, resource);
}

Status ResourceMgr::FindEntryLocked(const std::string& container,
                                    const std::string& name,
                                    std::type_index type,
                                    const char* mangled_type, bool deleting,
                                    const Entry** entry) const {
  *entry = nullptr;
  auto c = containers_.find(container);
  if (c == containers_.end()) {
    return errors::NotFound("Container ", container,
                            " does not exist. (Could not find resource: ",
                            container, "/", name, ")");
  }
  auto it = c->second.find(name);
  if (it == c->second.end()) {
    return errors::NotFound("Resource ", container, "/", name, "/",
                            Demangle(mangled_type), " does not exist.");
  }
  if (it->second.type != type) {
    return errors::InvalidArgument(
        "Trying to ", deleting ? "delete" : "access", " resource ", container,
        "/", name, " using the wrong type. The resource is of type '",
        it->second.type_name,
        deleting ? "' but Delete was called with type '"
                 : "' but it was looked up as type '",
        Demangle(mangled_type), "'");
  }
  *entry = &it->second;
  return OkStatus();
}

Status ResourceMgr::DoLookupLocked(const std::string& container,
                                   const std::string& name,
                                   std::type_index type,
                                   const char* mangled_type,
                                   ResourceBase** resource) const {
  *resource = nullptr;
  const Entry* entry = nullptr;
  OPKIT_RETURN_IF_ERROR(FindEntryLocked(container, name, type, mangled_type,
                                        /*deleting=*/false, &entry));
  entry->resource->Ref();
  *resource = entry->resource;
  return OkStatus();
}

Status ResourceMgr::DoDelete(const std::string& container,
                             const std::string& name, std::type_index type,
                             const char* mangled_type) {
  ResourceBase* removed = nullptr;
  {
    mutex_lock l(mu_);
    const Entry* entry = nullptr;
    OPKIT_RETURN_IF_ERROR(FindEntryLocked(container, name, type, mangled_type,
                                          /*deleting=*/true, &entry));
    removed = EraseLocked(container, name);
  }
  // Outside the lock: a destructor may do anything, even use this manager.
  removed->Unref();
  return OkStatus();
}

ResourceBase* ResourceMgr::EraseLocked(const std::string& container,
                                       const std::string& name) {
  auto c = containers_.find(container);
  auto it = c->second.find(name);
  ResourceBase* removed = it->second.resource;
  c->second.erase(it);
  if (c->second.empty()) containers_.erase(c);
  return removed;
}

Status ResourceMgr::FindHandleEntryLocked(const ResourceHandle& handle,
                                          const char* type_name,
                                          const Entry** entry) const {
  *entry = nullptr;
  const std::string& container = handle.container();
  const std::string& name = handle.name();
  auto c = containers_.find(container);
  if (c == containers_.end()) {
    return errors::NotFound("Container ", container,
                            " does not exist. (Could not find resource: ",
                            container, "/", name, ")");
  }
  auto it = c->second.find(name);
  // TensorFlow keys resources by type too: one of another type is missing.
  if (it == c->second.end() ||
      it->second.type.hash_code() != handle.hash_code()) {
    return errors::NotFound("Resource ", container, "/", name, "/", type_name,
                            " does not exist.");
  }
  *entry = &it->second;
  return OkStatus();
}

Status ResourceMgr::Lookup(const ResourceHandle& handle,
                           ResourceBase** resource) const {
  *resource = nullptr;
  shared_lock l(mu_);
  const Entry* entry = nullptr;
  OPKIT_RETURN_IF_ERROR(FindHandleEntryLocked(handle, "ResourceBase", &entry));
  entry->resource->Ref();
  *resource = entry->resource;
  return OkStatus();
}

Status ResourceMgr::Delete(const ResourceHandle& handle) {
  ResourceBase* removed = nullptr;
  {
    mutex_lock l(mu_);
    const Entry* entry = nullptr;
    OPKIT_RETURN_IF_ERROR(FindHandleEntryLocked(handle, "<unknown>", &entry));
    removed = EraseLocked(handle.container(), handle.name());
  }
  removed->Unref();
  return OkStatus();
}

Status ResourceMgr::Cleanup(const std::string& container) {
  Container removed;
  {
    mutex_lock l(mu_);
    auto c = containers_.find(container);
    if (c == containers_.end()) return OkStatus();
    removed = std::move(c->second);
    containers_.erase(c);
  }
  for (auto& [name, entry] : removed) entry.resource->Unref();
  return OkStatus();
}

void ResourceMgr::Clear() {
  std::map<std::string, Container> removed;
  {
    mutex_lock l(mu_);
    removed.swap(containers_);
  }
  for (auto& [container, entries] : removed) {
    for (auto& [name, entry] : entries) entry.resource->Unref();
  }
}

std::string ResourceMgr::DebugString() const {
  std::vector<std::string> lines;
  {
    shared_lock l(mu_);
    for (const auto& [container, entries] : containers_) {
      for (const auto& [name, entry] : entries) {
        lines.push_back(StrCat(container, " | ", entry.type_name, " | ", name,
                               " | ", entry.resource->DebugString()));
      }
    }
  }
  // std::map iteration is already sorted by container, then name.
  return StrJoin(lines, "\n");
}

}  // namespace opkit

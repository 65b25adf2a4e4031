#include "store/cached_reads.h"

namespace carlos {

StatusOr<std::optional<Object>> CachedReads::Read(std::string_view key) {
  std::string version;
  {
    MutexLock lock(&mu_);
    if (auto it = kept_.find(key); it != kept_.end()) version = it->second.version;
  }
  StatusOr<Revalidated> r = store_->GetIfNoneMatch(key, version);
  if (r.ok() && r->not_modified) {
    MutexLock lock(&mu_);
    auto it = kept_.find(key);
    if (it != kept_.end() && it->second.version == version) {
      return std::optional<Object>(it->second);
    }
    // Another thread's read dropped or replaced it meanwhile: ask in full
    // below.
  }
  if (r.ok() && r->not_modified) r = store_->GetIfNoneMatch(key, "");
  if (!r.ok()) {
    if (r.status().code() != Code::kNotFound) return r.status();
    MutexLock lock(&mu_);
    kept_.erase(std::string(key));
    return std::optional<Object>();
  }
  MutexLock lock(&mu_);
  kept_.insert_or_assign(std::string(key), r->object);
  return std::optional<Object>(std::move(r->object));
}

}  // namespace carlos

// Reads of a few keys, read again and again (a box's own documents, every
// mode check), made cheap by conditional reads: each key's last object is
// kept with its version tag, and the next read asks the store for the key
// only if it changed (Store::GetIfNoneMatch; on S3 a 304 Not Modified costs
// no body). What it answers is exactly what Store::GetIfExists would: the
// object as it is now, nullopt when the key does not exist, or the store's
// error (never read as absent, and the kept object is not answered in its
// place: a store that cannot say is not a store that said "unchanged").
//
// Memory: one object per key read (documents are at most 64 KiB; a box
// reads five keys). Thread-safety: safe from many threads; reads of one key
// may overlap, the last answer kept wins.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "base/mutex.h"
#include "base/status.h"
#include "store/store.h"

namespace carlos {

class CachedReads {
 public:
  // `store` must outlive this object.
  explicit CachedReads(Store* store) : store_(store) {}

  // The object at `key` now, nullopt when absent, or the store's error (as
  // Store::GetIfExists).
  StatusOr<std::optional<Object>> Read(std::string_view key);

 private:
  Store* store_;
  Mutex mu_;
  std::map<std::string, Object, std::less<>> kept_ CARLOS_GUARDED_BY(mu_);
};

}  // namespace carlos

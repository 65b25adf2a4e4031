#include "enroll/informer.h"

#include <algorithm>
#include <unordered_set>

#include "identity/store_keys.h"

namespace carlos::enroll {

namespace {

template <typename T>
void NoteRead(const DocState<T>& d, std::vector<std::pair<std::string, std::string>>* read,
              bool* store_error) {
  if (!d.read) return;
  if (d.store_error()) *store_error = true;
  read->emplace_back(d.key, d.version);
}

}  // namespace

StatusOr<FleetListing> Informer::List(int workers) {
  CARLOS_ASSIGN_OR_RETURN(FleetListing listing, ListFleet(*store_, workers, /*versions=*/true));
  MutexLock lock(&mu_);
  listed_ = listing.versions;
  for (auto it = known_.begin(); it != known_.end();) {
    it = listed_.contains(it->first) ? std::next(it) : known_.erase(it);
  }
  std::unordered_set<std::string> recorded(listing.records.begin(), listing.records.end());
  for (auto it = boxes_.begin(); it != boxes_.end();) {
    it = recorded.contains(it->first) ? std::next(it) : boxes_.erase(it);
  }
  return listing;
}

StatusOr<std::vector<std::string>> Informer::Changed() {
  std::vector<std::string> changed;
  for (std::string_view prefix : {identity::kRecordsPrefix, identity::kStatusPrefix}) {
    CARLOS_ASSIGN_OR_RETURN(std::vector<ListedKey> now, ListAllVersions(*store_, prefix));
    std::unordered_set<std::string> seen;
    MutexLock lock(&mu_);
    for (ListedKey& l : now) {
      if (!identity::BoxOfKey(prefix, l.key)) continue;
      auto it = listed_.find(l.key);
      if (it == listed_.end() || it->second != l.version) changed.push_back(l.key);
      seen.insert(std::move(l.key));
    }
    for (const auto& [key, version] : listed_) {
      if (std::string_view(key).starts_with(prefix) && !seen.contains(key)) {
        changed.push_back(key);
      }
    }
  }
  return changed;
}

StatusOr<std::optional<Object>> Informer::Read(const std::string& key) {
  SystemTime now = clock_->Now();
  {
    MutexLock lock(&mu_);
    auto listed = listed_.find(key);
    auto known = known_.find(key);
    if (listed != listed_.end() && known != known_.end() &&
        known->second.version == listed->second) {
      const Known& k = known->second;
      return std::optional<Object>(Object{
          k.data, k.version,
          std::max(Milliseconds(0), std::chrono::duration_cast<Milliseconds>(now - k.written_at))});
    }
  }
  StatusOr<std::optional<Object>> obj = store_->GetIfExists(key);
  if (!obj.ok() || !obj->has_value()) return obj;
  const Object& o = **obj;
  MutexLock lock(&mu_);
  auto known = known_.find(key);
  if (known != known_.end() && known->second.version == o.version) {
    // The same version seen before (the listing lagged): its first
    // observation stands.
    (*obj)->age = std::max(
        Milliseconds(0), std::chrono::duration_cast<Milliseconds>(now - known->second.written_at));
    return obj;
  }
  known_[key] = Known{o.version, o.data, now - o.age.value_or(Milliseconds(0))};
  return obj;
}

protocol::ReadKey Informer::Reader() {
  return [this](const std::string& key) { return Read(key); };
}

void Informer::Wrote(const std::string& key, std::string data, std::string version) {
  SystemTime now = clock_->Now();
  MutexLock lock(&mu_);
  listed_[key] = version;
  known_[key] = Known{std::move(version), std::move(data), now};
}

void Informer::Forget(const std::string& key) {
  MutexLock lock(&mu_);
  listed_.erase(key);
  known_.erase(key);
}

std::string Informer::PresenceOf(const FleetListing& listing, const std::string& box) {
  std::string p;
  for (const auto* set : {&listing.retired, &listing.enrollments, &listing.invitations,
                          &listing.reports, &listing.edges}) {
    p.push_back(set->contains(box) ? '1' : '0');
  }
  return p;
}

std::optional<BoxDocs> Informer::ReuseBox(const FleetListing& listing, const std::string& box,
                                          ReadDepth depth, SystemTime now) {
  MutexLock lock(&mu_);
  auto it = boxes_.find(box);
  if (it == boxes_.end()) return std::nullopt;
  const BoxEntry& e = it->second;
  if (e.depth != depth || now >= e.recheck_at || e.presence != PresenceOf(listing, box)) {
    return std::nullopt;
  }
  for (const auto& [key, version] : e.read) {
    auto listed = listing.versions.find(key);
    if (listed == listing.versions.end() || listed->second != version) return std::nullopt;
  }
  BoxDocs docs = e.docs;
  docs.conflict.reset();
  docs.referenced_by = listing.edges.contains(box) ? identity::EdgesKey(box) : "";
  return docs;
}

void Informer::KeepBox(const FleetListing& listing, const BoxDocs& docs, ReadDepth depth) {
  BoxEntry e;
  bool store_error = false;
  NoteRead(docs.record, &e.read, &store_error);
  NoteRead(docs.retirement, &e.read, &store_error);
  NoteRead(docs.enrollment, &e.read, &store_error);
  NoteRead(docs.invitation, &e.read, &store_error);
  NoteRead(docs.report, &e.read, &store_error);
  MutexLock lock(&mu_);
  if (store_error) {
    boxes_.erase(docs.box);
    return;
  }
  e.docs = docs;
  e.depth = depth;
  e.presence = PresenceOf(listing, docs.box);
  e.recheck_at = SystemTime::max();
  // A valid invitation turns expired at its expiry: the box is read again
  // then, so that CheckInvitation says so.
  if (docs.invitation.valid()) e.recheck_at = docs.invitation.parsed->doc.expires_at;
  boxes_[docs.box] = std::move(e);
}

}  // namespace carlos::enroll

#include "scenario.h"

#include <thread>

#include "base/files.h"
#include "identity/edges_file.h"
#include "identity/identity_record.h"
#include "identity/invitation.h"
#include "identity/keys.h"
#include "identity/store_keys.h"

namespace carlos::e2e {

using std::chrono::duration_cast;
using std::chrono::milliseconds;

namespace {
constexpr milliseconds kSampleEvery{50};
}  // namespace

std::string Describe(const Views& v) {
  std::string out;
  for (const auto& [name, s] : v) {
    if (!out.empty()) out += " ";
    out += name + "=" + s.status + "/" + s.check_status;
  }
  return out.empty() ? "(no servers)" : out;
}

bool All(const Views& v, const std::set<std::string>& boxes, bool up) {
  for (const auto& b : boxes) {
    auto it = v.find(b);
    if (it == v.end()) return false;
    if (up ? !it->second.up() : !it->second.down()) return false;
  }
  return true;
}

Status LbWatch::Sample() {
  auto views = haproxy_.Servers();
  if (!views.ok()) return views.status().Annotate("reading HAProxy's stats socket");
  last_ = *views;
  auto now = std::chrono::steady_clock::now();
  for (const auto& [box, s] : last_) {
    if (!s.up()) continue;
    auto never = never_up_.find(box);
    if (never != never_up_.end()) {
      return Internal(box + " was seen UP by HAProxy, but " + never->second +
                      "; view: " + Describe(last_));
    }
    if (!first_up_.count(box)) {
      first_up_[box] = duration_cast<milliseconds>(now - start_);
      if (on_first_up_) {
        std::string failure = on_first_up_(box);
        if (!failure.empty()) return Internal(failure);
      }
    }
  }
  return OkStatus();
}

Status LbWatch::Until(const std::function<bool(const Views&)>& done, milliseconds bound,
                      const std::string& what) {
  auto deadline = std::chrono::steady_clock::now() + bound;
  for (;;) {
    CARLOS_RETURN_IF_ERROR(Sample());
    if (done(last_)) return OkStatus();
    if (std::chrono::steady_clock::now() >= deadline) {
      return DeadlineExceeded("waited " + std::to_string(bound.count()) + "ms for " + what +
                              "; HAProxy's last view: " + Describe(last_));
    }
    std::this_thread::sleep_for(kSampleEvery);
  }
}

Status LbWatch::During(const std::function<bool(const Views&)>& hold, milliseconds span,
                       const std::string& what) {
  auto end = std::chrono::steady_clock::now() + span;
  while (std::chrono::steady_clock::now() < end) {
    CARLOS_RETURN_IF_ERROR(Sample());
    if (!hold(last_)) return Internal("expected " + what + "; HAProxy's view: " + Describe(last_));
    std::this_thread::sleep_for(kSampleEvery);
  }
  return OkStatus();
}

Status MakeReferenced(Store& store, const std::string& data_dir, const std::string& box) {
  CARLOS_RETURN_IF_ERROR(MakeDirs(data_dir, 0700));
  CARLOS_ASSIGN_OR_RETURN(identity::PrivateKey key, identity::LoadOrCreateBoxKey(data_dir));
  identity::EdgesFile edges;
  edges.box = box;
  edges.updated_at = std::chrono::system_clock::now();
  // The agent counts its own published edges file as referenced; the
  // enroller counts a box any edges file names. This one is both.
  edges.edges = {box};
  CARLOS_ASSIGN_OR_RETURN(std::string bytes, identity::SignEdgesFile(edges, key));
  auto put = store.Put(identity::EdgesKey(box), bytes, PutOptions{});
  return put.ok() ? OkStatus() : put.status();
}

Status ForgeInvitation(Store& store, const std::string& box, const std::string& region) {
  CARLOS_ASSIGN_OR_RETURN(Object record, store.Get(identity::RecordKey(box)));
  CARLOS_ASSIGN_OR_RETURN(auto parsed, identity::ParseIdentityRecord(record.data));
  CARLOS_ASSIGN_OR_RETURN(identity::PrivateKey other, identity::PrivateKey::Generate());
  identity::Invitation inv = identity::NewInvitation(
      box, parsed.digest, region, std::chrono::system_clock::now(), false, std::nullopt);
  CARLOS_ASSIGN_OR_RETURN(std::string bytes, identity::SignInvitation(inv, other));
  PutOptions create_only;
  create_only.condition = PutCondition::kCreateOnly;
  auto put = store.Put(identity::InvitationKey(box), bytes, create_only);
  return put.ok() ? OkStatus() : put.status();
}

}  // namespace carlos::e2e

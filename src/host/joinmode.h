// Mode selection on the box (DESIGN.md, "Mode selection (joinmode)"; the
// seed's selectMode): reads this box's own documents and its local guard and
// hands them to the one stage function, protocol/stage.h SelectStage, which
// decides whether it may host, and if not, which joining stage it is at and
// why.
//
// It reads only this box's own keys — control/retired/, control/boxes/,
// control/enrollments/, control/invitations/ and control/edges/<box>.json —
// so its cost is constant per box whatever the fleet's size, and the
// guard's files; the enrollment and invitation only once the record is
// this box's, the guard only when invited or enrolled, the edges file only
// when neither. Every document is checked with protocol/documents.h's
// bindings: a document that is refused never leads to hosting;
// docs/agent.md, "Mode selection", lists what each refusal does.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "base/clock.h"
#include "base/status.h"
#include "identity/keys.h"
#include "protocol/local_guard.h"
#include "protocol/mode.h"
#include "store/store.h"

namespace carlos::host {

// What SelectMode reads, injected (the seed's modeFacts). Every function
// must be safe to call from the selecting thread while other threads run.
// Every field is required (SelectMode checks).
struct ModeFacts {
  // The box's label (protocol/label.h BoxLabel).
  std::string box;
  // The current time (an invitation's expiry is checked against it).
  std::function<SystemTime()> now;
  // Reads `key` from the deployment store (Store::GetIfExists): the object,
  // nullopt when the key does not exist, any error when the store could not
  // say.
  std::function<StatusOr<std::optional<Object>>(const std::string& key)> read;
  // Reads the local guard (protocol::ReadLocalGuard on the data dir, owner
  // root).
  std::function<StatusOr<protocol::LocalGuard>()> guard;
  // The deployment's enrollment public key (CARLOS_ENROLLMENT_PUBKEY): it
  // signs invitations, enrollments and retirements.
  identity::PublicKey enrollment_key;
  // This box's own public key (its box key under the data dir): its record
  // must hold it, and its edges file is signed with it.
  identity::PublicKey box_key;
};

// Reads what protocol::SelectStage needs and returns its decision. Errors
// as SelectStage's ("mode unknown: <key>: <cause>"; the caller logs it and
// checks again).
StatusOr<protocol::ModeDecision> SelectMode(const ModeFacts& facts);

}  // namespace carlos::host

// Mode selection (DESIGN.md, "Mode selection (joinmode)"; the seed's
// selectMode): from this box's own documents in the deployment store and
// its local guard, whether it may host, and if not, which joining stage it
// is at and why.
//
// It reads only this box's own keys — control/retired/, control/boxes/,
// control/enrollments/, control/invitations/ and control/edges/<box>.json —
// so its cost is constant per box whatever the fleet's size, and the
// guard's files. Every document is verified (identity library): a document
// that is refused never leads to hosting; docs/agent.md, "Mode selection",
// lists what each refusal does.
#pragma once

#include <functional>
#include <string>

#include "base/clock.h"
#include "base/status.h"
#include "guard/state.h"
#include "host/mode.h"
#include "identity/keys.h"

namespace carlos {

// What SelectMode reads, injected (the seed's modeFacts). Every function
// must be safe to call from the selecting thread while other threads run.
struct ModeFacts {
  // The box's label (CARLOS_BOX_LABEL, the host name, or the group label).
  std::string box;
  // The current time (an invitation's expiry is checked against it).
  std::function<SystemTime()> now;
  // Reads `key` from the deployment store: the stored bytes; kNotFound when
  // the key does not exist; any other error when the store could not say.
  std::function<StatusOr<std::string>(const std::string& key)> read;
  // Reads the local guard (guard::ReadGuardState on the data dir).
  std::function<StatusOr<guard::GuardState>()> guard;
  // The deployment's enrollment public key (CARLOS_ENROLLMENT_PUBKEY): it
  // signs invitations, enrollments and retirements.
  identity::PublicKey enrollment_key;
  // This box's own public key (its box key under the data dir): its record
  // must hold it, and its edges file is signed with it.
  identity::PublicKey box_key;
};

// Selects the mode, first match wins (DESIGN.md's table):
//   retired -> unrecorded -> conflict -> hosting -> guard-ready ->
//   guard-installed -> invited -> referenced -> recorded.
// The decision's `why` says, in parentheses, what the stage rests on and,
// after "; ", any document that was refused on the way: "(waiting to be
// invited; invitation refused: bad signature: ...)". Errors (the mode is unknown; the caller logs
// it and checks again): a store read other than kNotFound failed ("mode unknown: <key>: <cause>");
// the guard could not be read; a retirement is present but refused (a box
// must not guess whether it is retired); a signature check could not run.
StatusOr<ModeDecision> SelectMode(const ModeFacts& facts);

}  // namespace carlos

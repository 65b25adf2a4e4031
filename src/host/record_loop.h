// boxRecordLoop (DESIGN.md, "Identity"): the box publishes its signed
// identity record, control/boxes/<box>.json, create-only, and retries until
// it is in place. A record already there with this box's key is its own
// (written by an earlier run); one with another key is a conflict, which is
// logged once and never overwritten: an operator must act.
#pragma once

#include <functional>
#include <string>

#include "base/clock.h"
#include "base/log.h"
#include "base/status.h"
#include "identity/identity_record.h"
#include "identity/keys.h"
#include "store/store.h"

namespace carlos::host {

// How one attempt ended.
enum class RecordResult {
  kWritten,   // This attempt wrote the record.
  kInPlace,   // A record with this box's key was already there.
  kConflict,  // A record with another key (or unreadable) is there.
  kFailed,    // The attempt failed (store, IMDS, signing): retry.
};

// The record loop's steps; production's come from the agent command.
struct RecordLoop {
  // The deployment store. Never null; outlives the loop.
  Store* store = nullptr;
  // The box key: signs the record, and is the key a record in place must
  // hold. Never null; outlives the loop.
  const identity::PrivateKey* box_key = nullptr;
  // Builds the record to write (label, region, machine id, instance id and
  // its attestation from IMDS or unattested, group reference, release,
  // platform, public key, now). Called only when no record is in place; an
  // error (IMDS answering with an error, an unreadable machine id) is
  // logged and retried.
  std::function<StatusOr<identity::IdentityRecord>()> build;
  // The wait after the n-th failed attempt (n from 1): 1 s doubling, at
  // most 30 s, as groupReferenceBackoff. While a conflict stands the loop
  // keeps checking at backoff's largest wait, so that a record an operator
  // removes is written again.
  std::function<Milliseconds(int n)> backoff;
  Clock* clock = nullptr;
  Logf logf;
  // Failure lines at warning priority (base/log_layout.h); unset: logf.
  Logf warnf;
  // Lines that need an operator (a conflict) at error priority; unset: warnf.
  Logf errf;
  // Told each attempt's result (the agent's metrics); may be empty.
  std::function<void(RecordResult)> attempted;
};

// One attempt: reads the record key; absent -> builds, signs and writes it
// create-only (a lost race is resolved by reading again next attempt);
// present -> compares its public key with the box key. `*why` gets the
// error or the conflict's description for kConflict/kFailed.
RecordResult TryRecordOnce(const RecordLoop& loop, const std::string& box, std::string* why);

// Runs attempts until the record is written or in place, or `stop` is
// requested. Logs, each failure or conflict once per distinct cause:
//   "agent: the identity record <key> is written"
//   "agent: the identity record <key> is in place"
//   "agent: the identity record <key> could not be written: <err>; trying
//    again in <wait>"
//   "agent: the identity record <key> is not this box's: <why>; it is never
//    overwritten: an operator must retire it or remove it"
// Blocks the calling thread (the joining run starts it on its own).
void RunRecordLoop(const RecordLoop& loop, const std::string& box, const Stop& stop);

}  // namespace carlos::host

// One box's documents as any reader sees them (DESIGN.md, "The deployment
// store"): each read, parsed and checked with the one set of bindings every
// reader uses — the agent's mode selection, root's join and guard-exec, and
// the enroller — and the retirement rule they all apply.
//
// The bindings (identity/*.h verify each document's signature and fields):
//   identity record  VerifyIdentityRecord under the box's label;
//   retirement       signed by the enrollment key, for the box, bound to the
//                    record's digest when a record is parsed (else to the
//                    label alone);
//   enrollment       signed by the enrollment key, for the box and record
//                    (root and guard-exec bind the guard's digests as well);
//   invitation       signed by the enrollment key, for the box and record,
//                    not expired at the reader's time;
//   status report    signed by the record's key, for the box.
//
// Thread-safety: plain functions over values; safe from any thread when the
// injected reader is.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"
#include "identity/document.h"
#include "identity/enrollment.h"
#include "identity/identity_record.h"
#include "identity/invitation.h"
#include "identity/keys.h"
#include "identity/retirement.h"
#include "identity/status_report.h"
#include "store/store.h"

namespace carlos::protocol {

// One document of a box.
template <typename T>
struct DocState {
  // The document's key in the store ("control/boxes/web-1.json").
  std::string key;
  // The key exists (it was read, or listed).
  bool present = false;
  // A read was made (a reader may skip a listed document it does not need).
  bool read = false;
  // The parsed document, when it was read and parsed (even when a check then
  // refused it).
  std::optional<identity::Parsed<T>> parsed;
  // The store's version tag of what was read (for compare-and-swap).
  std::string version;
  // How long before the read the document was written, as the reader
  // could tell without the writer's clock (Object::age, store.h), when it
  // could.
  std::optional<Milliseconds> age = std::nullopt;
  // OK when read, parsed and checked; otherwise the store's error
  // (kUnavailable, ...) or the refusal (kCorrupt with an identity::Refusal
  // payload).
  Status status;

  bool valid() const { return read && parsed.has_value() && status.ok(); }
  // True when reading failed in the store (not a refusal of the document).
  bool store_error() const { return read && !status.ok() && status.code() != Code::kCorrupt; }
};

// Reads a key: the object, nullopt when absent, or the store's error
// (Store::GetIfExists).
using ReadKey = std::function<StatusOr<std::optional<Object>>(const std::string& key)>;

// Reads `key` with `read` and parses it with `parse`: absent is a DocState
// with present false; a store error is present and read with that error; a
// parse refusal is present and read with the refusal. Statuses are as the
// store and the parser gave them (`key` is in the DocState).
template <typename T, typename ParseFn>
DocState<T> ReadDoc(const ReadKey& read, const std::string& key, ParseFn parse) {
  DocState<T> d;
  d.key = key;
  StatusOr<std::optional<Object>> obj = read(key);
  if (obj.ok() && !obj->has_value()) return d;
  d.present = true;
  d.read = true;
  if (!obj.ok()) {
    d.status = obj.status();
    return d;
  }
  d.version = (*obj)->version;
  d.age = (*obj)->age;
  StatusOr<identity::Parsed<T>> parsed = parse((*obj)->data);
  if (!parsed.ok()) {
    d.status = parsed.status();
    return d;
  }
  d.parsed = std::move(parsed).value();
  return d;
}

// Each Check* sets `d->status` to the document's check with the bindings
// above, when `d` was parsed; otherwise leaves it as it is.
void CheckRecord(DocState<identity::IdentityRecord>* d, std::string_view box);
// `record_digest`: the parsed record's digest, or nullopt when no record
// parses (the retirement is then checked against the label alone).
void CheckRetirement(DocState<identity::Retirement>* d, const identity::PublicKey& enrollment_key,
                     std::string_view box, std::optional<std::string_view> record_digest);
void CheckEnrollment(DocState<identity::Enrollment>* d, const identity::PublicKey& enrollment_key,
                     const identity::EnrollmentBinding& binding);
void CheckInvitation(DocState<identity::Invitation>* d, const identity::PublicKey& enrollment_key,
                     std::string_view box, std::string_view record_digest, SystemTime now);
void CheckReport(DocState<identity::StatusReport>* d, const identity::PublicKey& record_key,
                 std::string_view box);

// The retirement rule (docs/protocol.md, "Retirement"): what a box's
// retirement document means for it.
enum class RetirementEffect {
  kNone,             // No retirement.
  kRetired,          // A valid retirement of this record (or label): the box
                     // hosts nothing again under this identity.
  kOfAnotherRecord,  // A valid retirement of an earlier identity record under
                     // this label: it does not concern this record, and is
                     // ignored (with a note).
  kUnknown,          // Present but unreadable or refused otherwise: whether
                     // the box is retired cannot be known; never guessed.
};

// The effect of `retirement` (checked with CheckRetirement). A retirement
// bound to another digest counts as of another record only when it was
// checked against a parsed record (`record_parsed`); against the label alone
// it is kUnknown.
RetirementEffect RetirementEffectOf(const DocState<identity::Retirement>& retirement,
                                    bool record_parsed);

}  // namespace carlos::protocol

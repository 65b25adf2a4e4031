#include "host/record_loop.h"

#include "base/check.h"
#include "base/failure_log.h"
#include "identity/store_keys.h"

namespace carlos::host {

RecordResult TryRecordOnce(const RecordLoop& loop, const std::string& box, std::string* why) {
  const std::string key = identity::RecordKey(box);
  StatusOr<Object> existing = loop.store->Get(key);
  if (existing.ok()) {
    auto parsed = identity::ParseIdentityRecord(existing->data);
    if (!parsed.ok()) {
      *why = parsed.status().message();
      return RecordResult::kConflict;
    }
    if (Status st = identity::VerifyIdentityRecord(*parsed, box); !st.ok()) {
      *why = st.message();
      return RecordResult::kConflict;
    }
    if (!(parsed->doc.public_key == loop.box_key->public_key())) {
      *why = "it holds another key (" + parsed->doc.public_key.ToString() + ") than this box's (" +
             loop.box_key->public_key().ToString() + ")";
      return RecordResult::kConflict;
    }
    return RecordResult::kInPlace;
  }
  if (existing.status().code() != Code::kNotFound) {
    *why = existing.status().ToString();
    return RecordResult::kFailed;
  }
  StatusOr<identity::IdentityRecord> record = loop.build();
  if (!record.ok()) {
    *why = record.status().ToString();
    return RecordResult::kFailed;
  }
  StatusOr<std::string> bytes = identity::SignIdentityRecord(*record, *loop.box_key);
  if (!bytes.ok()) {
    *why = bytes.status().ToString();
    return RecordResult::kFailed;
  }
  PutOptions create_only;
  create_only.condition = PutCondition::kCreateOnly;
  StatusOr<std::string> put = loop.store->Put(key, *bytes, create_only);
  if (put.ok()) return RecordResult::kWritten;
  // Lost a race (another writer, or an earlier attempt whose answer was
  // lost): the next attempt reads what is there and decides.
  *why = put.status().ToString();
  return RecordResult::kFailed;
}

void RunRecordLoop(const RecordLoop& loop, const std::string& box, const Stop& stop) {
  CARLOS_CHECK(loop.store && loop.box_key && loop.build && loop.backoff && loop.clock && loop.logf,
               "RunRecordLoop requires every RecordLoop field set (host/record_loop.h)");
  const std::string key = identity::RecordKey(box);
  // Each distinct failure or conflict is logged once, whatever the wait;
  // its end once.
  FailureLog failure_log(loop.logf, loop.clock, loop.warnf);
  const Logf& errf = loop.errf ? loop.errf : loop.warnf;
  for (int failures = 0;;) {
    std::string why;
    Milliseconds wait{0};
    const RecordResult result = TryRecordOnce(loop, box, &why);
    if (loop.attempted) loop.attempted(result);
    switch (result) {
      case RecordResult::kWritten:
        failure_log.Succeeded("agent: the identity record " + key + " can be written");
        loop.logf("agent: the identity record " + key + " is written");
        return;
      case RecordResult::kInPlace:
        failure_log.Succeeded("agent: the identity record " + key + " can be read");
        loop.logf("agent: the identity record " + key + " is in place");
        return;
      case RecordResult::kConflict:
        // An operator must act; check now and then whether one has.
        wait = loop.backoff(1000);
        failure_log.Failed("conflict: " + why,
                           "agent: the identity record " + key + " is not this box's: " + why +
                               "; it is never overwritten: an operator must retire it or remove "
                               "it (carlos boxes rm " +
                               box + ")",
                           errf);
        break;
      case RecordResult::kFailed:
        wait = loop.backoff(++failures);
        failure_log.Failed(why, "agent: the identity record " + key + " could not be written: " +
                                    why + "; trying again in " + FormatDuration(wait));
        break;
    }
    if (!loop.clock->Sleep(wait, stop)) return;
  }
}

}  // namespace carlos::host

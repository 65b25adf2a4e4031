#include "guard/state.h"

#include "base/files.h"
#include "identity/document.h"
#include "identity/store_keys.h"

namespace carlos::guard {

namespace {

// Reads `path`: the bytes; nullopt when absent; `*refused` set when it is
// larger than a document may be; an error when it cannot be read.
StatusOr<std::optional<std::string>> ReadOptional(const std::string& path, std::string* refused) {
  StatusOr<std::string> bytes = ReadFileLimited(path, identity::kMaxDocumentBytes);
  if (bytes.ok()) return std::optional<std::string>(std::move(bytes).value());
  if (bytes.status().code() == Code::kNotFound) return std::optional<std::string>();
  if (bytes.status().code() == Code::kCorrupt) {
    *refused = path + " is refused: oversized: larger than 64 KiB";
    return std::optional<std::string>();
  }
  return bytes.status();
}

}  // namespace

bool GuardState::armed_now() const {
  return guard && armed && identity::CheckArmedFor(armed->doc, guard->digest).ok();
}

std::string GuardState::why_not_armed() const {
  if (!guard || armed_now()) return "";
  if (!armed_refused.empty()) return armed_refused;
  if (!armed) return "armed.json is absent";
  return "armed.json names another guard (" + armed->doc.guard_digest + ")";
}

identity::GuardFacts GuardState::Facts() const {
  identity::GuardFacts f;
  f.installed = installed();
  f.armed = armed_now();
  if (guard) {
    f.guard_digest = guard->digest;
    f.record_digest = guard->doc.record_digest;
    f.invitation_digest = guard->doc.invitation_digest;
    if (!f.armed) f.why_not_armed = why_not_armed();
  } else {
    f.why_not_armed = guard_refused.empty() ? "guard.json is absent" : guard_refused;
  }
  if (f.why_not_armed && f.why_not_armed->size() > 1024) f.why_not_armed->resize(1024);
  return f;
}

StatusOr<GuardState> ReadGuardState(const std::string& data_dir) {
  GuardState s;
  const std::string guard_path = identity::GuardFilePath(data_dir);
  CARLOS_ASSIGN_OR_RETURN(std::optional<std::string> guard,
                          ReadOptional(guard_path, &s.guard_refused));
  if (guard) {
    auto parsed = identity::ParseGuardFile(*guard);
    if (parsed.ok()) {
      s.guard = std::move(parsed).value();
    } else {
      s.guard_refused = parsed.status().message();
    }
  }
  const std::string armed_path = identity::ArmedFilePath(data_dir);
  CARLOS_ASSIGN_OR_RETURN(std::optional<std::string> armed,
                          ReadOptional(armed_path, &s.armed_refused));
  if (armed) {
    auto parsed = identity::ParseArmedFile(*armed);
    if (parsed.ok()) {
      s.armed = std::move(parsed).value();
    } else {
      s.armed_refused = parsed.status().message();
    }
  }
  return s;
}

}  // namespace carlos::guard

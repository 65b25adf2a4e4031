// Internal to src/identity: reading a document's members with their types,
// and checking field limits, the same way on the writing side (Sign*/Encode*:
// kInvalidArgument) and the reading side (Parse*: a kMalformed refusal), so
// that a writer can never store what a reader refuses.
//
// Thread-safety: one object per call; not shared.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "identity/document.h"

namespace carlos::identity::internal {

// Collects the first problem found; later checks are skipped once one is.
class Problems {
 public:
  bool ok() const { return !first_.has_value(); }
  const std::string& first() const { return *first_; }
  void Add(std::string problem) {
    if (!first_) first_ = std::move(problem);
  }
  // `value` is a label ([a-z0-9-]{1,63}).
  void Label(std::string_view field, std::string_view value);
  // `value` has `min`..`max` bytes and no control characters (< 0x20, 0x7f).
  void Text(std::string_view field, std::string_view value, size_t min, size_t max);
  // `value` is "sha256:<64 hex>".
  void Digest(std::string_view field, std::string_view value);
  // `t` is from 1970 to 2200 (ParseProtocolTime's range).
  void Time(std::string_view field, SystemTime t);

 private:
  std::optional<std::string> first_;
};

// Reads typed members from a JSON object; the first missing or ill-typed
// member is recorded in `problems` and its reads give empty values.
class Fields {
 public:
  Fields(const nlohmann::json& object, Problems* problems) : obj_(object), problems_(problems) {}

  std::string String(std::string_view name);
  std::optional<std::string> OptString(std::string_view name);
  bool Bool(std::string_view name);
  std::optional<bool> OptBool(std::string_view name);
  SystemTime Time(std::string_view name);
  std::vector<std::string> StringList(std::string_view name);
  // The member `name` that must be an object; nullptr (and a problem) when it
  // is missing or not an object.
  const nlohmann::json* Object(std::string_view name);
  // nullptr without a problem when absent.
  const nlohmann::json* OptObject(std::string_view name);

 private:
  const nlohmann::json* Find(std::string_view name);
  const nlohmann::json& obj_;
  Problems* problems_;
};

// A Parsed<T> from a typed document and its signed object.
template <typename T>
Parsed<T> FromSigned(T doc, SignedObject&& so) {
  Parsed<T> out{std::move(doc), std::move(so.digest),         std::move(so.bytes),
                so.signer,      std::move(so.signed_payload), std::move(so.signature)};
  return out;
}

// Parses a protocol time: RFC 3339 UTC (base/clock.h ParseRfc3339) with a
// year from 1970 to 2200, so that every time and every difference of two
// times fits SystemTime's 64-bit nanoseconds (a year like 9999 would
// overflow it). False on anything else.
bool ParseProtocolTime(std::string_view text, SystemTime* out);

// A time as documents write it (base/clock.h FormatRfc3339Nano).
std::string TimeText(SystemTime t);

}  // namespace carlos::identity::internal

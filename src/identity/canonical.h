// RFC 8785 JSON Canonicalization Scheme (JCS), restricted to the protocol's
// value types, over nlohmann::json.
//
// The protocol's documents hold only objects, arrays, strings, booleans and
// integers (docs/protocol.md, "Canonical encoding"); floats are refused, so
// that ES6 number formatting (RFC 8785 §3.2.2.3) reduces to plain decimal
// integers, and integers are limited to the range ES6 numbers hold exactly,
// ±(2^53 - 1). Object members are sorted by the UTF-16 code units of their
// names (RFC 8785 §3.2.3); strings are written as RFC 8785 §3.2.2.2 says
// (only '"', '\\' and control characters escaped, \b \t \n \f \r by name,
// others as \u00xx lower-case; everything else as UTF-8).
//
// Thread-safety: plain functions over values; safe from any thread.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/status.h"

namespace carlos::identity {

// The deepest nesting of arrays and objects a canonical document may have.
// The protocol's documents nest at most 3 deep; the limit keeps recursion
// bounded on hostile input.
inline constexpr int kMaxJsonDepth = 32;

// The largest magnitude of an integer in a canonical document: 2^53 - 1,
// the largest integer an ES6 number (RFC 8785's number model) holds exactly.
inline constexpr int64_t kMaxJsonInteger = (int64_t{1} << 53) - 1;

// The RFC 8785 canonical bytes of `value`. Errors: kInvalidArgument when
// `value` holds a float, an integer beyond ±kMaxJsonInteger, a string that
// is not valid UTF-8, or nests deeper than kMaxJsonDepth. (A discarded value
// is refused the same way.)
StatusOr<std::string> Canonicalize(const nlohmann::json& value);

// Parses `bytes` as JSON and accepts it only when `bytes` are exactly the
// canonical encoding of what they parse to, so that one document has one
// stored form: white space, duplicate member names, another member order,
// another escape or number spelling are all refused. `what` names the input
// in messages. Errors (kCorrupt, via Refuse): kMalformed when the bytes are
// not JSON (the message gives the byte offset) or hold a value Canonicalize
// refuses; kNotCanonical when they are JSON but not canonical.
StatusOr<nlohmann::json> ParseCanonical(std::string_view bytes, std::string_view what);

}  // namespace carlos::identity

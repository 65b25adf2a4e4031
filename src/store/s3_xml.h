// The little XML the S3 backend reads: ListObjectsV2 results and error
// bodies (Amazon S3 API Reference, "ListObjectsV2" and "Error responses").
// A strict, bounded parser rather than a general one: S3 answers are small,
// flat documents, and anything that is not well-formed is kCorrupt.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace carlos {

// One element: its local name (any "ns:" prefix dropped), its decoded
// character data (entities and CDATA resolved, concatenated) and its child
// elements in document order. Attributes are skipped.
struct XmlElement {
  std::string name;
  std::string text;
  std::vector<XmlElement> children;

  // The first child named `name`, or nullptr.
  const XmlElement* Child(std::string_view name) const;
};

// Parses one XML document (optional declaration, comments, one root
// element). Errors: kCorrupt naming the first problem and its byte offset
// (unbalanced or unterminated tags, bad entities, text after the root,
// nesting deeper than 32).
StatusOr<XmlElement> ParseXml(std::string_view doc);

// An S3 error body's Code and Message.
struct S3ErrorBody {
  std::string code;
  std::string message;
};

// The Code and Message of an S3 <Error> document; nullopt when `body` is
// empty, not XML, or not an <Error> (S3 sends no body for HEAD, and proxies
// send HTML).
std::optional<S3ErrorBody> ParseS3Error(std::string_view body);

// One ListObjectsV2 page as the server answered it.
struct ListObjectsV2Page {
  std::vector<std::string> keys;
  // Each key's <ETag> as sent (quoted), "" where a <Contents> has none.
  std::vector<std::string> etags;
  bool truncated = false;
  std::string next_continuation_token;
};

// Parses a ListObjectsV2 answer. Errors: kCorrupt when the body is not XML,
// not a <ListBucketResult>, or says IsTruncated=true without a
// NextContinuationToken.
StatusOr<ListObjectsV2Page> ParseListObjectsV2(std::string_view body);

}  // namespace carlos

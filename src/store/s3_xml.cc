#include "store/s3_xml.h"

#include <fmt/format.h>

namespace carlos {

namespace {

constexpr int kMaxDepth = 32;

class Parser {
 public:
  explicit Parser(std::string_view doc) : s_(doc) {}

  StatusOr<XmlElement> Document() {
    if (s_.starts_with("\xEF\xBB\xBF")) pos_ = 3;
    CARLOS_RETURN_IF_ERROR(Misc());
    if (Peek("<?xml")) {
      size_t end = s_.find("?>", pos_);
      if (end == std::string_view::npos) return Fail("unterminated XML declaration");
      pos_ = end + 2;
    }
    CARLOS_RETURN_IF_ERROR(Misc());
    if (!Peek("<")) return Fail("no root element");
    XmlElement root;
    CARLOS_RETURN_IF_ERROR(Element(&root, 0));
    CARLOS_RETURN_IF_ERROR(Misc());
    if (pos_ != s_.size()) return Fail("text after the root element");
    return root;
  }

 private:
  bool Peek(std::string_view t) const { return s_.substr(pos_).starts_with(t); }

  Status Fail(std::string_view what) const {
    return Corrupt(fmt::format("malformed XML at byte {}: {}", pos_, what));
  }

  void Space() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\r' || s_[pos_] == '\n')) {
      ++pos_;
    }
  }

  // White space, comments and processing instructions between markup.
  Status Misc() {
    for (;;) {
      Space();
      if (Peek("<!--")) {
        size_t end = s_.find("-->", pos_ + 4);
        if (end == std::string_view::npos) return Fail("unterminated comment");
        pos_ = end + 3;
      } else if (Peek("<?") && !Peek("<?xml")) {
        size_t end = s_.find("?>", pos_);
        if (end == std::string_view::npos) return Fail("unterminated processing instruction");
        pos_ = end + 2;
      } else {
        return OkStatus();
      }
    }
  }

  static bool NameChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.' || c == ':';
  }

  StatusOr<std::string> Name() {
    size_t start = pos_;
    while (pos_ < s_.size() && NameChar(s_[pos_])) ++pos_;
    if (pos_ == start) return Fail("expected a name");
    return std::string(s_.substr(start, pos_ - start));
  }

  static std::string Local(const std::string& name) {
    size_t colon = name.rfind(':');
    return colon == std::string::npos ? name : name.substr(colon + 1);
  }

  // Decodes character data up to the next '<', resolving entities.
  Status Text(std::string* out) {
    while (pos_ < s_.size() && s_[pos_] != '<') {
      char c = s_[pos_];
      if (c != '&') {
        out->push_back(c);
        ++pos_;
        continue;
      }
      size_t semi = s_.find(';', pos_);
      if (semi == std::string_view::npos || semi - pos_ > 12) return Fail("unterminated entity");
      std::string_view ent = s_.substr(pos_ + 1, semi - pos_ - 1);
      if (ent == "amp") {
        out->push_back('&');
      } else if (ent == "lt") {
        out->push_back('<');
      } else if (ent == "gt") {
        out->push_back('>');
      } else if (ent == "quot") {
        out->push_back('"');
      } else if (ent == "apos") {
        out->push_back('\'');
      } else if (ent.starts_with("#")) {
        unsigned long cp = 0;
        bool hex = ent.size() > 1 && (ent[1] == 'x' || ent[1] == 'X');
        std::string_view digits = ent.substr(hex ? 2 : 1);
        if (digits.empty()) return Fail("empty character reference");
        for (char d : digits) {
          int v = -1;
          if (d >= '0' && d <= '9') v = d - '0';
          if (hex && d >= 'a' && d <= 'f') v = d - 'a' + 10;
          if (hex && d >= 'A' && d <= 'F') v = d - 'A' + 10;
          if (v < 0) return Fail("bad character reference");
          cp = cp * (hex ? 16 : 10) + static_cast<unsigned long>(v);
          if (cp > 0x10FFFF) return Fail("character reference out of range");
        }
        AppendUtf8(cp, out);
      } else {
        return Fail(fmt::format("unknown entity &{};", ent));
      }
      pos_ = semi + 1;
    }
    return OkStatus();
  }

  static void AppendUtf8(unsigned long cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  // Skips attributes up to '>' or "/>"; returns whether the tag is empty.
  StatusOr<bool> Attributes() {
    for (;;) {
      Space();
      if (Peek("/>")) {
        pos_ += 2;
        return true;
      }
      if (Peek(">")) {
        ++pos_;
        return false;
      }
      CARLOS_ASSIGN_OR_RETURN(std::string attr, Name());
      (void)attr;
      Space();
      if (!Peek("=")) return Fail("expected '=' after an attribute name");
      ++pos_;
      Space();
      if (pos_ >= s_.size() || (s_[pos_] != '"' && s_[pos_] != '\'')) {
        return Fail("expected a quoted attribute value");
      }
      size_t end = s_.find(s_[pos_], pos_ + 1);
      if (end == std::string_view::npos) return Fail("unterminated attribute value");
      pos_ = end + 1;
    }
  }

  Status Element(XmlElement* el, int depth) {
    if (depth >= kMaxDepth) return Fail("elements nested too deep");
    ++pos_;  // '<'
    CARLOS_ASSIGN_OR_RETURN(std::string name, Name());
    el->name = Local(name);
    CARLOS_ASSIGN_OR_RETURN(bool empty, Attributes());
    if (empty) return OkStatus();
    for (;;) {
      CARLOS_RETURN_IF_ERROR(Text(&el->text));
      if (pos_ >= s_.size()) return Fail(fmt::format("unterminated element <{}>", name));
      if (Peek("</")) {
        pos_ += 2;
        CARLOS_ASSIGN_OR_RETURN(std::string close, Name());
        if (close != name) return Fail(fmt::format("</{}> closes <{}>", close, name));
        Space();
        if (!Peek(">")) return Fail("expected '>'");
        ++pos_;
        return OkStatus();
      }
      if (Peek("<![CDATA[")) {
        size_t end = s_.find("]]>", pos_);
        if (end == std::string_view::npos) return Fail("unterminated CDATA");
        el->text.append(s_.substr(pos_ + 9, end - pos_ - 9));
        pos_ = end + 3;
        continue;
      }
      if (Peek("<!--") || Peek("<?")) {
        CARLOS_RETURN_IF_ERROR(Misc());
        continue;
      }
      if (Peek("<!")) return Fail("unexpected declaration");
      el->children.emplace_back();
      CARLOS_RETURN_IF_ERROR(Element(&el->children.back(), depth + 1));
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

const XmlElement* XmlElement::Child(std::string_view n) const {
  for (const auto& c : children) {
    if (c.name == n) return &c;
  }
  return nullptr;
}

StatusOr<XmlElement> ParseXml(std::string_view doc) { return Parser(doc).Document(); }

std::optional<S3ErrorBody> ParseS3Error(std::string_view body) {
  if (body.empty()) return std::nullopt;
  auto doc = ParseXml(body);
  if (!doc.ok() || doc->name != "Error") return std::nullopt;
  S3ErrorBody e;
  if (const XmlElement* c = doc->Child("Code")) e.code = c->text;
  if (const XmlElement* m = doc->Child("Message")) e.message = m->text;
  return e;
}

StatusOr<ListObjectsV2Page> ParseListObjectsV2(std::string_view body) {
  auto doc = ParseXml(body);
  if (!doc.ok()) return doc.status().Annotate("ListObjectsV2 answer");
  if (doc->name != "ListBucketResult") {
    return Corrupt(
        fmt::format("ListObjectsV2 answer is a <{}>, not a <ListBucketResult>", doc->name));
  }
  ListObjectsV2Page page;
  for (const auto& c : doc->children) {
    if (c.name != "Contents") continue;
    const XmlElement* key = c.Child("Key");
    if (key == nullptr) return Corrupt("ListObjectsV2 answer has a <Contents> without a <Key>");
    page.keys.push_back(key->text);
    const XmlElement* etag = c.Child("ETag");
    page.etags.push_back(etag == nullptr ? "" : etag->text);
  }
  if (const XmlElement* t = doc->Child("IsTruncated")) {
    if (t->text == "true") {
      page.truncated = true;
    } else if (t->text != "false") {
      return Corrupt(fmt::format("ListObjectsV2 answer has IsTruncated {:?}", t->text));
    }
  }
  if (const XmlElement* n = doc->Child("NextContinuationToken")) {
    page.next_continuation_token = n->text;
  }
  if (page.truncated && page.next_continuation_token.empty()) {
    return Corrupt("ListObjectsV2 answer is truncated but has no NextContinuationToken");
  }
  return page;
}

}  // namespace carlos

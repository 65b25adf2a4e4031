#include "identity/fields.h"

#include <fmt/format.h>

#include "base/strings.h"
#include "identity/encoding.h"

namespace carlos::identity::internal {

void Problems::Label(std::string_view field, std::string_view value) {
  if (!IsLabel(value)) Add(fmt::format("\"{}\" is not a label ([a-z0-9-]{{1,63}})", field));
}

void Problems::Text(std::string_view field, std::string_view value, size_t min, size_t max) {
  if (value.size() < min || value.size() > max) {
    Add(fmt::format("\"{}\" has {} bytes, not {} to {}", field, value.size(), min, max));
    return;
  }
  for (char c : value) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      Add(fmt::format("\"{}\" holds a control character", field));
      return;
    }
  }
}

void Problems::Digest(std::string_view field, std::string_view value) {
  if (!IsDigest(value)) Add(fmt::format("\"{}\" is not a digest (sha256:<64 hex>)", field));
}

namespace {

// The protocol's time range: [1970-01-01T00:00:00Z, 2201-01-01T00:00:00Z).
bool InRange(SystemTime t) {
  return t >= SystemTime{} && t < SystemTime{} + std::chrono::seconds(7289654400);
}

}  // namespace

void Problems::Time(std::string_view field, SystemTime t) {
  if (!InRange(t)) {
    Add(fmt::format("\"{}\" is not a time from 1970 to 2200", field));
  }
}

const nlohmann::json* Fields::Find(std::string_view name) {
  auto it = obj_.find(name);
  if (it == obj_.end()) return nullptr;
  return &*it;
}

std::string Fields::String(std::string_view name) {
  const nlohmann::json* v = Find(name);
  if (v == nullptr) {
    problems_->Add(fmt::format("\"{}\" is missing", name));
    return "";
  }
  if (!v->is_string()) {
    problems_->Add(fmt::format("\"{}\" is not a string", name));
    return "";
  }
  return v->get<std::string>();
}

std::optional<std::string> Fields::OptString(std::string_view name) {
  if (Find(name) == nullptr) return std::nullopt;
  return String(name);
}

bool Fields::Bool(std::string_view name) {
  const nlohmann::json* v = Find(name);
  if (v == nullptr) {
    problems_->Add(fmt::format("\"{}\" is missing", name));
    return false;
  }
  if (!v->is_boolean()) {
    problems_->Add(fmt::format("\"{}\" is not true or false", name));
    return false;
  }
  return v->get<bool>();
}

std::optional<bool> Fields::OptBool(std::string_view name) {
  if (Find(name) == nullptr) return std::nullopt;
  return Bool(name);
}

SystemTime Fields::Time(std::string_view name) {
  std::string text = String(name);
  SystemTime t{};
  if (!problems_->ok()) return t;
  if (!ParseProtocolTime(text, &t)) {
    problems_->Add(fmt::format("\"{}\" is not an RFC 3339 UTC time from 1970 to 2200", name));
  }
  return t;
}

std::vector<std::string> Fields::StringList(std::string_view name) {
  std::vector<std::string> out;
  const nlohmann::json* v = Find(name);
  if (v == nullptr) {
    problems_->Add(fmt::format("\"{}\" is missing", name));
    return out;
  }
  if (!v->is_array()) {
    problems_->Add(fmt::format("\"{}\" is not a list", name));
    return out;
  }
  for (const auto& e : *v) {
    if (!e.is_string()) {
      problems_->Add(fmt::format("\"{}\" holds something other than a string", name));
      return {};
    }
    out.push_back(e.get<std::string>());
  }
  return out;
}

const nlohmann::json* Fields::Object(std::string_view name) {
  const nlohmann::json* v = Find(name);
  if (v == nullptr) {
    problems_->Add(fmt::format("\"{}\" is missing", name));
    return nullptr;
  }
  if (!v->is_object()) {
    problems_->Add(fmt::format("\"{}\" is not an object", name));
    return nullptr;
  }
  return v;
}

const nlohmann::json* Fields::OptObject(std::string_view name) {
  if (Find(name) == nullptr) return nullptr;
  return Object(name);
}

bool ParseProtocolTime(std::string_view text, SystemTime* out) {
  if (text.size() < 4) return false;
  int year = 0;
  for (size_t i = 0; i < 4; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    year = year * 10 + (text[i] - '0');
  }
  if (year < 1970 || year > 2200) return false;
  // A leap second at the end of 2200 normalises into 2201: still refused.
  SystemTime t;
  if (!ParseRfc3339(text, &t) || !InRange(t)) return false;
  *out = t;
  return true;
}

std::string TimeText(SystemTime t) { return FormatRfc3339Nano(t); }

}  // namespace carlos::identity::internal

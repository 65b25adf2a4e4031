// Key and prefix rules (store.h) and ListAll.
#include <fmt/format.h>

#include <set>

#include "store/store.h"

namespace carlos {

namespace {

// Checks the bytes and segments shared by keys and prefixes. `what` names
// the argument in messages ("key" or "prefix"); `allow_trailing_slash` is
// the one rule where they differ.
Status CheckPath(std::string_view s, std::string_view what, bool allow_trailing_slash) {
  if (s.size() > kMaxKeyBytes) {
    return InvalidArgument(
        fmt::format("{} is {} bytes; at most {} are allowed", what, s.size(), kMaxKeyBytes));
  }
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x21 || c > 0x7e) {
      return InvalidArgument(fmt::format(
          "{} {:?} has byte 0x{:02x} at offset {}; only printable ASCII without spaces is allowed",
          what, s, c, i));
    }
  }
  if (s.front() == '/') return InvalidArgument(fmt::format("{} {:?} starts with '/'", what, s));
  if (s.back() == '/' && !allow_trailing_slash) {
    return InvalidArgument(fmt::format("{} {:?} ends with '/'", what, s));
  }
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find('/', start);
    if (end == std::string_view::npos) end = s.size();
    std::string_view seg = s.substr(start, end - start);
    if (seg.empty()) return InvalidArgument(fmt::format("{} {:?} has an empty segment", what, s));
    if (seg == "." || seg == "..") {
      return InvalidArgument(fmt::format("{} {:?} has a {:?} segment", what, s, seg));
    }
    start = end + 1;
  }
  return OkStatus();
}

}  // namespace

Status ValidateKey(std::string_view key) {
  if (key.empty()) return InvalidArgument("key is empty");
  return CheckPath(key, "key", false);
}

Status ValidatePrefix(std::string_view prefix) {
  if (prefix.empty()) return OkStatus();
  return CheckPath(prefix, "prefix", true);
}

namespace {

// ListAll's loop, over List or ListVersions (`versions`), with its bounds
// (store.h). Fills `keys` and, with `versions`, `tags`.
Status ListAllPages(Store& store, std::string_view prefix, bool versions,
                    std::vector<std::string>* out, std::vector<std::string>* tags) {
  constexpr int kPageKeys = 1000;
  std::set<std::string, std::less<>> tokens;
  std::string token;
  auto refuse = [&](std::string why) {
    return Corrupt(
        fmt::format("{}: listing {:?}: {}; the listing is refused (the server's answers "
                    "cannot be right)",
                    store.Describe(), prefix, why));
  };
  for (size_t pages = 1;; ++pages) {
    CARLOS_ASSIGN_OR_RETURN(ListPage page, versions ? store.ListVersions(prefix, token, kPageKeys)
                                                    : store.List(prefix, token, kPageKeys));
    if (page.keys.size() > static_cast<size_t>(kPageKeys)) {
      return refuse(fmt::format("page {} holds {} keys, more than the {} asked for", pages,
                                page.keys.size(), kPageKeys));
    }
    if (versions && page.versions.size() != page.keys.size()) {
      return refuse(fmt::format("page {} holds {} keys and {} version tags", pages,
                                page.keys.size(), page.versions.size()));
    }
    for (size_t i = 0; i < page.keys.size(); ++i) {
      std::string& k = page.keys[i];
      if (!std::string_view(k).starts_with(prefix)) {
        return refuse(fmt::format("page {} holds {:?}, outside the prefix", pages, k));
      }
      if (!out->empty() && k <= out->back()) {
        return refuse(fmt::format("page {} holds {:?} after {:?}: keys repeat or go back", pages, k,
                                  out->back()));
      }
      if (out->size() >= kMaxListedKeys) {
        return refuse(fmt::format("more than {} keys", kMaxListedKeys));
      }
      out->push_back(std::move(k));
      if (versions) tags->push_back(std::move(page.versions[i]));
    }
    if (page.next_token.empty()) break;
    if (!tokens.insert(page.next_token).second) {
      return refuse(fmt::format("page {} continues with a token that came before", pages));
    }
    if (pages > out->size() + kListPageAllowance) {
      return refuse(fmt::format("{} pages for {} keys: more pages than the keys could fill", pages,
                                out->size()));
    }
    token = std::move(page.next_token);
  }
  return OkStatus();
}

}  // namespace

StatusOr<std::vector<std::string>> ListAll(Store& store, std::string_view prefix) {
  std::vector<std::string> out;
  CARLOS_RETURN_IF_ERROR(ListAllPages(store, prefix, false, &out, nullptr));
  return out;
}

StatusOr<std::vector<ListedKey>> ListAllVersions(Store& store, std::string_view prefix) {
  std::vector<std::string> keys, tags;
  CARLOS_RETURN_IF_ERROR(ListAllPages(store, prefix, true, &keys, &tags));
  std::vector<ListedKey> out(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) out[i] = {std::move(keys[i]), std::move(tags[i])};
  return out;
}

StatusOr<ListPage> Store::ListVersions(std::string_view prefix, std::string_view token,
                                       int max_keys) {
  CARLOS_ASSIGN_OR_RETURN(ListPage page, List(prefix, token, max_keys));
  if (page.versions.size() == page.keys.size()) return page;
  ListPage out;
  out.next_token = std::move(page.next_token);
  for (auto& key : page.keys) {
    CARLOS_ASSIGN_OR_RETURN(std::optional<Object> obj, GetIfExists(key));
    if (!obj) continue;  // Deleted since the listing.
    out.keys.push_back(std::move(key));
    out.versions.push_back(std::move(obj->version));
  }
  return out;
}

}  // namespace carlos

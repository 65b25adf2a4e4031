#include "imds/client.h"

#include <curl/curl.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/strings.h"

namespace carlos::imds {

namespace {

constexpr std::string_view kTokenPath = "/latest/api/token";
constexpr std::string_view kTagsPath = "/latest/meta-data/tags/instance/";
constexpr std::string_view kRolesPath = "/latest/meta-data/iam/security-credentials/";

std::once_flag curl_once;

struct WriteState {
  std::string* out;
  size_t limit;
  bool overflow = false;
};

size_t OnWrite(char* data, size_t size, size_t n, void* user) {
  auto* st = static_cast<WriteState*>(user);
  size_t len = size * n;
  if (st->out->size() + len > st->limit) {
    st->overflow = true;
    return 0;  // Makes curl stop with CURLE_WRITE_ERROR.
  }
  st->out->append(data, len);
  return len;
}

std::vector<std::string> Lines(std::string_view body) {
  std::vector<std::string> out;
  std::istringstream in{std::string(body)};
  std::string line;
  while (std::getline(in, line)) {
    std::string t = TrimSpace(line);
    if (!t.empty()) out.push_back(t);
  }
  return out;
}

const char kTagsHelp[] =
    "instance tags are not enabled in this instance's metadata options (IMDS answers 404 for "
    "/latest/meta-data/tags/instance/); enable \"instance metadata tags\" (aws ec2 "
    "modify-instance-metadata-options --instance-metadata-tags enabled, or "
    "MetadataOptions.InstanceMetadataTags=enabled in the launch template)";

}  // namespace

ImdsOptions ImdsOptionsFromEnv(const Getenv& getenv) {
  ImdsOptions o;
  std::string e = EnvOr(getenv, "CARLOS_IMDS_ENDPOINT", kDefaultEndpoint);
  if (e == "off") {
    o.endpoint.clear();
  } else {
    while (!e.empty() && e.back() == '/') e.pop_back();
    o.endpoint = e;
  }
  o.sysfs_root = EnvOr(getenv, "CARLOS_SYSFS_ROOT", "/sys");
  return o;
}

std::string EscapeTagKey(std::string_view key) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : key) {
    if (std::isalnum(c) ||
        std::string_view("-._~:@+=,").find(static_cast<char>(c)) != std::string_view::npos) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

ImdsClient::ImdsClient(ImdsOptions options, Clock* clock)
    : options_(std::move(options)), clock_(clock) {
  std::call_once(curl_once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

ImdsClient::~ImdsClient() = default;

Status ImdsClient::TransportError(std::string_view what, int curl_code,
                                  const std::string& curl_message) {
  std::string where = "IMDS at " + options_.endpoint + " (" + std::string(what) + ")";
  auto code = static_cast<CURLcode>(curl_code);
  if (code == CURLE_OPERATION_TIMEDOUT) {
    return DeadlineExceeded(
        where + " did not answer within " + FormatDuration(options_.request_timeout) +
        " (connect " + FormatDuration(options_.connect_timeout) +
        "): this box is not on EC2, or IMDS is unreachable from here (in a container, the "
        "instance's metadata hop limit must be at least 2): " +
        curl_message);
  }
  return Unavailable(where + " is not answering: " + curl_message +
                     " (off EC2, or IMDS disabled for this instance)");
}

StatusOr<ImdsClient::Answer> ImdsClient::Exchange(std::string_view method, std::string_view path,
                                                  const std::vector<std::string>& headers) {
  const auto start = std::chrono::steady_clock::now();
  StatusOr<Answer> a = ExchangeOnce(method, path, headers);
  if (observer_) {
    observer_(method, a.ok() ? a->status : 0, a.status(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return a;
}

StatusOr<ImdsClient::Answer> ImdsClient::ExchangeOnce(std::string_view method,
                                                      std::string_view path,
                                                      const std::vector<std::string>& headers) {
  if (off()) {
    return Unavailable("IMDS is off (CARLOS_IMDS_ENDPOINT=off): this box is not on EC2, so " +
                       std::string(path) + " cannot be read");
  }
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return Internal("IMDS: curl_easy_init failed");
  std::string url = options_.endpoint + std::string(path);
  Answer a;
  WriteState ws{&a.body, options_.max_answer_bytes};
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_slist* hl = nullptr;
  for (const auto& h : headers) hl = curl_slist_append(hl, h.c_str());
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> hguard(hl, curl_slist_free_all);
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, std::string(method).c_str());
  if (method == "HEAD") curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  if (method == "PUT") {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, 0L);
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, OnWrite);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &ws);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // Timeouts without SIGALRM: thread-safe.
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(options_.connect_timeout.count()));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.request_timeout.count()));
  // IMDS is never reached through a proxy, whatever http_proxy says.
  curl_easy_setopt(c, CURLOPT_PROXY, "");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  CURLcode rc = curl_easy_perform(c);
  if (ws.overflow) {
    return Corrupt("IMDS answer for " + std::string(path) + " is larger than " +
                   std::to_string(options_.max_answer_bytes) + " bytes");
  }
  if (rc != CURLE_OK) {
    std::string msg = errbuf[0] ? std::string(errbuf) : std::string(curl_easy_strerror(rc));
    return TransportError(std::string(method) + " " + std::string(path), rc, msg);
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &a.status);
  return a;
}

StatusOr<std::string> ImdsClient::Token(bool force_new) {
  std::lock_guard<std::mutex> lock(token_mu_);
  if (v1_) return std::string();
  SystemTime now = clock_->Now();
  if (!force_new && !token_.empty() && now < token_expiry_ - options_.token_renew_before) {
    return token_;
  }
  token_.clear();
  token_answered_ = false;
  auto a = Exchange(
      "PUT", kTokenPath,
      {"X-aws-ec2-metadata-token-ttl-seconds: " + std::to_string(options_.token_ttl.count())});
  if (!a.ok()) return a.status().Annotate("IMDSv2 session token");
  token_answered_ = true;
  if (a->status == 200) {
    std::string t = TrimSpace(a->body);
    if (t.empty()) return Corrupt("IMDS answered the session token request with an empty token");
    token_ = t;
    token_expiry_ = now + options_.token_ttl;
    return token_;
  }
  bool no_v2 = a->status == 403 || a->status == 404 || a->status == 405;
  if (no_v2 && options_.allow_imdsv1) {
    v1_ = true;
    return std::string();
  }
  std::string why =
      "IMDS answered " + std::to_string(a->status) + " to PUT " + std::string(kTokenPath);
  if (a->status == 403) {
    return PreconditionFailed(why +
                              ": the instance metadata service is disabled for this "
                              "instance (enable it with --http-endpoint enabled)");
  }
  if (a->status >= 500) return Unavailable(why + " (IMDS error; retry)");
  if (a->status == 400) {
    return InvalidArgument(why + ": the token TTL " + std::to_string(options_.token_ttl.count()) +
                           "s was refused (IMDS allows 1 to 21600 s)");
  }
  return Unavailable(why +
                     (no_v2 ? " (IMDSv2 not offered; IMDSv1 is not used unless enabled)" : ""));
}

Status ImdsClient::Reachable() {
  {
    std::lock_guard<std::mutex> lock(token_mu_);
    if (v1_ || (!token_.empty() && clock_->Now() < token_expiry_ - options_.token_renew_before)) {
      return OkStatus();
    }
  }
  auto t = Token(/*force_new=*/false);
  if (t.ok()) return OkStatus();
  // Any HTTP answer means IMDS is there; only a transport failure (or off)
  // means it is not.
  std::lock_guard<std::mutex> lock(token_mu_);
  if (token_answered_) return OkStatus();
  return t.status();
}

StatusOr<std::string> ImdsClient::Get(std::string_view path) {
  for (int attempt = 0; attempt < 2; attempt++) {
    CARLOS_ASSIGN_OR_RETURN(std::string token, Token(/*force_new=*/attempt > 0));
    std::vector<std::string> headers;
    if (!token.empty()) headers.push_back("X-aws-ec2-metadata-token: " + token);
    CARLOS_ASSIGN_OR_RETURN(Answer a, Exchange("GET", path, headers));
    if (a.status == 200) return std::move(a.body);
    std::string why = "IMDS answered " + std::to_string(a.status) + " to GET " + std::string(path);
    if (a.status == 401) {
      if (attempt == 0) continue;  // Expired or revoked: one fresh token.
      return Denied(why + " with a freshly fetched session token");
    }
    if (a.status == 404) return NotFound(why + ": not there");
    if (a.status >= 500) return Unavailable(why + " (IMDS error; retry)");
    if (a.status == 403) {
      return Denied(why + ": forbidden (is the instance metadata service disabled?)");
    }
    return Unavailable(why);
  }
  return Internal("IMDS: unreachable");
}

StatusOr<std::string> ImdsClient::IdentityDocument() {
  return Get("/latest/dynamic/instance-identity/document");
}

StatusOr<std::string> ImdsClient::IdentityRsa2048() {
  return Get("/latest/dynamic/instance-identity/rsa2048");
}

StatusOr<std::string> ImdsClient::InstanceId() {
  CARLOS_ASSIGN_OR_RETURN(std::string id, Get("/latest/meta-data/instance-id"));
  id = TrimSpace(id);
  if (id.empty()) return Corrupt("IMDS answered an empty instance id");
  return id;
}

StatusOr<std::string> ImdsClient::Region() {
  CARLOS_ASSIGN_OR_RETURN(std::string r, Get("/latest/meta-data/placement/region"));
  r = TrimSpace(r);
  if (r.empty()) return Corrupt("IMDS answered an empty region");
  return r;
}

StatusOr<std::vector<std::string>> ImdsClient::TagKeys() {
  auto body = Get(kTagsPath);
  if (!body.ok()) {
    if (body.status().code() == Code::kNotFound) return PreconditionFailed(kTagsHelp);
    return body.status();
  }
  return Lines(*body);
}

StatusOr<std::string> ImdsClient::Tag(std::string_view key) {
  auto v = Get(std::string(kTagsPath) + EscapeTagKey(key));
  if (v.ok()) return std::move(v).value();
  if (v.status().code() != Code::kNotFound) return v.status();
  // 404: a missing tag, or no tags in metadata at all; the listing says.
  auto keys = TagKeys();
  if (!keys.ok()) return keys.status();
  std::string have;
  for (const auto& k : *keys) have += (have.empty() ? "" : ", ") + k;
  return NotFound("the instance has no tag " + std::string(key) +
                  " (its tags in metadata: " + (have.empty() ? "none" : have) + ")");
}

StatusOr<RoleCredentials> ImdsClient::RoleCredentialsNow(Seconds refresh_before) {
  std::lock_guard<std::mutex> lock(creds_mu_);
  SystemTime now = clock_->Now();
  if (creds_ && now < creds_->expiration - refresh_before) return *creds_;
  auto fetch = [&]() -> StatusOr<RoleCredentials> {
    auto list = Get(kRolesPath);
    if (!list.ok()) {
      if (list.status().code() == Code::kNotFound) {
        return NotFound("this instance has no IAM role (IMDS answers 404 for " +
                        std::string(kRolesPath) + "); attach an instance profile");
      }
      return list.status().Annotate("instance role");
    }
    auto roles = Lines(*list);
    if (roles.empty()) {
      return NotFound("this instance has no IAM role (" + std::string(kRolesPath) +
                      " is empty); attach an instance profile");
    }
    RoleCredentials rc;
    rc.role = roles.front();
    auto body = Get(std::string(kRolesPath) + rc.role);
    if (!body.ok()) return body.status().Annotate("instance role " + rc.role);
    auto j = nlohmann::json::parse(*body, nullptr, /*allow_exceptions=*/false);
    auto bad = [&](std::string why) {
      return Corrupt("IMDS credentials of role " + rc.role + ": " + why);
    };
    if (!j.is_object()) return bad("not a JSON object");
    auto str = [&](const char* k) -> std::string {
      auto it = j.find(k);
      return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    std::string code = str("Code");
    if (!code.empty() && code != "Success") return bad("Code is \"" + code + "\", not Success");
    rc.access_key_id = str("AccessKeyId");
    rc.secret_access_key = str("SecretAccessKey");
    rc.token = str("Token");
    if (rc.access_key_id.empty()) return bad("no AccessKeyId");
    if (rc.secret_access_key.empty()) return bad("no SecretAccessKey");
    if (rc.token.empty()) return bad("no Token");
    if (!ParseRfc3339(str("Expiration"), &rc.expiration)) {
      return bad("Expiration \"" + str("Expiration") + "\" is not an RFC 3339 UTC time");
    }
    return rc;
  };
  auto fresh = fetch();
  if (fresh.ok()) {
    creds_ = *fresh;
    return *creds_;
  }
  if (creds_ && now < creds_->expiration) return *creds_;  // Still valid: ride out the hiccup.
  return fresh.status();
}

}  // namespace carlos::imds

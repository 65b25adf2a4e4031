#include "store/s3_store.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <optional>
#include <random>
#include <utility>

#include "base/strings.h"
#include "store/dir_store.h"
#include "store/s3_xml.h"

namespace carlos {

// What Execute sends: method, the key ("" for the bucket), the canonical
// query (already sorted and encoded), extra headers, and the body.
struct S3Store::Request {
  std::string method;  // "GET", "PUT", "DELETE"
  std::string key;
  std::string query;
  std::vector<std::string> headers;
  std::string_view body;
  // A conditional write: a lost answer must be resolved, not retried blind.
  bool conditional = false;
  // Bytes the answer may have: objects for Get, more for a listing.
  size_t max_body = kMaxObjectBytes;
  std::string what;  // "GET key": for messages.
};

struct S3Store::Response {
  CURLcode curl = CURLE_OK;
  std::string curl_error;
  long os_errno = 0;  // CURLINFO_OS_ERRNO after a failure.
  long http = 0;
  std::string body;
  std::string etag;
  // The `Date` and `Last-Modified` headers, as sent ("" when absent).
  std::string date;
  std::string last_modified;
  bool too_large = false;
  // Set by Execute: the final status when the exchange did not end in an
  // answer the caller should interpret (transient failures past the
  // deadline, credentials, oversized bodies).
  Status failure;
  // Set by Execute for a conditional write whose outcome is unknown.
  bool ambiguous = false;
};

namespace {

constexpr std::string_view kEmptySha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
constexpr size_t kMaxListBody = 8 << 20;
// AWS's continuation tokens are about 100 bytes; ListAll keeps every token
// it saw, so a bound keeps that memory small.
constexpr size_t kMaxContinuationToken = 4096;

Stop& NeverStop() {
  static Stop stop;
  return stop;
}

std::string BodySha256(std::string_view body) {
  if (body.empty()) return std::string(kEmptySha256);
  return Sha256Hex(body);
}

std::string Unquote(std::string_view tag) {
  std::string t = TrimSpace(tag);
  if (t.starts_with("W/")) t = t.substr(2);
  if (t.size() >= 2 && t.front() == '"' && t.back() == '"') t = t.substr(1, t.size() - 2);
  return t;
}

bool ValidBucket(std::string_view b) {
  if (b.size() < 3 || b.size() > 63) return false;
  for (char c : b) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-')) return false;
  }
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  return alnum(b.front()) && alnum(b.back()) && b.find("..") == std::string_view::npos;
}

// An ETag as S3 servers issue them for PUT and multipart uploads: the MD5
// (32 hex digits), plus "-<parts>" for a multipart upload.
bool LooksLikeETag(std::string_view t) {
  if (t.size() < 32) return false;
  for (size_t i = 0; i < 32; ++i) {
    if (!std::isxdigit(static_cast<unsigned char>(t[i]))) return false;
  }
  std::string_view rest = t.substr(32);
  if (rest.empty()) return true;
  if (rest.size() < 2 || rest.size() > 6 || rest[0] != '-') return false;
  return rest.substr(1).find_first_not_of("0123456789") == std::string_view::npos;
}

struct WriteTarget {
  std::string* body;
  size_t max;
  bool* too_large;
};

size_t OnBody(char* ptr, size_t size, size_t nmemb, void* userdata) {
  auto* t = static_cast<WriteTarget*>(userdata);
  size_t n = size * nmemb;
  if (t->body->size() + n > t->max) {
    *t->too_large = true;
    return 0;  // Aborts the transfer with CURLE_WRITE_ERROR.
  }
  t->body->append(ptr, n);
  return n;
}

// The headers an answer's reader keeps (S3Store::Response's fields).
struct HeaderTarget {
  std::string* etag;
  std::string* date;
  std::string* last_modified;
};

size_t OnHeader(char* ptr, size_t size, size_t nmemb, void* userdata) {
  size_t n = size * nmemb;
  std::string_view line(ptr, n);
  auto* t = static_cast<HeaderTarget*>(userdata);
  if (line.starts_with("HTTP/")) {
    // A new answer (after 100 Continue or a redirect).
    t->etag->clear();
    t->date->clear();
    t->last_modified->clear();
    return n;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  std::string name = std::string(line.substr(0, colon));
  std::transform(name.begin(), name.end(), name.begin(), ::tolower);
  std::string_view value = line.substr(colon + 1);
  if (name == "etag") {
    *t->etag = Unquote(value);
  } else if (name == "date") {
    *t->date = TrimSpace(value);
  } else if (name == "last-modified") {
    *t->last_modified = TrimSpace(value);
  }
  return n;
}

// Parses an HTTP-date in its preferred form, IMF-fixdate ("Sun, 06 Nov 1994
// 08:49:37 GMT", RFC 9110 §5.6.7, which S3 sends in Date and Last-Modified);
// nullopt otherwise.
std::optional<SystemTime> ParseHttpDate(const std::string& s) {
  struct tm tm {};
  const char* end = ::strptime(s.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  time_t t = ::timegm(&tm);
  if (t < 0) return std::nullopt;
  return std::chrono::system_clock::from_time_t(t);
}

// An object's age by the server's clock: Date minus Last-Modified (store.h,
// Object::age); nullopt when either is missing or unreadable.
std::optional<Milliseconds> AgeOf(const std::string& date, const std::string& last_modified) {
  std::optional<SystemTime> now = ParseHttpDate(date);
  std::optional<SystemTime> written = ParseHttpDate(last_modified);
  if (!now || !written) return std::nullopt;
  return std::max(Milliseconds(0), std::chrono::duration_cast<Milliseconds>(*now - *written));
}

// The curl failures after which the request certainly never reached the
// server: retrying can change nothing twice.
bool NeverSent(CURLcode c) {
  return c == CURLE_COULDNT_CONNECT || c == CURLE_COULDNT_RESOLVE_HOST ||
         c == CURLE_COULDNT_RESOLVE_PROXY;
}

// Whether a curl failure is worth another attempt. A name that does not
// resolve is not (the endpoint or the bucket's region is wrong, or there is
// no resolver: the next check, not the next second, may see it mended), and
// neither is a TLS handshake that failed without a socket error (`os_errno`,
// CURLINFO_OS_ERRNO, 0): the server answered, and what it answered was not
// TLS — an https:// endpoint on a plain-HTTP port.
bool TransientCurl(CURLcode c, long os_errno) {
  switch (c) {
    case CURLE_SSL_CONNECT_ERROR:
      return os_errno != 0;
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

// The S3 error codes that say "try again" whatever the HTTP status.
bool TransientS3Code(std::string_view code) {
  return code == "SlowDown" || code == "InternalError" || code == "ServiceUnavailable" ||
         code == "RequestTimeout" || code == "ConditionalRequestConflict" ||
         code == "OperationAborted";
}

std::string Explain(const S3Store::Response& r) {
  if (r.curl != CURLE_OK) {
    return fmt::format("{} ({})", r.curl_error.empty() ? curl_easy_strerror(r.curl) : r.curl_error,
                       curl_easy_strerror(r.curl));
  }
  std::string out = fmt::format("HTTP {}", r.http);
  if (auto e = ParseS3Error(r.body)) {
    if (!e->code.empty()) out += " " + e->code;
    if (!e->message.empty()) out += ": " + e->message;
  }
  return out;
}

// The status of a curl failure that is not retried, at `where`, with what
// to do for those that have a fix.
Status CurlFailure(const S3Store::Response& r, const std::string& where) {
  std::string msg = fmt::format("{}: {}", where, Explain(r));
  switch (r.curl) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return Unavailable(msg +
                         " (the host name does not resolve: check CARLOS_S3_ENDPOINT, or "
                         "AWS_REGION and CARLOS_DEPLOYMENT_BUCKET for AWS, and the resolver)");
    case CURLE_SSL_CONNECT_ERROR:
      return InvalidArgument(msg +
                             " (the server does not speak TLS on that port: an https:// "
                             "CARLOS_S3_ENDPOINT on a plain-HTTP port? use http://)");
    default:
      return Unavailable(msg);
  }
}

std::string S3Code(const S3Store::Response& r) {
  auto e = ParseS3Error(r.body);
  return e ? e->code : "";
}

// Whether an answer (not a curl failure) is worth another attempt.
bool TransientHttp(const S3Store::Response& r) {
  // 501 NotImplemented is a server that lacks the feature (conditional
  // writes on an old S3-compatible server): asking again changes nothing.
  if (r.http == 501) return false;
  if (r.http >= 500 || r.http == 429) return true;
  if (r.http == 409 || r.http == 400) return TransientS3Code(S3Code(r));
  return false;
}

}  // namespace

std::string UriEncode(std::string_view s, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size() * 3);
  for (unsigned char c : s) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

StatusOr<std::unique_ptr<S3Store>> S3Store::Open(S3StoreOptions options) {
  if (!ValidBucket(options.bucket)) {
    return InvalidArgument(
        fmt::format("bucket name {:?} (CARLOS_DEPLOYMENT_BUCKET) is not valid: 3 to 63 of a-z, "
                    "0-9, '.' and '-', starting "
                    "and ending with a letter or digit",
                    options.bucket));
  }
  while (!options.endpoint.empty() && options.endpoint.back() == '/') options.endpoint.pop_back();
  if (!options.endpoint.empty()) {
    std::string_view e = options.endpoint;
    bool scheme = e.starts_with("http://") || e.starts_with("https://");
    std::string_view rest =
        e.substr(e.find("://") == std::string_view::npos ? 0 : e.find("://") + 3);
    if (!scheme || rest.empty() || rest.find_first_of("/?#") != std::string_view::npos) {
      return InvalidArgument(
          fmt::format("S3 endpoint {:?} (CARLOS_S3_ENDPOINT) is not valid: want http://host[:port] "
                      "or https://host[:port]",
                      options.endpoint));
    }
  }
  if (options.region.empty() || options.region.find_first_not_of(
                                    "abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos) {
    return InvalidArgument(
        fmt::format("AWS region {:?} (AWS_REGION) is not valid", options.region));
  }
  if (!options.credentials) return InvalidArgument("the S3 store needs a credentials provider");
  if (options.deadline.count() <= 0) return InvalidArgument("the S3 store's deadline must be > 0");
  static std::once_flag curl_init;
  std::call_once(curl_init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  return std::unique_ptr<S3Store>(new S3Store(std::move(options)));
}

S3Store::S3Store(S3StoreOptions options)
    : opts_(std::move(options)), clock_(opts_.clock ? opts_.clock : RealClock()) {}

S3Store::~S3Store() {
  for (CURL* h : idle_) curl_easy_cleanup(h);
}

std::string S3Store::Describe() const {
  if (opts_.endpoint.empty()) return fmt::format("s3://{} (region {})", opts_.bucket, opts_.region);
  return fmt::format("s3://{} (endpoint {})", opts_.bucket, opts_.endpoint);
}

std::string S3Store::Url(std::string_view key) const {
  std::string path = UriEncode(key, true);
  if (opts_.endpoint.empty()) {
    return fmt::format("https://{}.s3.{}.amazonaws.com/{}", opts_.bucket, opts_.region, path);
  }
  if (key.empty()) return fmt::format("{}/{}", opts_.endpoint, opts_.bucket);
  return fmt::format("{}/{}/{}", opts_.endpoint, opts_.bucket, path);
}

CURL* S3Store::TakeHandle() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      CURL* h = idle_.back();
      idle_.pop_back();
      return h;
    }
  }
  return curl_easy_init();
}

void S3Store::ReturnHandle(CURL* h) {
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_.size() < 16) {
    idle_.push_back(h);
  } else {
    curl_easy_cleanup(h);
  }
}

S3Store::Response S3Store::Perform(const Request& req, const AwsCredentials& creds,
                                   Milliseconds timeout) {
  Response r;
  CURL* h = TakeHandle();
  if (h == nullptr) {
    r.curl = CURLE_OUT_OF_MEMORY;
    return r;
  }
  curl_easy_reset(h);  // Keeps the connection cache.
  std::string url = Url(req.key);
  if (!req.query.empty()) url += "?" + req.query;
  std::string sigv4 = fmt::format("aws:amz:{}:s3", opts_.region);
  struct curl_slist* headers = nullptr;
  // SigV4 for S3 needs the payload hash; libcurl signs the header as given.
  std::string sha = "x-amz-content-sha256: " + BodySha256(req.body);
  headers = curl_slist_append(headers, sha.c_str());
  std::string token;
  if (!creds.session_token.empty()) {
    token = "x-amz-security-token: " + creds.session_token;
    headers = curl_slist_append(headers, token.c_str());
  }
  for (const auto& hd : req.headers) headers = curl_slist_append(headers, hd.c_str());
  char errbuf[CURL_ERROR_SIZE] = {0};
  WriteTarget target{&r.body, req.max_body, &r.too_large};
  HeaderTarget header_target{&r.etag, &r.date, &r.last_modified};
  long connect_ms =
      std::max<long>(1, std::min<long>(opts_.connect_timeout.count(), timeout.count()));

  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_AWS_SIGV4, sigv4.c_str());
  curl_easy_setopt(h, CURLOPT_USERNAME, creds.access_key_id.c_str());
  curl_easy_setopt(h, CURLOPT_PASSWORD, creds.secret_access_key.c_str());
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(std::max<int64_t>(1, timeout.count())));
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &target);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &header_target);
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  if (req.method == "GET") {
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  } else if (req.method == "PUT") {
    // A body from memory, sent as PUT: no chunked encoding, and (below
    // libcurl's 1 MiB threshold) no "Expect: 100-continue".
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, req.body.data());
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "PUT");
  } else {
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req.method.c_str());
  }
  r.curl = curl_easy_perform(h);
  if (r.curl != CURLE_OK) {
    r.curl_error = errbuf;
    curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &r.os_errno);
  }
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r.http);
  curl_slist_free_all(headers);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);
  if (r.curl == CURLE_OK) {
    ReturnHandle(h);
  } else {
    curl_easy_cleanup(h);  // Its connection may be in any state.
  }
  return r;
}

bool S3Store::Backoff(int attempt, SystemTime deadline, const Request& req,
                      const std::string& cause) {
  int64_t cap = opts_.backoff_initial.count();
  for (int i = 0; i < attempt && cap < opts_.backoff_max.count(); ++i) cap *= 2;
  cap = std::min<int64_t>(cap, opts_.backoff_max.count());
  static thread_local std::mt19937_64 rng(std::random_device{}());
  Milliseconds wait{std::uniform_int_distribution<int64_t>(0, std::max<int64_t>(cap, 0))(rng)};
  if (clock_->Now() + wait >= deadline) return false;
  if (opts_.on_retry) {
    opts_.on_retry(
        RetryNote{fmt::format("{}: {}", Describe(), req.what), attempt + 1, cause, wait, false});
  }
  clock_->Sleep(wait, NeverStop());
  return true;
}

S3Store::Response S3Store::Execute(const Request& req, SystemTime deadline) {
  bool retried = false;
  std::string last_cause;
  Response r = ExecuteLoop(req, deadline, &retried, &last_cause);
  if (retried && opts_.on_retry) {
    opts_.on_retry(RetryNote{fmt::format("{}: {}", Describe(), req.what), 0, last_cause,
                             Milliseconds(0), true});
  }
  return r;
}

S3Store::Response S3Store::ExecuteLoop(const Request& req, SystemTime deadline, bool* retried,
                                       std::string* last_cause) {
  auto backoff = [&](int attempt, const std::string& cause) {
    *last_cause = cause;
    bool again = Backoff(attempt, deadline, req, cause);
    *retried = *retried || again;
    return again;
  };
  for (int attempt = 0;; ++attempt) {
    Response r;
    auto creds = opts_.credentials();
    if (!creds.ok()) {
      // An instance role's IMDS may be briefly unreachable: that is
      // transient too. Missing or refused credentials are not.
      if (creds.status().code() == Code::kUnavailable &&
          backoff(attempt, "credentials: " + creds.status().message())) {
        continue;
      }
      r.failure = creds.status().Annotate(fmt::format("{}: {}: credentials", Describe(), req.what));
      return r;
    }
    auto left = std::chrono::duration_cast<Milliseconds>(deadline - clock_->Now());
    Milliseconds timeout = std::min(opts_.request_timeout, std::max(left, Milliseconds(50)));
    r = Perform(req, *creds, timeout);
    if (r.too_large) {
      r.failure = Corrupt(fmt::format("{}: {}: the answer is larger than {} bytes", Describe(),
                                      req.what, req.max_body));
      return r;
    }
    bool transient = r.curl != CURLE_OK ? TransientCurl(r.curl, r.os_errno) : TransientHttp(r);
    if (!transient) {
      if (r.curl != CURLE_OK)
        r.failure = CurlFailure(r, fmt::format("{}: {}", Describe(), req.what));
      return r;
    }
    // A 409 ConditionalRequestConflict and a refused connection change
    // nothing; any other transient failure of a conditional write may have.
    bool changed_nothing = (r.curl != CURLE_OK && NeverSent(r.curl)) ||
                           (r.http == 409 && S3Code(r) == "ConditionalRequestConflict");
    if (req.conditional && !changed_nothing) {
      r.ambiguous = true;
      return r;
    }
    if (!backoff(attempt, Explain(r))) {
      // The cause, not the attempt count: the same failure gives the same
      // line, so callers' "once per distinct error" logs it once.
      r.failure =
          Unavailable(fmt::format("{}: {}: still failing at the deadline {}: {}", Describe(),
                                  req.what, FormatDuration(opts_.deadline), Explain(r)));
      return r;
    }
  }
}

namespace {

// Maps a final, non-transient answer other than 2xx to the store's codes.
Status AnswerStatus(const S3Store::Response& r, std::string_view where, std::string_view bucket) {
  std::string msg = fmt::format("{}: {}", where, Explain(r));
  std::string code = S3Code(r);
  if (r.http == 412) return PreconditionFailed(msg);
  if (r.http == 404 && code == "NoSuchBucket") {
    return InvalidArgument(fmt::format(
        "{} (bucket {:?} does not exist; check CARLOS_DEPLOYMENT_BUCKET)", msg, bucket));
  }
  if (r.http == 404) return NotFound(msg);
  if (code == "InvalidAccessKeyId") {
    return Denied(msg + " (the server knows no such access key: check AWS_ACCESS_KEY_ID)");
  }
  if (code == "SignatureDoesNotMatch") {
    return Denied(msg +
                  " (the secret key does not match the access key: check "
                  "AWS_SECRET_ACCESS_KEY)");
  }
  if (code == "RequestTimeTooSkewed") {
    return Denied(msg + " (this machine's clock is off by more than 15 minutes: fix it)");
  }
  if (r.http == 401 || r.http == 403) return Denied(msg);
  if (r.http == 501) {
    return InvalidArgument(msg +
                           " (the S3 server does not implement this request; the store needs "
                           "conditional writes: If-None-Match and If-Match on PUT)");
  }
  if (r.http == 301 || r.http == 307 || code == "AuthorizationHeaderMalformed") {
    return InvalidArgument(msg + " (the bucket is in another region? set AWS_REGION)");
  }
  if (r.http == 400) return InvalidArgument(msg);
  if (r.http >= 500 || r.http == 429 || r.http == 409) return Unavailable(msg);
  return Corrupt(fmt::format("{}: unexpected answer {}", where, Explain(r)));
}

}  // namespace

StatusOr<Revalidated> S3Store::Fetch(std::string_view key, SystemTime deadline,
                                     std::string_view if_none_match) {
  Request req;
  req.method = "GET";
  req.key = std::string(key);
  req.what = fmt::format("GET {}", key);
  // A tag that is not an ETag matches no version: it is never sent, so that
  // a server comparing only a prefix (Ceph RGW does for If-Match) cannot
  // answer 304 for it. Quoted, as RFC 9110 13.1.2 writes an entity tag.
  const std::string tag = Unquote(if_none_match);
  const bool conditional = !tag.empty() && LooksLikeETag(tag);
  if (conditional) {
    req.headers.push_back("If-None-Match: \"" + tag + "\"");
    req.what = fmt::format("GET {} (unless version {})", key, tag);
  }
  Response r = Execute(req, deadline);
  if (!r.failure.ok()) return r.failure;
  std::string where = fmt::format("{}: {}", Describe(), req.what);
  if (r.http == 404 && S3Code(r) != "NoSuchBucket") {
    return NotFound(fmt::format("{}: key not found", where));
  }
  if (r.http == 403 && (S3Code(r).empty() || S3Code(r) == "AccessDenied")) {
    // Amazon S3 API Reference, GetObject, "Permissions": without
    // s3:ListBucket, a missing key is answered 403 AccessDenied, not 404.
    return Denied(fmt::format(
        "{}: {} (AWS also answers 403 for a missing key when the credentials lack s3:ListBucket "
        "on the bucket: grant it)",
        where, Explain(r)));
  }
  Revalidated out;
  if (r.http == 304 && conditional) {
    // GetObject, "If-None-Match": the version is still the one asked about.
    out.not_modified = true;
    return out;
  }
  if (r.http != 200) return AnswerStatus(r, where, opts_.bucket);
  if (r.etag.empty()) return Corrupt(fmt::format("{}: the answer has no ETag", where));
  out.object = Object{std::move(r.body), std::move(r.etag), AgeOf(r.date, r.last_modified)};
  return out;
}

StatusOr<Object> S3Store::GetWithin(std::string_view key, SystemTime deadline) {
  CARLOS_ASSIGN_OR_RETURN(Revalidated r, Fetch(key, deadline, ""));
  return std::move(r.object);
}

StatusOr<Object> S3Store::Get(std::string_view key) {
  CARLOS_RETURN_IF_ERROR(ValidateKey(key));
  return GetWithin(key, clock_->Now() + opts_.deadline);
}

StatusOr<Revalidated> S3Store::GetIfNoneMatch(std::string_view key, std::string_view version) {
  CARLOS_RETURN_IF_ERROR(ValidateKey(key));
  return Fetch(key, clock_->Now() + opts_.deadline, version);
}

StatusOr<std::string> S3Store::Put(std::string_view key, std::string_view data,
                                   const PutOptions& options) {
  CARLOS_RETURN_IF_ERROR(ValidateKey(key));
  if (data.size() > kMaxObjectBytes) {
    return InvalidArgument(fmt::format("object for key {:?} is {} bytes; at most {} are allowed",
                                       key, data.size(), kMaxObjectBytes));
  }
  Request req;
  req.method = "PUT";
  req.key = std::string(key);
  req.body = data;
  req.headers.push_back("Content-Type: application/octet-stream");
  std::string want;
  switch (options.condition) {
    case PutCondition::kNone:
      req.what = fmt::format("PUT {}", key);
      break;
    case PutCondition::kCreateOnly:
      req.conditional = true;
      req.headers.push_back("If-None-Match: *");
      req.what = fmt::format("PUT {} (create-only)", key);
      break;
    case PutCondition::kIfMatch:
      want = Unquote(options.if_match);
      if (want.empty()) return InvalidArgument("a compare-and-swap put needs a version tag");
      if (!LooksLikeETag(want)) {
        // Never sent: Ceph RGW compares only a prefix of If-Match, so a tag
        // with anything appended to the current one would match there.
        return PreconditionFailed(fmt::format(
            "{}: PUT {}: version tag {:?} is not an S3 ETag (32 hex digits, \"-N\" for multipart "
            "uploads), so it matches no version",
            Describe(), key, want));
      }
      req.conditional = true;
      // Unquoted: Ceph RGW refuses a quoted ETag (s3_store.h).
      req.headers.push_back("If-Match: " + want);
      req.what = fmt::format("PUT {} (if version {})", key, want);
      break;
  }
  SystemTime deadline = clock_->Now() + opts_.deadline;
  std::string where = fmt::format("{}: {}", Describe(), req.what);
  for (int attempt = 0;; ++attempt) {
    Response r = Execute(req, deadline);
    if (!r.failure.ok()) return r.failure;
    if (!r.ambiguous) {
      if (r.http == 200) {
        if (r.etag.empty()) return Corrupt(fmt::format("{}: the answer has no ETag", where));
        return r.etag;
      }
      // Amazon S3 API Reference, PutObject ("If-None-Match", "If-Match"),
      // and User Guide, "How to prevent object overwrites with conditional
      // writes": a condition that does not hold is 412 PreconditionFailed,
      // except If-Match on a key with no current version, which AWS answers
      // 404 NoSuchKey (Ceph RGW 16 answers 412). Both are the store's
      // kPreconditionFailed, as the directory backend's (store.h).
      if (r.http == 412) {
        return PreconditionFailed(fmt::format("{}: {}", where,
                                              options.condition == PutCondition::kCreateOnly
                                                  ? "the key already exists"
                                                  : "the key is missing or at another version"));
      }
      if (r.http == 404 && options.condition == PutCondition::kIfMatch &&
          S3Code(r) == "NoSuchKey") {
        return PreconditionFailed(fmt::format("{}: the key is missing ({})", where, Explain(r)));
      }
      return AnswerStatus(r, where, opts_.bucket);
    }
    // The answer was lost: read the key back to learn whether it landed.
    std::string lost = Explain(r);
    auto got = GetWithin(key, deadline);
    if (!got.ok() && got.status().code() != Code::kNotFound) {
      return UnknownOutcome(fmt::format(
          "{}: the answer was lost ({}) and reading the key back failed, so whether it was "
          "written is unknown: {}",
          where, lost, got.status().message()));
    }
    if (got.ok() && got->data == data) return got->version;  // It landed.
    if (options.condition == PutCondition::kCreateOnly && got.ok()) {
      return PreconditionFailed(
          fmt::format("{}: the key already exists (found on reading back after {})", where, lost));
    }
    if (options.condition == PutCondition::kIfMatch && (!got.ok() || got->version != want)) {
      return PreconditionFailed(
          fmt::format("{}: the key is {} (found on reading back after {})", where,
                      got.ok() ? "at version " + got->version : std::string("missing"), lost));
    }
    // It did not land and the condition still holds: try again.
    if (!Backoff(attempt, deadline, req, lost)) {
      return Unavailable(fmt::format("{}: not written; still failing at the deadline ({}): {}",
                                     where, FormatDuration(opts_.deadline), lost));
    }
  }
}

StatusOr<ListPage> S3Store::List(std::string_view prefix, std::string_view token, int max_keys) {
  CARLOS_RETURN_IF_ERROR(ValidatePrefix(prefix));
  if (max_keys < 1 || max_keys > 1000) {
    return InvalidArgument(fmt::format("max_keys is {}; it must be 1 to 1000", max_keys));
  }
  Request req;
  req.method = "GET";
  req.max_body = kMaxListBody;
  // Sorted by name and encoded, as SigV4's canonical query string must be.
  if (!token.empty()) req.query += "continuation-token=" + UriEncode(token, false) + "&";
  req.query += fmt::format("list-type=2&max-keys={}", max_keys);
  if (!prefix.empty()) req.query += "&prefix=" + UriEncode(prefix, false);
  req.what = fmt::format("LIST {:?}", prefix);
  Response r = Execute(req, clock_->Now() + opts_.deadline);
  if (!r.failure.ok()) return r.failure;
  std::string where = fmt::format("{}: {}", Describe(), req.what);
  if (r.http != 200) return AnswerStatus(r, where, opts_.bucket);
  auto parsed = ParseListObjectsV2(r.body);
  if (!parsed.ok()) return parsed.status().Annotate(where);
  // Amazon S3 API Reference, ListObjectsV2: a response "might contain fewer
  // keys but will never contain more" than MaxKeys, and NextContinuationToken
  // continues the listing — so the token just sent coming back is a listing
  // that does not move (ListAll checks the rest across pages).
  if (parsed->keys.size() > static_cast<size_t>(max_keys)) {
    return Corrupt(fmt::format("{}: the page holds {} keys, more than the {} asked for", where,
                               parsed->keys.size(), max_keys));
  }
  if (parsed->truncated && !token.empty() && parsed->next_continuation_token == token) {
    return Corrupt(fmt::format(
        "{}: the page continues with the token it was asked for, so the listing never ends",
        where));
  }
  if (parsed->next_continuation_token.size() > kMaxContinuationToken) {
    return Corrupt(fmt::format("{}: the continuation token has {} bytes, more than {}", where,
                               parsed->next_continuation_token.size(), kMaxContinuationToken));
  }
  ListPage page;
  page.keys = std::move(parsed->keys);
  // Each <Contents> carries its ETag (ListObjectsV2, "Contents"): the tag
  // Get returns, so the listing tells which keys changed at no extra cost.
  bool tagged = std::none_of(parsed->etags.begin(), parsed->etags.end(),
                             [](const std::string& t) { return t.empty(); });
  if (tagged) {
    for (std::string& t : parsed->etags) page.versions.push_back(Unquote(t));
  }
  if (parsed->truncated) page.next_token = std::move(parsed->next_continuation_token);
  return page;
}

StatusOr<ListPage> S3Store::ListVersions(std::string_view prefix, std::string_view token,
                                         int max_keys) {
  CARLOS_ASSIGN_OR_RETURN(ListPage page, List(prefix, token, max_keys));
  if (page.versions.size() != page.keys.size()) {
    return Corrupt(fmt::format("{}: LIST {:?}: a <Contents> has no <ETag>", Describe(), prefix));
  }
  return page;
}

Status S3Store::Delete(std::string_view key) {
  CARLOS_RETURN_IF_ERROR(ValidateKey(key));
  Request req;
  req.method = "DELETE";
  req.key = std::string(key);
  req.what = fmt::format("DELETE {}", key);
  Response r = Execute(req, clock_->Now() + opts_.deadline);
  if (!r.failure.ok()) return r.failure;
  if (r.http == 204 || r.http == 200) return OkStatus();
  if (r.http == 404 && S3Code(r) != "NoSuchBucket") return OkStatus();
  return AnswerStatus(r, fmt::format("{}: {}", Describe(), req.what), opts_.bucket);
}

Status S3Store::CreateBucket() {
  Request req;
  req.method = "PUT";
  std::string config;
  if (opts_.endpoint.empty() && opts_.region != "us-east-1") {
    config = fmt::format(
        "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        "<LocationConstraint>{}</LocationConstraint></CreateBucketConfiguration>",
        opts_.region);
  }
  req.body = config;
  req.what = "create bucket";
  Response r = Execute(req, clock_->Now() + opts_.deadline);
  if (!r.failure.ok()) return r.failure;
  if (r.http == 200) return OkStatus();
  std::string code = S3Code(r);
  if (r.http == 409 && code == "BucketAlreadyOwnedByYou") return OkStatus();
  std::string where = fmt::format("{}: {}", Describe(), req.what);
  if (r.http == 409) return PreconditionFailed(fmt::format("{}: {}", where, Explain(r)));
  return AnswerStatus(r, where, opts_.bucket);
}

}  // namespace carlos

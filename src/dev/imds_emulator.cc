#include "dev/imds_emulator.h"

#include <openssl/rand.h>

#include <charconv>
#include <mutex>

#include "base/strings.h"
#include "identity/iid.h"
#include "net/http_server.h"

namespace carlos::dev {

namespace {

constexpr std::string_view kTokenPath = "/latest/api/token";
constexpr std::string_view kTtlHeader = "X-aws-ec2-metadata-token-ttl-seconds";
constexpr std::string_view kTokenHeader = "X-aws-ec2-metadata-token";
constexpr std::string_view kTagsPrefix = "/latest/meta-data/tags/instance/";
constexpr std::string_view kCredsPrefix = "/latest/meta-data/iam/security-credentials/";
constexpr int kMaxTtlSeconds = 21600;
constexpr size_t kMaxTokens = 10000;

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string RandomToken() {
  unsigned char raw[32];
  RAND_bytes(raw, sizeof raw);
  std::string b64(48, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(b64.data()), raw, sizeof raw);
  b64.resize(static_cast<size_t>(n));
  return "AQAEA" + b64;  // AWS's tokens start so; clients treat them as opaque.
}

std::string PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); i++) {
    if (s[i] == '%' && i + 2 < s.size()) {
      int v = 0;
      auto [p, ec] = std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16);
      if (ec == std::errc() && p == s.data() + i + 3) {
        out += static_cast<char>(v);
        i += 2;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

net::HttpResponse Text(int status, std::string body) {
  net::HttpResponse r;
  r.status = status;
  r.headers = {{"Content-Type", "text/plain"}, {"Server", "EC2ws"}};
  r.body = std::move(body);
  return r;
}

net::HttpResponse NotFoundAnswer() {
  // AWS's 404 body.
  return Text(404,
              "<?xml version=\"1.0\" encoding=\"iso-8859-1\"?>\n<!DOCTYPE html PUBLIC "
              "\"-//W3C//DTD XHTML 1.0 Transitional//EN\"\n\t\"http://www.w3.org/TR/xhtml1/DTD/"
              "xhtml1-transitional.dtd\">\n<html xmlns=\"http://www.w3.org/1999/xhtml\" "
              "xml:lang=\"en\" lang=\"en\">\n <head>\n  <title>404 - Not Found</title>\n "
              "</head>\n <body>\n  <h1>404 - Not Found</h1>\n </body>\n</html>\n");
}

}  // namespace

std::string InstanceIdentityDocumentJson(const EmulatedBox& b, SystemTime pending) {
  // The fields and layout of a real document (AWS EC2 User Guide,
  // "Instance identity documents"), keys in AWS's order.
  return "{\n"
         "  \"accountId\" : " +
         Quote(b.account_id) +
         ",\n"
         "  \"architecture\" : " +
         Quote(b.architecture) +
         ",\n"
         "  \"availabilityZone\" : " +
         Quote(b.availability_zone) +
         ",\n"
         "  \"billingProducts\" : null,\n"
         "  \"devpayProductCodes\" : null,\n"
         "  \"marketplaceProductCodes\" : null,\n"
         "  \"imageId\" : " +
         Quote(b.image_id) +
         ",\n"
         "  \"instanceId\" : " +
         Quote(b.instance_id) +
         ",\n"
         "  \"instanceType\" : " +
         Quote(b.instance_type) +
         ",\n"
         "  \"kernelId\" : null,\n"
         "  \"pendingTime\" : " +
         Quote(FormatRfc3339(pending)) +
         ",\n"
         "  \"privateIp\" : " +
         Quote(b.private_ip) +
         ",\n"
         "  \"ramdiskId\" : null,\n"
         "  \"region\" : " +
         Quote(b.region) +
         ",\n"
         "  \"version\" : \"2017-09-30\"\n"
         "}";
}

struct ImdsEmulator::Box {
  mutable std::mutex mu;
  EmulatedBox box;
  std::string document;
  std::string rsa2048;
  Clock* clock = nullptr;
  std::map<std::string, SystemTime> tokens;  // token -> expiry.
  int requests = 0;
  int fault_base = 0;  // Faults count requests from here (start, or the last Update).
  std::unique_ptr<net::HttpServer> server;

  net::HttpResponse Serve(const net::HttpRequest& r) {
    std::lock_guard<std::mutex> lock(mu);
    ++requests;
    int n = requests - fault_base;
    if (n <= box.fail_first) return Text(500, "injected failure\n");
    if (n <= box.fail_first + box.hang_first) {
      auto res = Answer(r);
      res.delay = box.hang_delay;
      return res;
    }
    return Answer(r);
  }

  net::HttpResponse Answer(const net::HttpRequest& req) {
    // IMDS treats "//latest/..." as "/latest/..." (AWS's JavaScript client
    // sends the former when the endpoint has no path).
    net::HttpRequest r = req;
    r.path.clear();
    for (char c : req.path) {
      if (!(c == '/' && !r.path.empty() && r.path.back() == '/')) r.path += c;
    }
    SystemTime now = clock->Now();
    if (r.path == kTokenPath) return TokenAnswer(r, now);
    if (r.method != "GET" && r.method != "HEAD") {
      auto res = Text(405, "method not allowed\n");
      res.headers.emplace_back("Allow", "GET, HEAD");
      return res;
    }
    if (r.HasHeader(kTokenHeader)) {
      auto it = tokens.find(r.Header(kTokenHeader));
      if (it == tokens.end() || now >= it->second) return Text(401, "");
    } else if (!box.allow_imdsv1) {
      return Text(401, "");
    }
    if (box.not_found.contains(r.path)) return NotFoundAnswer();
    return Metadata(r.path, now);
  }

  net::HttpResponse TokenAnswer(const net::HttpRequest& r, SystemTime now) {
    if (r.method != "PUT") {
      auto res = Text(405, "method not allowed\n");
      res.headers.emplace_back("Allow", "PUT");
      return res;
    }
    // IMDS refuses token requests that went through a proxy.
    if (r.HasHeader("X-Forwarded-For")) return Text(403, "Forbidden\n");
    std::string ttl_text = TrimSpace(r.Header(kTtlHeader));
    int ttl = 0;
    auto [p, ec] = std::from_chars(ttl_text.data(), ttl_text.data() + ttl_text.size(), ttl);
    if (ttl_text.empty() || ec != std::errc() || p != ttl_text.data() + ttl_text.size() ||
        ttl < 1 || ttl > kMaxTtlSeconds) {
      return Text(400, "Bad Request\n");
    }
    if (tokens.size() >= kMaxTokens) {
      std::erase_if(tokens, [&](const auto& kv) { return now >= kv.second; });
    }
    if (tokens.size() >= kMaxTokens) tokens.erase(tokens.begin());
    std::string token = RandomToken();
    tokens[token] = now + Seconds(ttl);
    auto res = Text(200, token);
    res.headers.emplace_back(std::string(kTtlHeader), std::to_string(ttl));
    return res;
  }

  net::HttpResponse Metadata(const std::string& path, SystemTime now) {
    if (path == "/latest/dynamic/instance-identity/document") {
      auto res = Text(200, document);
      return res;
    }
    if (path == "/latest/dynamic/instance-identity/rsa2048") return Text(200, rsa2048);
    if (path == "/latest/meta-data/instance-id") return Text(200, box.instance_id);
    if (path == "/latest/meta-data/placement/region") return Text(200, box.region);
    if (path == "/latest/meta-data/placement/availability-zone") {
      return Text(200, box.availability_zone);
    }
    if (path == "/latest/meta-data/instance-type") return Text(200, box.instance_type);
    if (path == "/latest/meta-data/ami-id") return Text(200, box.image_id);
    if (path == "/latest/meta-data/local-ipv4") return Text(200, box.private_ip);
    if (path == "/latest/meta-data" || path == "/latest/meta-data/") {
      std::string list = "ami-id\niam/\ninstance-id\ninstance-type\nlocal-ipv4\nplacement/";
      if (box.tags_enabled) list += "\ntags/";
      return Text(200, list);
    }
    if (path + "/" == kTagsPrefix || path.starts_with(kTagsPrefix)) {
      if (!box.tags_enabled) return NotFoundAnswer();
      std::string key = path.size() > kTagsPrefix.size()
                            ? PercentDecode(path.substr(kTagsPrefix.size()))
                            : std::string();
      if (key.empty()) {
        std::string list;
        for (const auto& [k, v] : box.tags) list += (list.empty() ? "" : "\n") + k;
        return Text(200, list);
      }
      auto it = box.tags.find(key);
      if (it == box.tags.end()) return NotFoundAnswer();
      return Text(200, it->second);
    }
    if (path + "/" == kCredsPrefix || path.starts_with(kCredsPrefix)) {
      if (box.role.empty()) return NotFoundAnswer();
      std::string role = path.size() > kCredsPrefix.size() ? path.substr(kCredsPrefix.size()) : "";
      if (role.empty()) return Text(200, box.role);
      if (role != box.role) return NotFoundAnswer();
      std::string body =
          "{\n  \"Code\" : \"Success\",\n  \"LastUpdated\" : " + Quote(FormatRfc3339(now)) +
          ",\n  \"Type\" : \"AWS-HMAC\",\n  \"AccessKeyId\" : " + Quote(box.access_key_id) +
          ",\n  \"SecretAccessKey\" : " + Quote(box.secret_access_key) +
          ",\n  \"Token\" : " + Quote(box.session_token) +
          ",\n  \"Expiration\" : " + Quote(FormatRfc3339(now + box.credentials_lifetime)) + "\n}";
      return Text(200, body);
    }
    return NotFoundAnswer();
  }
};

StatusOr<std::unique_ptr<ImdsEmulator>> ImdsEmulator::Start(ImdsEmulatorOptions options) {
  if (options.boxes.empty()) return InvalidArgument("IMDS emulator: no boxes");
  if (!options.clock) return InvalidArgument("IMDS emulator: no clock");
  if (options.base_port < 0 ||
      options.base_port + static_cast<int>(options.boxes.size()) - 1 > 65535) {
    return InvalidArgument("IMDS emulator: ports " + std::to_string(options.base_port) + ".." +
                           std::to_string(options.base_port + options.boxes.size() - 1) +
                           " are not all valid");
  }
  std::unique_ptr<ImdsEmulator> emu(new ImdsEmulator());
  emu->host_ = options.host;
  SystemTime pending = options.clock->Now();
  for (size_t i = 0; i < options.boxes.size(); i++) {
    auto b = std::make_unique<Box>();
    b->box = options.boxes[i];
    b->clock = options.clock;
    b->document = InstanceIdentityDocumentJson(b->box, pending);
    auto sig = identity::SignInstanceIdentityDocumentAsEmulator(b->document, options.cert_pem,
                                                                options.key_pem);
    if (!sig.ok()) return sig.status().Annotate("IMDS emulator");
    b->rsa2048 = *sig;
    net::HttpServer::Options so;
    int port = options.base_port == 0 ? 0 : options.base_port + static_cast<int>(i);
    bool v6 = options.host.find(':') != std::string::npos;
    so.address = (v6 ? "[" + options.host + "]" : options.host) + ":" + std::to_string(port);
    so.max_body_bytes = 4096;
    Box* raw = b.get();
    auto server =
        net::HttpServer::Start(so, [raw](const net::HttpRequest& r) { return raw->Serve(r); });
    if (!server.ok()) {
      return server.status().Annotate("IMDS emulator box " + std::to_string(i) + " (" +
                                      b->box.instance_id + ")");
    }
    b->server = std::move(server).value();
    emu->boxes_.push_back(std::move(b));
  }
  return emu;
}

ImdsEmulator::~ImdsEmulator() { Shutdown(); }

void ImdsEmulator::Shutdown() {
  for (auto& b : boxes_) {
    if (b->server) b->server->Shutdown();
  }
}

size_t ImdsEmulator::boxes() const { return boxes_.size(); }

int ImdsEmulator::port(size_t box) const { return boxes_.at(box)->server->port(); }

std::string ImdsEmulator::endpoint(size_t box) const {
  bool v6 = host_.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host_ + "]" : host_) + ":" + std::to_string(port(box));
}

std::string ImdsEmulator::document(size_t box) const {
  std::lock_guard<std::mutex> lock(boxes_.at(box)->mu);
  return boxes_.at(box)->document;
}

int ImdsEmulator::requests(size_t box) const {
  std::lock_guard<std::mutex> lock(boxes_.at(box)->mu);
  return boxes_.at(box)->requests;
}

void ImdsEmulator::Update(size_t box, const std::function<void(EmulatedBox&)>& change) {
  Box& b = *boxes_.at(box);
  std::lock_guard<std::mutex> lock(b.mu);
  change(b.box);
  b.fault_base = b.requests;
}

}  // namespace carlos::dev

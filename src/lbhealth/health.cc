#include "lbhealth/health.h"

namespace carlos::lbhealth {

Health::Health() : stage_(std::make_shared<const std::string>("joining")) {}

void Health::SetHosting(bool hosting) { hosting_.store(hosting, std::memory_order_release); }

bool Health::hosting() const { return hosting_.load(std::memory_order_acquire); }

void Health::SetStage(std::string_view stage) {
  std::string line(stage);
  for (char& c : line) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  stage_.store(std::make_shared<const std::string>(std::move(line)), std::memory_order_release);
}

std::string Health::stage() const { return *stage_.load(std::memory_order_acquire); }

Health& Default() {
  static Health* health = new Health();
  return *health;
}

std::optional<Response> Serve(const Request& request, const Health& health) {
  std::string_view path = request.target;
  if (size_t q = path.find('?'); q != std::string_view::npos) path = path.substr(0, q);
  if (path != kPath) return std::nullopt;
  Response r;
  r.headers = {{"Content-Type", "text/plain; charset=utf-8"}, {"Cache-Control", "no-store"}};
  bool head = request.method == "HEAD";
  if (request.method != "GET" && !head) {
    r.status_code = 405;
    r.headers.emplace_back("Allow", "GET, HEAD");
    r.body = "method not allowed\n";
  } else if (health.hosting()) {
    r.status_code = 200;
    r.body = "hosting\n";
  } else {
    r.status_code = 503;
    r.body = health.stage() + "\n";
  }
  r.content_length = r.body.size();
  if (head) r.body.clear();
  return r;
}

}  // namespace carlos::lbhealth

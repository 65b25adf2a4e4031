#include "dev/region_health.h"

#include <curl/curl.h>

#include <algorithm>

#include "base/strings.h"

namespace carlos::dev {

namespace {

constexpr size_t kMaxBody = 4096;

size_t Collect(char* data, size_t size, size_t n, void* user) {
  auto* body = static_cast<std::string*>(user);
  size_t len = size * n;
  if (body->size() < kMaxBody) body->append(data, std::min(len, kMaxBody - body->size()));
  return len;
}

}  // namespace

HealthAnswer ProbeHealth(const std::string& url, Milliseconds timeout) {
  HealthAnswer a;
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return {0, "curl_easy_init failed"};
  std::string body;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_PROXY, "");
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  CURLcode rc = curl_easy_perform(curl);
  if (rc != CURLE_OK) {
    a.text = rc == CURLE_COULDNT_CONNECT ? "no answer (connection refused)"
             : rc == CURLE_OPERATION_TIMEDOUT
                 ? "no answer (timed out)"
                 : std::string("no answer (") + curl_easy_strerror(rc) + ")";
  } else {
    long code = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
    a.code = static_cast<int>(code);
    a.text = TrimSpace(body.substr(0, body.find('\n')));
  }
  curl_easy_cleanup(curl);
  return a;
}

HealthPoller::HealthPoller(std::vector<std::string> urls, Milliseconds every, Milliseconds timeout)
    : latest_(urls.size(), HealthAnswer{0, "not asked yet"}) {
  for (size_t i = 0; i < urls.size(); ++i) {
    threads_.emplace_back([this, i, url = urls[i], every, timeout] {
      do {
        HealthAnswer a = ProbeHealth(url, timeout);
        std::lock_guard<std::mutex> lock(mu_);
        latest_[i] = std::move(a);
      } while (!stop_.WaitFor(every));
    });
  }
}

HealthPoller::~HealthPoller() {
  stop_.Request();
  for (auto& t : threads_) t.join();
}

std::vector<HealthAnswer> HealthPoller::Latest() const {
  std::lock_guard<std::mutex> lock(mu_);
  return latest_;
}

}  // namespace carlos::dev

// A tiny blocking HTTP client for the IMDS tests (libcurl), so that tests
// can send exactly the requests an IMDS client would, or would not.
#pragma once

#include <curl/curl.h>

#include <string>
#include <vector>

namespace carlos::testing {

struct TestReply {
  long status = 0;  // 0 when the request failed (timeout, refused).
  std::string body;
  std::string headers;
};

inline size_t TestAppend(char* d, size_t s, size_t n, void* u) {
  static_cast<std::string*>(u)->append(d, s * n);
  return s * n;
}

inline TestReply TestHttp(const std::string& method, const std::string& url,
                          const std::vector<std::string>& headers = {}, long timeout_ms = 5000) {
  TestReply r;
  CURL* c = curl_easy_init();
  curl_slist* hl = nullptr;
  for (const auto& h : headers) hl = curl_slist_append(hl, h.c_str());
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  if (method == "HEAD") curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  if (method == "PUT") {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, 0L);
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, TestAppend);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &r.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, TestAppend);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &r.headers);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_PROXY, "");
  if (curl_easy_perform(c) == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  curl_slist_free_all(hl);
  curl_easy_cleanup(c);
  return r;
}

}  // namespace carlos::testing

// The resident memory that the agent's libraries cost by themselves: a
// program that links what `carlos agent` links (libcurl, OpenSSL 3,
// libstdc++, spdlog and fmt) and does the one-time work every joining agent
// does (curl_global_init, as the S3 store and the IMDS client do; an Ed25519
// signature and its check and a SHA-256, as the guard-ready report and the
// invitation check do; one spdlog line), then prints its VmRSS in KiB.
// bench/agent_rss.sh prints it next to the agent's, so that the part of the
// agent's resident memory that is its own can be read off.
#include <curl/curl.h>
#include <openssl/evp.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <array>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

namespace {

bool SignAndVerify() {
  EVP_PKEY* key = nullptr;
  EVP_PKEY_CTX* kctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr);
  bool ok = kctx && EVP_PKEY_keygen_init(kctx) == 1 && EVP_PKEY_keygen(kctx, &key) == 1;
  EVP_PKEY_CTX_free(kctx);
  const std::string message = "{\"box\":\"floor-1\"}";
  const auto* bytes = reinterpret_cast<const unsigned char*>(message.data());
  std::array<unsigned char, 64> sig{};
  size_t sig_len = sig.size();
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  ok = ok && EVP_DigestSignInit(md, nullptr, nullptr, nullptr, key) == 1 &&
       EVP_DigestSign(md, sig.data(), &sig_len, bytes, message.size()) == 1;
  EVP_MD_CTX_reset(md);
  ok = ok && EVP_DigestVerifyInit(md, nullptr, nullptr, nullptr, key) == 1 &&
       EVP_DigestVerify(md, sig.data(), sig_len, bytes, message.size()) == 1;
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int digest_len = 0;
  ok = ok &&
       EVP_Digest(bytes, message.size(), digest.data(), &digest_len, EVP_sha256(), nullptr) == 1;
  EVP_MD_CTX_free(md);
  EVP_PKEY_free(key);
  return ok;
}

}  // namespace

int main() {
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    std::cerr << "library_floor: curl_global_init failed\n";
    return 1;
  }
  CURL* easy = curl_easy_init();
  if (easy == nullptr || !SignAndVerify()) {
    std::cerr << "library_floor: libcurl or OpenSSL failed\n";
    return 1;
  }
  curl_easy_cleanup(easy);
  // To stderr, as the agent logs (base/log.cc); stdout carries the number.
  spdlog::logger log("floor", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  log.info("library floor: libraries loaded and initialised");
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) {
      std::cout << std::stol(line.substr(6)) << "\n";
      return 0;
    }
  }
  std::cerr << "library_floor: no VmRSS in /proc/self/status\n";
  return 1;
}

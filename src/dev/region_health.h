// What the load balancer sees of each box: `GET /_carlos/lb` on
// the box's -http address (DESIGN.md, "Health check (lbhealth)"), asked
// the way a load balancer asks, with a short timeout.
//
// Thread-safety: ProbeHealth is safe from any thread. HealthPoller's
// methods are safe from any thread; its probes run on its own threads.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"

namespace carlos::dev {

// One answer: the HTTP status (0 when none came: refused, timed out) and
// the body's first line ("hosting", "joining: invited", "draining"), or,
// with code 0, why there was no answer ("connection refused").
struct HealthAnswer {
  int code = 0;
  std::string text;
  bool operator==(const HealthAnswer&) const = default;
};

// GETs `url` (e.g. "http://127.0.0.1:8401/_carlos/lb") with libcurl,
// giving up after `timeout`; reads at most 4 KiB of body. Never fails: a
// failure is an answer with code 0.
HealthAnswer ProbeHealth(const std::string& url, Milliseconds timeout);

// Probes each URL every `every` on its own thread (a box that hangs does
// not delay the others) and keeps the latest answer of each.
class HealthPoller {
 public:
  // Starts the threads. Each URL's answer is {0, "not asked yet"} until its
  // first probe returns.
  HealthPoller(std::vector<std::string> urls, Milliseconds every, Milliseconds timeout);
  // Stops and joins the threads (at most about one timeout).
  ~HealthPoller();
  HealthPoller(const HealthPoller&) = delete;
  HealthPoller& operator=(const HealthPoller&) = delete;

  // The latest answers, in the URLs' order.
  std::vector<HealthAnswer> Latest() const;

 private:
  mutable std::mutex mu_;
  std::vector<HealthAnswer> latest_;
  Stop stop_;
  std::vector<std::thread> threads_;
};

}  // namespace carlos::dev

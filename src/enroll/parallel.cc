#include "enroll/parallel.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace carlos::enroll {

void ParallelFor(size_t n, int workers, const std::function<void(size_t)>& fn) {
  size_t threads = std::min(n, static_cast<size_t>(std::max(workers, 1)));
  if (threads <= 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  // Work is handed out one index at a time, so a slow request on one box
  // does not hold a fixed share of the others back.
  std::atomic<size_t> next{0};
  auto run = [&] {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) fn(i);
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(run);
  run();
  for (auto& t : pool) t.join();
}

}  // namespace carlos::enroll

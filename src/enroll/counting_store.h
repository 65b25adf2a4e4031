// A Store decorator that counts the requests made through it, so that tests
// and bench/enroll_bench.cc can hold the enroller to its budget (at most 4
// store requests per box in a pass with nothing to do; docs/enroll.md).
//
// Thread-safety: as the wrapped store; the counters are atomics.
#pragma once

#include <atomic>
#include <cstdint>

#include "store/store.h"

namespace carlos::enroll {

// The requests counted so far, by kind. A List call is one request (one
// page); a Put counts whether or not its condition held.
struct StoreCounts {
  int64_t gets = 0;
  int64_t puts = 0;
  int64_t lists = 0;
  int64_t deletes = 0;
  int64_t total() const { return gets + puts + lists + deletes; }
};

class CountingStore : public Store {
 public:
  // Wraps `inner`, which must outlive this object.
  explicit CountingStore(Store* inner) : inner_(inner) {}

  StatusOr<Object> Get(std::string_view key) override;
  StatusOr<std::string> Put(std::string_view key, std::string_view data,
                            const PutOptions& options) override;
  StatusOr<ListPage> List(std::string_view prefix, std::string_view token, int max_keys) override;
  Status Delete(std::string_view key) override;
  std::string Describe() const override { return inner_->Describe(); }

  // The counts since construction or the last Reset.
  StoreCounts counts() const;
  // Sets every count to zero.
  void Reset();

 private:
  Store* inner_;
  std::atomic<int64_t> gets_{0}, puts_{0}, lists_{0}, deletes_{0};
};

}  // namespace carlos::enroll

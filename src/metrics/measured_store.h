// A Store decorator that counts every request made through it by kind
// (counts(): tests and bench/enroll_bench.cc hold the enroller to its
// budget of at most 4 store requests per box in a pass with nothing to do;
// docs/enroll.md) and, given StoreMetrics, counts and times each into a
// Registry (docs/operator.md, "Metrics"):
//
//   carlos_store_requests_total{operation,outcome}
//   carlos_store_request_duration_seconds{operation}  (histogram)
//   carlos_store_last_successful_read_timestamp_seconds
//
// operation is get, put, list or delete; outcome is the Status code's name
// with '_' for ' ' (ok, not_found, precondition_failed, unavailable, ...;
// base/status.h), so the labels are bounded. A Get that answers not_found
// counts as a successful read (the store answered); a conditional get
// answered "not modified" (GetIfNoneMatch) is outcome not_modified.
//
// Thread-safety: as the wrapped store; the metrics are thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "base/clock.h"
#include "metrics/registry.h"
#include "store/store.h"

namespace carlos::metrics {

// The families a MeasuredStore records into; add them to a registry once
// and share them between every MeasuredStore of the process.
struct StoreMetrics {
  explicit StoreMetrics(Registry& registry);
  Family<Counter>* requests;
  Family<Histogram>* duration;
  Family<Gauge>* last_read;
};

// The requests counted so far, by kind. A List call is one request (one
// page); a Put counts whether or not its condition held.
struct StoreCounts {
  int64_t gets = 0;
  int64_t puts = 0;
  int64_t lists = 0;
  int64_t deletes = 0;
  // Of the gets, the conditional ones answered "not modified" (no bytes).
  int64_t not_modified = 0;
  int64_t total() const { return gets + puts + lists + deletes; }
};

// Status code names as label values: "not found" -> "not_found".
std::string OutcomeLabel(const Status& status);

class MeasuredStore : public Store {
 public:
  // Wraps `inner` (shared: the store lives as long as both). `metrics` and
  // `clock` (for the last read's wall time) must outlive this object.
  MeasuredStore(std::shared_ptr<Store> inner, StoreMetrics* metrics, Clock* clock)
      : owned_(std::move(inner)), inner_(owned_.get()), metrics_(metrics), clock_(clock) {}
  // Wraps `inner`, which must outlive this object; only counts() unless
  // `metrics` (and then `clock`) are given.
  explicit MeasuredStore(Store* inner, StoreMetrics* metrics = nullptr, Clock* clock = nullptr)
      : inner_(inner), metrics_(metrics), clock_(clock) {}

  StatusOr<Object> Get(std::string_view key) override;
  // Forwarded to the wrapped store's (so an S3 store still answers 304);
  // counted as a get, outcome "not_modified" when it is.
  StatusOr<Revalidated> GetIfNoneMatch(std::string_view key, std::string_view version) override;
  StatusOr<std::string> Put(std::string_view key, std::string_view data,
                            const PutOptions& options) override;
  StatusOr<ListPage> List(std::string_view prefix, std::string_view token, int max_keys) override;
  // Forwards to the inner store's ListVersions; counts as one list request
  // (operation "list"), as it is one request on S3. (A store whose
  // ListVersions is the default reads each key too; those reads go to the
  // inner store and are not counted here.)
  StatusOr<ListPage> ListVersions(std::string_view prefix, std::string_view token,
                                  int max_keys) override;
  Status Delete(std::string_view key) override;
  std::string Describe() const override { return inner_->Describe(); }

  // The counts since construction or the last Reset.
  StoreCounts counts() const;
  // Sets every count to zero (not the registry's counters, which only rise).
  void Reset();

 private:
  void Record(const char* operation, const Status& status, double seconds, bool read,
              bool not_modified = false);
  // List or ListVersions of the inner store, counted as one list request.
  StatusOr<ListPage> CountedList(bool versions, std::string_view prefix, std::string_view token,
                                 int max_keys);

  std::shared_ptr<Store> owned_;
  Store* inner_;
  StoreMetrics* metrics_;
  Clock* clock_;
  std::atomic<int64_t> gets_{0}, puts_{0}, lists_{0}, deletes_{0}, not_modified_{0};
};

// Registers carlos_build_info{version,commit} 1 (the release and the
// build's git commit, "" when built outside a checkout).
void AddBuildInfo(Registry& registry);

}  // namespace carlos::metrics

#include "metrics/measured_store.h"

#include <chrono>

namespace carlos::metrics {

namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

StoreMetrics::StoreMetrics(Registry& registry)
    : requests(registry.AddCounter("carlos_store_requests_total",
                                   "Deployment store requests, by operation and outcome.",
                                   {"operation", "outcome"})),
      duration(registry.AddHistogram("carlos_store_request_duration_seconds",
                                     "Deployment store request latency, by operation.",
                                     {"operation"})),
      last_read(registry.AddGauge("carlos_store_last_successful_read_timestamp_seconds",
                                  "Unix time of the last store read the store answered.")) {}

std::string OutcomeLabel(const Status& status) {
  std::string s(CodeName(status.code()));
  for (char& c : s) {
    if (c == ' ') c = '_';
  }
  return s;
}

StoreCounts MeasuredStore::counts() const {
  return StoreCounts{gets_.load(), puts_.load(), lists_.load(), deletes_.load(),
                     not_modified_.load()};
}

void MeasuredStore::Reset() {
  gets_.store(0);
  puts_.store(0);
  lists_.store(0);
  deletes_.store(0);
  not_modified_.store(0);
}

void MeasuredStore::Record(const char* operation, const Status& status, double seconds, bool read,
                           bool not_modified) {
  if (!metrics_) return;
  metrics_->requests->With({operation, not_modified ? "not_modified" : OutcomeLabel(status)})
      ->Increment();
  metrics_->duration->With({operation})->Observe(seconds);
  if (read && (status.ok() || status.code() == Code::kNotFound)) {
    metrics_->last_read->With({})->Set(UnixSeconds(*clock_));
  }
}

StatusOr<Object> MeasuredStore::Get(std::string_view key) {
  gets_.fetch_add(1, std::memory_order_relaxed);
  auto start = std::chrono::steady_clock::now();
  StatusOr<Object> r = inner_->Get(key);
  Record("get", r.status(), SecondsSince(start), true);
  return r;
}

StatusOr<Revalidated> MeasuredStore::GetIfNoneMatch(std::string_view key,
                                                    std::string_view version) {
  gets_.fetch_add(1, std::memory_order_relaxed);
  auto start = std::chrono::steady_clock::now();
  StatusOr<Revalidated> r = inner_->GetIfNoneMatch(key, version);
  const bool same = r.ok() && r->not_modified;
  if (same) not_modified_.fetch_add(1, std::memory_order_relaxed);
  Record("get", r.status(), SecondsSince(start), true, same);
  return r;
}

StatusOr<std::string> MeasuredStore::Put(std::string_view key, std::string_view data,
                                         const PutOptions& options) {
  puts_.fetch_add(1, std::memory_order_relaxed);
  auto start = std::chrono::steady_clock::now();
  StatusOr<std::string> r = inner_->Put(key, data, options);
  Record("put", r.status(), SecondsSince(start), false);
  return r;
}

StatusOr<ListPage> MeasuredStore::List(std::string_view prefix, std::string_view token,
                                       int max_keys) {
  return CountedList(false, prefix, token, max_keys);
}

StatusOr<ListPage> MeasuredStore::ListVersions(std::string_view prefix, std::string_view token,
                                               int max_keys) {
  return CountedList(true, prefix, token, max_keys);
}

StatusOr<ListPage> MeasuredStore::CountedList(bool versions, std::string_view prefix,
                                              std::string_view token, int max_keys) {
  lists_.fetch_add(1, std::memory_order_relaxed);
  auto start = std::chrono::steady_clock::now();
  StatusOr<ListPage> r = versions ? inner_->ListVersions(prefix, token, max_keys)
                                  : inner_->List(prefix, token, max_keys);
  Record("list", r.status(), SecondsSince(start), true);
  return r;
}

Status MeasuredStore::Delete(std::string_view key) {
  deletes_.fetch_add(1, std::memory_order_relaxed);
  auto start = std::chrono::steady_clock::now();
  Status r = inner_->Delete(key);
  Record("delete", r, SecondsSince(start), false);
  return r;
}

}  // namespace carlos::metrics

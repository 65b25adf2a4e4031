// Counters, gauges and histograms with bounded labels, and their exposition
// in the Prometheus text format, version 0.0.4
// (prometheus.io/docs/instrumenting/exposition_formats/, "Text-based
// format"). Names and units follow prometheus.io/docs/practices/naming/:
// counters end in _total, durations are seconds.
//
//   Registry registry;
//   auto* requests = registry.AddCounter("carlos_store_requests_total",
//                                        "Store requests.", {"operation", "outcome"});
//   requests->With({"get", "ok"})->Increment();
//   std::string text = registry.Render();
//
// Bounded labels: each family holds at most Registry::kMaxSeries label
// value sets; a further set is counted under one series whose every label
// value is "other" (so a mistake cannot grow a scrape without bound).
//
// Thread-safety: every method of every class here is safe from many
// threads; Render sees each series' value at one instant (a histogram's
// buckets, sum and count together).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/check.h"
#include "base/clock.h"
#include "base/mutex.h"

namespace carlos::metrics {

// A value that only rises (a count of events).
class Counter {
 public:
  void Increment(double by = 1) { value_.fetch_add(by, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// A value that goes up and down (a current state: 1 or 0, a time).
class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  void Add(double by) { value_.fetch_add(by, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// Observations (durations in seconds) counted into buckets with the given
// upper bounds (ascending; +Inf is implied).
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void Observe(double value);

  struct Snapshot {
    std::vector<uint64_t> cumulative;  // One per bound, then +Inf.
    double sum = 0;
    uint64_t count = 0;
  };
  Snapshot snapshot() const;
  const std::vector<double>& bounds() const { return bounds_; }

 private:
  const std::vector<double> bounds_;
  mutable Mutex mu_;
  std::vector<uint64_t> counts_ CARLOS_GUARDED_BY(mu_);  // Per bucket, not cumulative.
  double sum_ CARLOS_GUARDED_BY(mu_) = 0;
};

// `clock`'s now as Unix seconds, the unit of every *_timestamp_seconds
// gauge.
double UnixSeconds(Clock& clock);

// Bucket bounds for request latencies, seconds: 1 ms to 30 s.
std::vector<double> LatencyBuckets();

enum class Type { kCounter, kGauge, kHistogram };

// A metric name with its help, type and label names, holding one series of
// T per set of label values.
template <typename T>
class Family {
 public:
  Family(std::vector<std::string> label_names, std::function<std::unique_ptr<T>()> make)
      : label_names_(std::move(label_names)), make_(std::move(make)) {}

  // The series for these label values (one per label name, in order; a
  // wrong count is a programming error and aborts). The pointer stays valid
  // as long as the registry.
  T* With(const std::vector<std::string>& values);

  // Every series, label values to series, ordered by label values.
  std::vector<std::pair<std::vector<std::string>, const T*>> series() const;
  const std::vector<std::string>& label_names() const { return label_names_; }

 private:
  const std::vector<std::string> label_names_;
  const std::function<std::unique_ptr<T>()> make_;
  mutable Mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<T>> series_ CARLOS_GUARDED_BY(mu_);
};

class Registry {
 public:
  static constexpr size_t kMaxSeries = 64;

  // Each Add registers a family; a name must be new, a valid Prometheus
  // metric name ([a-zA-Z_:][a-zA-Z0-9_:]*), and its label names valid
  // ([a-zA-Z_][a-zA-Z0-9_]*, not "le" on a histogram); otherwise aborts
  // (a programming error). The families live as long as the registry.
  Family<Counter>* AddCounter(std::string name, std::string help,
                              std::vector<std::string> label_names = {});
  Family<Gauge>* AddGauge(std::string name, std::string help,
                          std::vector<std::string> label_names = {});
  Family<Histogram>* AddHistogram(std::string name, std::string help,
                                  std::vector<std::string> label_names,
                                  std::vector<double> bounds = LatencyBuckets());
  // A gauge without labels whose value `read` computes at each Render
  // (seconds in a stage, open connections). `read` runs on the rendering
  // thread and must be thread-safe.
  void AddGaugeFunc(std::string name, std::string help, std::function<double()> read);

  // The text exposition (format 0.0.4) of every family, in the order added:
  // "# HELP", "# TYPE", then one line per series ("name{l=\"v\"} value"),
  // histograms as _bucket{le=...}, _sum and _count. A family with labels
  // and no series yet has its HELP and TYPE lines only.
  std::string Render() const;

 private:
  struct Entry {
    std::string name;
    std::string help;
    Type type = Type::kCounter;
    std::unique_ptr<Family<Counter>> counters;
    std::unique_ptr<Family<Gauge>> gauges;
    std::unique_ptr<Family<Histogram>> histograms;
    std::function<double()> read;
  };
  // Checks the name and labels and appends an entry for them.
  Entry& Push(std::string name, std::string help, Type type,
              const std::vector<std::string>& label_names) CARLOS_REQUIRES(mu_);
  void CheckNew(const std::string& name, const std::vector<std::string>& label_names,
                Type type) const CARLOS_REQUIRES(mu_);

  mutable Mutex mu_;
  std::vector<Entry> entries_ CARLOS_GUARDED_BY(mu_);
};

// The Content-Type of Render's text.
inline constexpr char kContentType[] = "text/plain; version=0.0.4; charset=utf-8";

// How a sample value is written: integers without a fraction ("3"),
// others shortest round-trip ("0.25"), "+Inf", "-Inf", "NaN".
std::string FormatValue(double v);

template <typename T>
T* Family<T>::With(const std::vector<std::string>& values) {
  CARLOS_CHECK(values.size() == label_names_.size(), "one value per label name");
  MutexLock lock(&mu_);
  auto it = series_.find(values);
  if (it != series_.end()) return it->second.get();
  if (series_.size() >= Registry::kMaxSeries) {
    std::vector<std::string> other(values.size(), "other");
    auto& slot = series_[other];
    if (!slot) slot = make_();
    return slot.get();
  }
  auto& slot = series_[values];
  slot = make_();
  return slot.get();
}

template <typename T>
std::vector<std::pair<std::vector<std::string>, const T*>> Family<T>::series() const {
  MutexLock lock(&mu_);
  std::vector<std::pair<std::vector<std::string>, const T*>> out;
  for (const auto& [k, v] : series_) out.emplace_back(k, v.get());
  return out;
}

}  // namespace carlos::metrics

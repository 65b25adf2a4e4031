#include "metrics/registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace carlos::metrics {

namespace {

bool ValidName(const std::string& s, bool colon) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':') ||
              (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

// HELP text escapes backslash and newline; label values also the double
// quote (the format's "Text format details").
std::string Escape(std::string_view s, bool quote) {
  std::string out;
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Labels(const std::vector<std::string>& names, const std::vector<std::string>& values,
                   const std::string& le = "") {
  if (names.empty() && le.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ',';
    out += fmt::format("{}=\"{}\"", names[i], Escape(values[i], true));
  }
  if (!le.empty()) out += fmt::format("{}le=\"{}\"", names.empty() ? "" : ",", le);
  out += '}';
  return out;
}

void Header(std::string& out, const std::string& name, const std::string& help, const char* type) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, Escape(help, false), name, type);
}

}  // namespace

std::string FormatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::trunc(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{}", v);
}

double UnixSeconds(Clock& clock) {
  return std::chrono::duration<double>(clock.Now().time_since_epoch()).count();
}

std::vector<double> LatencyBuckets() {
  return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
}

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {
  CARLOS_CHECK(std::is_sorted(bounds_.begin(), bounds_.end()) &&
                   std::adjacent_find(bounds_.begin(), bounds_.end()) == bounds_.end(),
               "histogram bounds ascend strictly");
}

void Histogram::Observe(double value) {
  // The first bucket whose upper bound (inclusive: "le") holds the value.
  size_t i = std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin();
  MutexLock lock(&mu_);
  ++counts_[i];
  sum_ += value;
}

Histogram::Snapshot Histogram::snapshot() const {
  Snapshot s;
  MutexLock lock(&mu_);
  uint64_t running = 0;
  for (uint64_t c : counts_) {
    running += c;
    s.cumulative.push_back(running);
  }
  s.sum = sum_;
  s.count = running;
  return s;
}

void Registry::CheckNew(const std::string& name, const std::vector<std::string>& label_names,
                        Type type) const {
  CARLOS_CHECK(ValidName(name, true), "a metric name matches [a-zA-Z_:][a-zA-Z0-9_:]*");
  for (const auto& e : entries_) CARLOS_CHECK(e.name != name, "a metric name is registered once");
  for (const auto& l : label_names) {
    CARLOS_CHECK(ValidName(l, false) && l.rfind("__", 0) != 0,
                 "a label name matches [a-zA-Z_][a-zA-Z0-9_]* and does not start with __");
    CARLOS_CHECK(type != Type::kHistogram || l != "le", "a histogram has no label named le");
  }
}

Registry::Entry& Registry::Push(std::string name, std::string help, Type type,
                                const std::vector<std::string>& label_names) {
  CheckNew(name, label_names, type);
  Entry& e = entries_.emplace_back();
  e.name = std::move(name);
  e.help = std::move(help);
  e.type = type;
  return e;
}

Family<Counter>* Registry::AddCounter(std::string name, std::string help,
                                      std::vector<std::string> label_names) {
  MutexLock lock(&mu_);
  Entry& e = Push(std::move(name), std::move(help), Type::kCounter, label_names);
  e.counters = std::make_unique<Family<Counter>>(std::move(label_names),
                                                 [] { return std::make_unique<Counter>(); });
  return e.counters.get();
}

Family<Gauge>* Registry::AddGauge(std::string name, std::string help,
                                  std::vector<std::string> label_names) {
  MutexLock lock(&mu_);
  Entry& e = Push(std::move(name), std::move(help), Type::kGauge, label_names);
  e.gauges = std::make_unique<Family<Gauge>>(std::move(label_names),
                                             [] { return std::make_unique<Gauge>(); });
  return e.gauges.get();
}

Family<Histogram>* Registry::AddHistogram(std::string name, std::string help,
                                          std::vector<std::string> label_names,
                                          std::vector<double> bounds) {
  MutexLock lock(&mu_);
  Entry& e = Push(std::move(name), std::move(help), Type::kHistogram, label_names);
  e.histograms = std::make_unique<Family<Histogram>>(
      std::move(label_names), [bounds] { return std::make_unique<Histogram>(bounds); });
  return e.histograms.get();
}

void Registry::AddGaugeFunc(std::string name, std::string help, std::function<double()> read) {
  CARLOS_CHECK(read != nullptr, "a gauge function is set");
  MutexLock lock(&mu_);
  Push(std::move(name), std::move(help), Type::kGauge, {}).read = std::move(read);
}

std::string Registry::Render() const {
  MutexLock lock(&mu_);
  std::string out;
  for (const auto& e : entries_) {
    if (e.read) {
      Header(out, e.name, e.help, "gauge");
      out += fmt::format("{} {}\n", e.name, FormatValue(e.read()));
    } else if (e.counters) {
      Header(out, e.name, e.help, "counter");
      for (const auto& [values, c] : e.counters->series())
        out += fmt::format("{}{} {}\n", e.name, Labels(e.counters->label_names(), values),
                           FormatValue(c->value()));
    } else if (e.gauges) {
      Header(out, e.name, e.help, "gauge");
      for (const auto& [values, g] : e.gauges->series())
        out += fmt::format("{}{} {}\n", e.name, Labels(e.gauges->label_names(), values),
                           FormatValue(g->value()));
    } else {
      Header(out, e.name, e.help, "histogram");
      const auto& names = e.histograms->label_names();
      for (const auto& [values, h] : e.histograms->series()) {
        Histogram::Snapshot s = h->snapshot();
        for (size_t i = 0; i < s.cumulative.size(); ++i) {
          std::string le = i < h->bounds().size() ? FormatValue(h->bounds()[i]) : "+Inf";
          out +=
              fmt::format("{}_bucket{} {}\n", e.name, Labels(names, values, le), s.cumulative[i]);
        }
        out += fmt::format("{}_sum{} {}\n", e.name, Labels(names, values), FormatValue(s.sum));
        out += fmt::format("{}_count{} {}\n", e.name, Labels(names, values), s.count);
      }
    }
  }
  return out;
}

}  // namespace carlos::metrics

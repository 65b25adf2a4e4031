#include "base/clock.h"

#include <fmt/format.h>

#include <cstdio>
#include <ctime>

namespace carlos {

void Stop::Request() {
  {
    MutexLock lock(&mu_);
    requested_ = true;
  }
  cv_.notify_all();
  MutexLock lock(&callbacks_mu_);
  for (auto& [id, fn] : callbacks_) fn();
  callbacks_.clear();
}

int Stop::OnRequest(std::function<void()> fn) const {
  {
    MutexLock lock(&callbacks_mu_);
    // Checked under callbacks_mu_: a Request that set the flag before this
    // either already ran (and cleared) the list, or runs it after we add.
    if (!requested()) {
      callbacks_.emplace_back(next_id_, std::move(fn));
      return next_id_++;
    }
  }
  fn();
  return -1;
}

void Stop::Forget(int id) const {
  MutexLock lock(&callbacks_mu_);
  std::erase_if(callbacks_, [id](const auto& c) { return c.first == id; });
}

bool Stop::requested() const {
  MutexLock lock(&mu_);
  return requested_;
}

bool Stop::WaitFor(Milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  MutexLock lock(&mu_);
  // condition_variable_any unlocks and relocks mu_ itself around each wait.
  while (!requested_) {
    if (cv_.wait_until(mu_, deadline) == std::cv_status::timeout) return requested_;
  }
  return true;
}

namespace {

class SystemClock : public Clock {
 public:
  SystemTime Now() override { return std::chrono::system_clock::now(); }
  bool Sleep(Milliseconds d, const Stop& stop) override { return !stop.WaitFor(d); }
};

}  // namespace

Clock* RealClock() {
  static SystemClock* clock = new SystemClock();
  return clock;
}

FakeClock::FakeClock(SystemTime start) : now_(start) {}

SystemTime FakeClock::Now() {
  MutexLock lock(&mu_);
  return now_;
}

bool FakeClock::Sleep(Milliseconds d, const Stop& stop) {
  if (stop.requested()) return false;
  std::function<void(SystemTime)> hook;
  SystemTime now;
  {
    MutexLock lock(&mu_);
    now_ += d;
    ++sleeps_;
    hook = hook_;
    now = now_;
  }
  if (hook) hook(now);
  return !stop.requested();
}

void FakeClock::Advance(Milliseconds d) {
  MutexLock lock(&mu_);
  now_ += d;
}

void FakeClock::OnSleep(std::function<void(SystemTime)> hook) {
  MutexLock lock(&mu_);
  hook_ = std::move(hook);
}

int FakeClock::sleeps() const {
  MutexLock lock(&mu_);
  return sleeps_;
}

namespace {

// Splits `t` into UTC calendar fields and nanoseconds within the second.
void Split(SystemTime t, std::tm* tm, long long* nanos) {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  long long secs = ns / 1000000000LL;
  long long frac = ns % 1000000000LL;
  if (frac < 0) {
    frac += 1000000000LL;
    --secs;
  }
  std::time_t tt = static_cast<std::time_t>(secs);
  gmtime_r(&tt, tm);
  *nanos = frac;
}

}  // namespace

std::string FormatRfc3339(SystemTime t) {
  std::tm tm{};
  long long nanos = 0;
  Split(t, &tm, &nanos);
  return fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

std::string FormatRfc3339Nano(SystemTime t) {
  std::tm tm{};
  long long nanos = 0;
  Split(t, &tm, &nanos);
  std::string out = fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}", tm.tm_year + 1900,
                                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  if (nanos != 0) {
    std::string frac = fmt::format("{:09d}", nanos);
    while (!frac.empty() && frac.back() == '0') frac.pop_back();
    out += "." + frac;
  }
  return out + "Z";
}

bool ParseRfc3339(std::string_view s, SystemTime* out) {
  // YYYY-MM-DDTHH:MM:SS[.fffffffff]Z
  if (s.size() < 20 || s.back() != 'Z') return false;
  auto digits = [&](size_t pos, size_t n, int* v) {
    if (pos + n > s.size()) return false;
    int x = 0;
    for (size_t i = pos; i < pos + n; ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      x = x * 10 + (s[i] - '0');
    }
    *v = x;
    return true;
  };
  int year, mon, day, hour, min, sec;
  if (!digits(0, 4, &year) || s[4] != '-' || !digits(5, 2, &mon) || s[7] != '-' ||
      !digits(8, 2, &day) || (s[10] != 'T' && s[10] != 't') || !digits(11, 2, &hour) ||
      s[13] != ':' || !digits(14, 2, &min) || s[16] != ':' || !digits(17, 2, &sec)) {
    return false;
  }
  long long nanos = 0;
  size_t pos = 19;
  if (s[pos] == '.') {
    ++pos;
    size_t start = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') ++pos;
    size_t n = pos - start;
    if (n == 0 || n > 9) return false;
    for (size_t i = 0; i < 9; ++i) nanos = nanos * 10 + (i < n ? s[start + i] - '0' : 0);
  }
  if (pos != s.size() - 1) return false;
  // Protocol times live in 1970-2200 (docs/protocol.md); the bound also
  // keeps the nanosecond count inside SystemTime's 64 bits.
  if (year < 1970 || year > 2200) return false;
  if (mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 60) return false;
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = mon - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = min;
  tm.tm_sec = sec;
  std::time_t tt = timegm(&tm);
  if (tt == static_cast<std::time_t>(-1)) return false;
  // timegm normalises out-of-range days (Feb 31): refuse those.
  std::tm check{};
  gmtime_r(&tt, &check);
  if (check.tm_mday != day && sec != 60) return false;
  *out = SystemTime(std::chrono::seconds(tt)) +
         std::chrono::duration_cast<SystemTime::duration>(std::chrono::nanoseconds(nanos));
  return true;
}

std::string FormatDuration(Milliseconds d) {
  long long ms = d.count();
  std::string sign;
  if (ms < 0) {
    sign = "-";
    ms = -ms;
  }
  if (ms == 0) return "0s";
  if (ms < 1000) return sign + fmt::format("{}ms", ms);
  long long h = ms / 3600000, m = (ms / 60000) % 60, s = (ms / 1000) % 60, rest = ms % 1000;
  std::string secs =
      rest ? fmt::format("{}.{}", s, fmt::format("{:03d}", rest)) : fmt::format("{}", s);
  if (rest) {
    while (secs.back() == '0') secs.pop_back();
  }
  if (h) return sign + fmt::format("{}h{}m{}s", h, m, secs);
  if (m) return sign + fmt::format("{}m{}s", m, secs);
  return sign + secs + "s";
}

}  // namespace carlos

#include "host/event_wake.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/files.h"

namespace carlos::host {

namespace {

constexpr uint32_t kMask = IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE |
                           IN_DELETE_SELF | IN_MOVE_SELF;

}  // namespace

StatusOr<std::unique_ptr<EventWake>> EventWake::Open(std::vector<Watch> watches) {
  int ino = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (ino < 0) return ErrnoStatus(errno, "inotify_init1", "the joining loop's wake");
  int ev = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (ev < 0) {
    int e = errno;
    ::close(ino);
    return ErrnoStatus(e, "eventfd", "the joining loop's wake");
  }
  std::unique_ptr<EventWake> w(new EventWake(ino, ev, std::move(watches)));
  w->AddWatches();
  return w;
}

EventWake::EventWake(int inotify_fd, int event_fd, std::vector<Watch> watches)
    : inotify_fd_(inotify_fd),
      event_fd_(event_fd),
      watches_(std::move(watches)),
      wds_(watches_.size(), -1) {}

EventWake::~EventWake() {
  ::close(inotify_fd_);
  ::close(event_fd_);
}

bool EventWake::AddWatches() {
  bool added = false;
  for (size_t i = 0; i < watches_.size(); ++i) {
    const int before = wds_[i];
    wds_[i] = ::inotify_add_watch(inotify_fd_, watches_[i].dir.c_str(), kMask | IN_ONLYDIR);
    if (before < 0 && wds_[i] >= 0) added = true;
  }
  return added;
}

int EventWake::watching() const {
  return static_cast<int>(std::count_if(wds_.begin(), wds_.end(), [](int wd) { return wd >= 0; }));
}

bool EventWake::Drain() {
  alignas(inotify_event) char buf[8192];
  bool relevant = false;
  for (;;) {
    ssize_t n = ::read(inotify_fd_, buf, sizeof buf);
    if (n <= 0) break;  // EAGAIN: all read.
    for (ssize_t off = 0; off < n;) {
      auto* e = reinterpret_cast<const inotify_event*>(buf + off);
      off += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
      if (e->mask & IN_Q_OVERFLOW) {
        relevant = true;  // Events were lost: look.
        continue;
      }
      for (size_t i = 0; i < watches_.size(); ++i) {
        if (wds_[i] != e->wd) continue;
        if (e->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)) {
          wds_[i] = -1;  // Gone: watched again once it is back.
          relevant = true;
          continue;
        }
        const std::set<std::string>& names = watches_[i].names;
        if (names.empty() || (e->len > 0 && names.count(e->name))) relevant = true;
      }
    }
  }
  return relevant;
}

Woke EventWake::Wait(Milliseconds d, const Stop& stop) {
  // A directory watched only from now on may already hold what its
  // parent's event announced: look once more before waiting.
  if (AddWatches()) return stop.requested() ? Woke::kStopped : Woke::kEvent;
  const int id = stop.OnRequest([this] { Notify(); });
  const auto deadline = std::chrono::steady_clock::now() + d;
  Woke woke = Woke::kTimeout;
  for (;;) {
    if (stop.requested()) {
      woke = Woke::kStopped;
      break;
    }
    auto left =
        std::chrono::duration_cast<Milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left <= Milliseconds(0)) break;
    pollfd fds[2] = {{inotify_fd_, POLLIN, 0}, {event_fd_, POLLIN, 0}};
    int n = ::poll(fds, 2, static_cast<int>(std::min<int64_t>(left.count() + 1, 1 << 30)));
    if (n < 0 && errno != EINTR) {
      // Cannot wait on them (never expected): wait out the time, stop only.
      if (stop.WaitFor(left)) woke = Woke::kStopped;
      break;
    }
    if (n <= 0) continue;
    if (fds[1].revents & POLLIN) {
      uint64_t v;
      (void)!::read(event_fd_, &v, sizeof v);
      woke = stop.requested() ? Woke::kStopped : Woke::kEvent;
      break;
    }
    if ((fds[0].revents & POLLIN) && Drain()) {
      woke = Woke::kEvent;
      break;
    }
  }
  stop.Forget(id);
  return woke;
}

void EventWake::Notify() {
  uint64_t one = 1;
  (void)!::write(event_fd_, &one, sizeof one);
}

Wake EventWake::AsWake() {
  return Wake{[this](Milliseconds d, const Stop& stop) { return Wait(d, stop); },
              [this] { Notify(); }};
}

}  // namespace carlos::host

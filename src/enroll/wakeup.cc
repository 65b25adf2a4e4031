#include "enroll/wakeup.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <map>

#include "base/files.h"

namespace carlos::enroll {

WakeSchedule::WakeSchedule(Milliseconds every, Milliseconds check_every, bool events)
    : every_(every), check_every_(std::min(check_every, every)), events_(events) {}

WakeSchedule::Action WakeSchedule::Due(SystemTime now) const {
  if (!passed_) return Action::kPass;
  if (now >= last_pass_ + every_) return Action::kPass;
  if (changed_ && now >= last_pass_ + check_every_) return Action::kPass;
  if (!events_ && !changed_ && now >= last_check_ + check_every_) return Action::kCheck;
  return Action::kWait;
}

SystemTime WakeSchedule::NextAt() const {
  if (!passed_) return SystemTime::min();
  SystemTime next = last_pass_ + every_;
  if (changed_) return std::min(next, last_pass_ + check_every_);
  if (!events_) next = std::min(next, last_check_ + check_every_);
  return next;
}

void WakeSchedule::Passed(SystemTime now) {
  passed_ = true;
  changed_ = false;
  last_pass_ = now;
  // A pass lists everything: it is a change check too.
  last_check_ = now;
}

void WakeSchedule::Checked(SystemTime now) { last_check_ = now; }

void WakeSchedule::Changed() { changed_ = true; }

namespace {

// The folders watched, as store key prefixes without the trailing '/', and
// their parents (watched for the folders' creation).
constexpr std::array<std::string_view, 5> kFolders = {"control/boxes", "control/invitations",
                                                      "control/enrollments", "control/retired",
                                                      "status/boxes"};
constexpr std::array<std::string_view, 3> kParents = {"", "control", "status"};

constexpr uint32_t kFileEvents = IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE |
                                 IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF;

class InotifyWatcher : public DirWatcher {
 public:
  InotifyWatcher(int fd, std::string root) : fd_(fd), root_(std::move(root)) {}
  ~InotifyWatcher() override { ::close(fd_); }

  // Adds a watch on every folder that exists and is not watched yet.
  void AddMissing() {
    auto add = [&](std::string_view rel, uint32_t mask) {
      for (const auto& [wd, r] : watched_) {
        if (r == rel) return;
      }
      std::string path = rel.empty() ? root_ : root_ + "/" + std::string(rel);
      int wd = ::inotify_add_watch(fd_, path.c_str(), mask | IN_ONLYDIR);
      if (wd >= 0) watched_[wd] = std::string(rel);
    };
    for (std::string_view p : kParents) add(p, IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF);
    for (std::string_view f : kFolders) add(f, kFileEvents);
  }

  std::vector<std::string> Wait(Milliseconds timeout, const Stop& stop) override {
    std::vector<std::string> keys;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!stop.requested()) {
      auto left =
          std::chrono::duration_cast<Milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      struct pollfd p {
        fd_, POLLIN, 0
      };
      int n = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 200)));
      if (n < 0 && errno != EINTR) break;
      if (n <= 0) continue;
      Drain(&keys);
      if (!keys.empty()) break;
    }
    return keys;
  }

 private:
  void Drain(std::vector<std::string>* keys) {
    alignas(struct inotify_event) char buf[16384];
    bool rescan = false;
    for (;;) {
      ssize_t len = ::read(fd_, buf, sizeof buf);
      if (len <= 0) break;
      for (char* p = buf; p < buf + len;) {
        auto* e = reinterpret_cast<struct inotify_event*>(p);
        p += sizeof(struct inotify_event) + e->len;
        if (e->mask & IN_Q_OVERFLOW) {
          // Events were lost: say "something changed" for every folder.
          for (std::string_view f : kFolders) keys->push_back(std::string(f) + "/");
          continue;
        }
        if (e->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)) {
          watched_.erase(e->wd);
          rescan = true;
          continue;
        }
        auto w = watched_.find(e->wd);
        if (w == watched_.end()) continue;
        std::string_view name = e->len > 0 ? std::string_view(e->name) : std::string_view();
        if (name.starts_with(".tmp-")) continue;  // The store's temporary files.
        bool leaf = std::find(kFolders.begin(), kFolders.end(), w->second) != kFolders.end();
        if (!leaf) {
          // A folder (or its parent) appeared: watch it, and count it as a
          // change of everything under it. Other folders (control/edges,
          // the store's .locks) are not ours.
          std::string created =
              w->second.empty() ? std::string(name) : w->second + "/" + std::string(name);
          bool ours = std::any_of(kFolders.begin(), kFolders.end(), [&](std::string_view f) {
            return f == created || f.starts_with(created + "/");
          });
          if (!ours) continue;
          rescan = true;
          std::string rel =
              w->second.empty() ? std::string(name) : w->second + "/" + std::string(name);
          keys->push_back(rel + "/");
          continue;
        }
        keys->push_back(w->second + "/" + std::string(name));
      }
    }
    if (rescan) AddMissing();
  }

  int fd_;
  std::string root_;
  std::map<int, std::string> watched_;  // Watch descriptor -> folder.
};

}  // namespace

StatusOr<std::unique_ptr<DirWatcher>> WatchDirStore(const std::string& root) {
  int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) {
    return Unavailable(
        fmt::format("the directory store {} cannot be watched: {}; passes run every --every only",
                    root, ErrnoStatus(errno, "inotify_init1", root).message()));
  }
  auto w = std::make_unique<InotifyWatcher>(fd, root);
  w->AddMissing();
  return std::unique_ptr<DirWatcher>(std::move(w));
}

}  // namespace carlos::enroll

#include "dev/region_watch.h"

#include <sys/stat.h>

#include <utility>

namespace carlos::dev {

FileWatch::FileWatch(std::string path) : path_(std::move(path)), seen_(Look()) {}

FileWatch::Seen FileWatch::Look() const {
  struct stat st;
  Seen s;
  if (stat(path_.c_str(), &st) != 0) return s;
  s.exists = true;
  s.inode = st.st_ino;
  s.size = st.st_size;
  s.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  return s;
}

bool FileWatch::Changed() {
  Seen now = Look();
  if (now == seen_) return false;
  seen_ = now;
  return now.exists;
}

}  // namespace carlos::dev

#include "dev/region.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>

#include "base/files.h"
#include "dev/region_env.h"
#include "dev/region_health.h"
#include "dev/region_imds.h"
#include "dev/region_plan.h"
#include "dev/region_ports.h"
#include "dev/region_setup.h"
#include "dev/region_supervisor.h"
#include "dev/region_view.h"
#include "dev/region_watch.h"

namespace carlos::dev {

namespace {

// The loop's period: how often markers are looked at and children reaped.
constexpr Milliseconds kTick{50};
// How often the view is refreshed (the table redrawn): about 4 times a second.
constexpr Milliseconds kRedraw{250};
// The health probes: as often as the view, with a load balancer's short
// timeout.
constexpr Milliseconds kProbeEvery{250};
constexpr Milliseconds kProbeTimeout{500};
// The table's footer keeps this many of the region's latest lines.
constexpr size_t kFooterLines = 6;

// The region's own log: DIR/logs/region.log, and `also` when set. Lines are
// "2026/11/29 19:40:01 text", as the children's (base/log.h).
class RegionLog {
 public:
  RegionLog(const std::string& path, Logf also) : also_(std::move(also)) {
    file_ = std::fopen(path.c_str(), "ae");  // "e": close-on-exec; children have their own logs.
  }
  ~RegionLog() {
    if (file_ != nullptr) std::fclose(file_);
  }
  // Writes `line` to the file (and the footer) and to `also`.
  void operator()(const std::string& line) {
    Keep(line);
    if (also_) also_(line);
  }
  // Writes `line` to the file and the footer only.
  void Keep(const std::string& line) {
    if (file_ != nullptr) {
      std::time_t t = std::time(nullptr);
      std::tm tm{};
      localtime_r(&t, &tm);
      char stamp[32];
      std::strftime(stamp, sizeof stamp, "%Y/%m/%d %H:%M:%S", &tm);
      std::fprintf(file_, "%s %s\n", stamp, line.c_str());
      std::fflush(file_);
    }
    recent_.push_back(line);
    if (recent_.size() > kFooterLines) recent_.erase(recent_.begin());
  }
  const std::vector<std::string>& recent() const { return recent_; }

 private:
  std::FILE* file_ = nullptr;
  Logf also_;
  std::vector<std::string> recent_;
};

// The drain a box is given (CARLOS_DRAIN as the children see it): whole
// "<n>ms" or "<n>s" values; anything else counts as DESIGN.md's 10 s, the
// longest a stop should then wait.
Milliseconds DrainOf(const std::vector<std::string>& env) {
  std::string v = EnvValue(env, "CARLOS_DRAIN");
  try {
    if (v.size() > 2 && v.compare(v.size() - 2, 2, "ms") == 0)
      return Milliseconds(std::stoll(v.substr(0, v.size() - 2)));
    if (v.size() > 1 && v.back() == 's' && v.find_first_not_of("0123456789") == v.size() - 1)
      return Milliseconds(std::stoll(v.substr(0, v.size() - 1)) * 1000);
  } catch (...) {
  }
  return Milliseconds(10'000);
}

// `text`'s lines cut to the terminal's width, so that none wraps and the
// next redraw's "up N lines" lands on the table's first line.
std::string FitToTerminal(const std::string& text, std::FILE* out) {
  winsize ws{};
  size_t width = 120;
  if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 10) width = ws.ws_col;
  std::string fitted;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    fitted += text.substr(pos, std::min(nl - pos, width - 1)) + "\n";
    pos = nl + 1;
  }
  return fitted;
}

Status Validate(const RegionOptions& o) {
  if (o.boxes < 1 || o.boxes > kMaxBoxes)
    return InvalidArgument(fmt::format("--boxes must be 1 to {}, not {}", kMaxBoxes, o.boxes));
  if (o.base_port < 1024 || BoxImdsPort(o.base_port, o.boxes) > 65535)
    return InvalidArgument(fmt::format(
        "--base-port {} puts a port outside 1025..65535 (box i uses base+i and base+{}+i)",
        o.base_port, kImdsPortOffset));
  if (o.metrics && BoxMetricsPort(o.base_port, o.boxes) > 65535)
    return InvalidArgument(
        fmt::format("--metrics with --base-port {} puts a port above 65535 "
                    "(box i's metrics use base+{}+i)",
                    o.base_port, kMetricsPortOffset));
  if (o.dir.empty()) return InvalidArgument("--dir must not be empty");
  if (o.carlos_bin.empty()) return InvalidArgument("the carlos binary's path is not known");
  return OkStatus();
}

}  // namespace

Status RunRegion(const RegionOptions& options, const std::vector<std::string>& environ,
                 const Stop& stop, Clock& clock, const Logf& logf, std::FILE* out) {
  CARLOS_RETURN_IF_ERROR(Validate(options));
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(options.dir, ec);
  if (ec) return InvalidArgument("--dir " + options.dir + ": " + ec.message());
  RegionLayout layout{abs.lexically_normal().string()};
  if (layout.dir.size() > 1 && layout.dir.back() == '/') layout.dir.pop_back();
  const bool dir_store = options.s3_bucket.empty();

  CARLOS_RETURN_IF_ERROR(MakeRegionDirs(layout, dir_store));
  CARLOS_ASSIGN_OR_RETURN(RegionLock lock, RegionLock::Acquire(layout.lock_file()));
  {
    // Every port the region listens on, free before anything starts: a
    // previous run's agents would answer as this run's boxes.
    std::vector<std::pair<int, std::string>> ports;
    for (int i = 1; i <= options.boxes; ++i) {
      ports.emplace_back(BoxHttpPort(options.base_port, i),
                         fmt::format("box-{}'s health check", i));
      ports.emplace_back(BoxImdsPort(options.base_port, i), fmt::format("box-{}'s IMDS", i));
      if (options.metrics) {
        ports.emplace_back(BoxMetricsPort(options.base_port, i),
                           fmt::format("box-{}'s metrics", i));
      }
    }
    if (options.metrics) {
      ports.emplace_back(EnrollerMetricsPort(options.base_port), "the enroller's metrics");
    }
    CARLOS_RETURN_IF_ERROR(CheckPortsFree(ports));
  }
  RegionLog rlog(layout.region_log(), options.live_table ? Logf() : logf);
  rlog(fmt::format("region: starting {} boxes in {}", options.boxes, layout.dir));

  Getenv getenv = [&environ](std::string_view name) {
    return EnvValue(environ, std::string(name));
  };
  if (!dir_store) CARLOS_RETURN_IF_ERROR(EnsureBucket(options.s3_bucket, getenv));
  bool key_created = false;
  CARLOS_ASSIGN_OR_RETURN(std::string pubkey, EnsureEnrollmentKey(layout, &key_created));
  CARLOS_ASSIGN_OR_RETURN(
      std::unique_ptr<ImdsEmulator> imds,
      StartRegionImds(layout, options.boxes, options.base_port, options.region, &clock));
  std::vector<std::string> imds_endpoints;
  for (size_t i = 0; i < imds->boxes(); ++i) imds_endpoints.push_back(imds->endpoint(i));

  RegionPlan plan = PlanRegion(options, layout, environ, pubkey, imds_endpoints);
  std::map<std::string, std::string> settings = plan.shared;
  settings["CARLOS_ENROLLMENT_KEY"] = layout.enrollment_key();
  settings[kIidCertEnv] = layout.imds_cert();
  CARLOS_RETURN_IF_ERROR(WriteRegionEnv(layout, settings));

  // The start summary.
  std::string store =
      dir_store ? layout.deployment_dir()
                : "s3://" + options.s3_bucket + " at " + EnvValue(environ, "CARLOS_S3_ENDPOINT");
  std::fprintf(out, "carlos dev region: %d boxes in %s\n", options.boxes, layout.dir.c_str());
  std::fprintf(out, "  deployment:     %s\n", store.c_str());
  std::fprintf(out, "  enrollment key: %s (%s)\n", layout.enrollment_key().c_str(),
               key_created ? "new" : "reused");
  std::fprintf(
      out, "  logs:           %s/ (<box>.agent.log, <box>.join.log, enroller.log, region.log)\n",
      layout.logs_dir().c_str());
  std::fprintf(out, "  by hand:        set -a; . %s; set +a; carlos boxes list\n",
               layout.env_file().c_str());
  for (int i = 1; i <= options.boxes; ++i) {
    std::fprintf(out, "  %s health:   %s\n", BoxLabel(i).c_str(),
                 BoxHealthUrl(options.base_port, i).c_str());
  }
  if (geteuid() != 0) {
    std::fprintf(out,
                 "WARNING: not root. carlos system join must run as root (it writes the "
                 "root-owned guard),\n  so the boxes will stop at \"invited\"; run the region "
                 "with sudo for them to host.\n");
  }
  std::fprintf(out, "Ctrl-C stops every process; the deployment stays for the next run.\n");
  std::fflush(out);

  Supervisor sup([&rlog](const std::string& line) { rlog(line); });
  std::vector<int> agents, joins;
  std::vector<FileWatch> markers;
  std::vector<std::string> urls;
  for (size_t i = 0; i < plan.boxes.size(); ++i) {
    agents.push_back(sup.Add(plan.agents[i]));
    joins.push_back(sup.Add(plan.joins[i]));
    CARLOS_RETURN_IF_ERROR(EnsureBoxDir(layout, plan.boxes[i]));
    markers.emplace_back(layout.marker(plan.boxes[i]));
    urls.push_back(BoxHealthUrl(options.base_port, static_cast<int>(i) + 1));
  }
  std::optional<int> enroller;
  if (options.auto_enroll) enroller = sup.Add(plan.enroller);

  RegionImdsFaults imds_faults(layout, options.boxes, options.base_port, options.region, &clock,
                               &imds, [&rlog](const std::string& line) { rlog(line); });
  SystemTime start = clock.Now();
  for (int a : agents) sup.Start(a, start);
  if (enroller) sup.Start(*enroller, start);

  HealthPoller poller(urls, kProbeEvery, kProbeTimeout);
  RegionView view(plan.boxes, urls, start);
  std::vector<bool> hosted(plan.boxes.size(), false);
  size_t drawn_lines = 0;
  SystemTime next_view = start;
  for (;;) {
    SystemTime now = clock.Now();
    sup.Tick(now);
    imds_faults.Tick(now);
    for (size_t i = 0; i < markers.size(); ++i) {
      if (markers[i].Changed()) {
        rlog("region: " + plan.boxes[i] +
             " asked root to arm its guard (its marker changed); running carlos system join");
        sup.Start(joins[i], now);
      }
    }
    if (now >= next_view) {
      next_view = now + kRedraw;
      std::vector<HealthAnswer> latest = poller.Latest();
      for (size_t i = 0; i < latest.size(); ++i) {
        if (auto change = view.Update(i, latest[i], now)) {
          rlog.Keep(*change);
          if (!options.live_table) {
            std::fprintf(out, "%s\n", change->c_str());
            std::fflush(out);
          }
        }
        if (latest[i].code == 200 && !hosted[i]) {
          hosted[i] = true;
          rlog(fmt::format("region: {} is hosting, {} after the region started", plan.boxes[i],
                           ShortDuration(std::chrono::duration_cast<Milliseconds>(now - start))));
        }
        const UnitStatus& st = sup.status(agents[i]);
        view.SetAgent(i, st.pid, st.starts);
      }
      if (options.live_table) {
        std::vector<std::string> footer = {""};
        for (const auto& l : rlog.recent()) footer.push_back(l);
        footer.push_back(fmt::format("{}/{} hosting. Ctrl-C stops the region. Logs: {}/",
                                     view.Hosting(), plan.boxes.size(), layout.logs_dir()));
        std::string table = FitToTerminal(view.Table(now, footer), out);
        // Back to the start of the previous table, then clear below.
        if (drawn_lines > 0) std::fprintf(out, "\x1b[%zuF\x1b[J", drawn_lines);
        std::fputs(table.c_str(), out);
        std::fflush(out);
        drawn_lines = static_cast<size_t>(std::count(table.begin(), table.end(), '\n'));
      }
    }
    if (!clock.Sleep(kTick, stop)) break;
  }

  Milliseconds grace = DrainOf(plan.agents[0].process.env) + options.stop_grace;
  rlog(fmt::format("region: stopping (SIGTERM, then SIGKILL after {})", FormatDuration(grace)));
  std::fprintf(out, "\nStopping every process (SIGTERM; SIGKILL after %s)...\n",
               FormatDuration(grace).c_str());
  std::fflush(out);
  sup.StopAll(grace, clock.Now());
  if (imds) imds->Shutdown();
  rlog("region: stopped; the deployment is left as it is");
  std::fprintf(out,
               "Stopped. The deployment and the boxes' data are left in %s; run again to "
               "pick them up.\n",
               layout.dir.c_str());
  std::fflush(out);
  return OkStatus();
}

}  // namespace carlos::dev

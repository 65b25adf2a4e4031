#include "host/agent.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <optional>
#include <set>
#include <vector>

#include "base/files.h"
#include "base/mutex.h"
#include "base/strings.h"
#include "host/agent_metrics.h"
#include "host/entry.h"
#include "host/event_wake.h"
#include "host/gate.h"
#include "host/handover.h"
#include "host/hosting.h"
#include "host/joining.h"
#include "host/joinmode.h"
#include "host/record_loop.h"
#include "identity/edges_file.h"
#include "identity/store_keys.h"
#include "imds/group_reference.h"
#include "imds/instance_identity.h"
#include "lbhealth/listener.h"
#include "metrics/server.h"
#include "net/http_server.h"
#include "protocol/label.h"
#include "protocol/local_guard.h"
#include "protocol/settings.h"
#include "protocol/timings.h"
#include "protocol/version.h"
#include "status/report.h"
#include "store/cached_reads.h"
#include "store/dir_store.h"
#include "store/store.h"

namespace carlos::host {

namespace {

// The fast poll's interval (host/wake.h): "within about a second". Its
// bound is joinNudgeEvery.
constexpr Milliseconds kFastPollEvery{1'000};

// What opening the deployment's stores and this box's keys gives: shared by
// the mode facts, the record loop, the reports and hosting.
struct Opened {
  std::shared_ptr<Store> store;
  identity::PrivateKey box_key;
  ModeFacts facts;
  // The mode checks' reads of this box's keys, revalidated
  // (store/cached_reads.h).
  std::shared_ptr<CachedReads> reads;
  // The directory store's root, when the store is one ("" on S3): its
  // files for this box's keys are watched while joining.
  std::string dir_root;
};

// What a joining box watches (host/event_wake.h): its guard's files, and on
// the directory store this box's own keys. Each directory's parent is
// watched for its name, so that one made later is watched from then on.
std::vector<EventWake::Watch> JoiningWatches(const std::string& data_dir,
                                             const std::string& dir_root, const std::string& box) {
  std::vector<EventWake::Watch> w = {
      {data_dir, {"hostguard"}},
      {data_dir + "/hostguard", {"guard.json", "armed.json"}},
  };
  if (!dir_root.empty()) {
    const std::set<std::string> kinds = {"boxes", "invitations", "enrollments", "retired", "edges"};
    w.push_back({dir_root, {"control"}});
    w.push_back({dir_root + "/control", kinds});
    for (const std::string& kind : kinds) {
      w.push_back({dir_root + "/control/" + kind, {box + ".json"}});
    }
  }
  return w;
}

// Whether the local guard is armed; one that cannot be read counts as armed
// (region HA's rules then apply, and the mode stays unknown until it can be
// read: never a guess).
bool GuardArmed(const std::string& data_dir) {
  StatusOr<protocol::LocalGuard> g = protocol::ReadLocalGuard(data_dir, /*owner_uid=*/0);
  return !g.ok() || g->armed_now();
}

class Agent {
 public:
  Agent(const AgentFlags& flags, const AgentEnv& env, protocol::Timings timings)
      : flags_(flags),
        env_(env),
        timings_(timings),
        data_dir_(DataDir(env.getenv)),
        imds_(imds::ImdsOptionsFromEnv(env.getenv), env.clock) {}

  int Run() {
    if (!flags_.metrics.empty()) {
      metrics_ = std::make_unique<AgentMetrics>(env_.clock);
      auto srv = metrics::Serve(flags_.metrics, &metrics_->registry());
      if (!srv.ok()) {
        env_.logf("agent: the metrics listener could not start on " + flags_.metrics + ": " +
                  srv.status().ToString() + "; fix -metrics or leave it off");
        return 2;
      }
      metrics_server_ = std::move(*srv);
      imds_.SetObserver([m = metrics_.get()](std::string_view method, long http_status,
                                             const Status& transport, double seconds) {
        m->ImdsExchanged(method, http_status, transport, seconds);
      });
    }
    if (!protocol::GroupReferenced(env_.getenv)) {
      StatusOr<std::string> label =
          protocol::BoxLabel(env_.getenv, nullptr, protocol::SystemHostName);
      if (!label.ok()) {
        env_.logf("agent: " + label.status().ToString());
        return 1;
      }
      label_ = *label;
    }
    AgentEntry(
        env_.getenv, [this] { return ResolveGroup(); }, host::GroupReferenceBackoff, *env_.clock,
        env_.logf, *env_.stop, [this] { return Gate(); }, [this] { exit_code_ = Host(); });
    if (handover_ && StartedByGuardExec(env_.getenv)) {
      // host/handover.h: no restart delay; guard-exec checks as on a restart.
      env_.logf("agent: joining: handing over to the claim agent through guard-exec at once");
      Status st = ExecThroughGuardExec();
      env_.logf("agent: joining: " + st.ToString() + "; exiting for systemd to restart it");
    }
    return exit_code_;
  }

 private:
  // The entry's resolve: the group reference, which gives the label.
  StatusOr<std::string> ResolveGroup() {
    StatusOr<imds::GroupReference> ref = imds::ResolveGroupReference(imds_);
    if (!ref.ok()) return ref.status();
    // The label is the protocol's rule over the group reference.
    CARLOS_ASSIGN_OR_RETURN(
        label_, protocol::BoxLabel(
                    env_.getenv, [&ref]() -> StatusOr<std::string> { return ref->label; },
                    protocol::SystemHostName));
    group_ = *ref;
    return ref->group + " (tag " + ref->tag + "; box label " + ref->label + ")";
  }

  bool Gate() {
    host::Gate g;
    g.getenv = env_.getenv;
    g.guard_armed = [this] { return GuardArmed(); };
    g.open = [this]() -> StatusOr<std::shared_ptr<const ModeFacts>> {
      CARLOS_ASSIGN_OR_RETURN(opened_, Open());
      // The facts live as long as what they were opened with.
      return std::shared_ptr<const ModeFacts>(opened_, &opened_->facts);
    };
    g.select = [this](const ModeFacts& f) {
      StatusOr<protocol::ModeDecision> d = SelectMode(f);
      if (metrics_) metrics_->Decided(d, /*hosting=*/false);
      return d;
    };
    g.join = [this](std::shared_ptr<const ModeFacts>, const protocol::ModeDecision&,
                    const Stop& stop) { return Join(stop); };
    g.wait = timings_.join_every;
    g.clock = env_.clock;
    g.logf = env_.logf;
    g.warnf = env_.warnf;
    return DecideAgentMode(g, *env_.stop);
  }

  bool GuardArmed() const { return host::GuardArmed(data_dir_); }

  // Opens the store, the enrollment key and the box key.
  StatusOr<std::shared_ptr<Opened>> Open() {
    CARLOS_ASSIGN_OR_RETURN(std::shared_ptr<Store> store, OpenStore(env_.getenv));
    std::string dir_root;
    if (const auto* dir = dynamic_cast<const DirStore*>(store.get())) dir_root = dir->root();
    if (metrics_) {
      store = std::make_shared<metrics::MeasuredStore>(store, metrics_->store(), env_.clock);
    }
    CARLOS_ASSIGN_OR_RETURN(identity::PublicKey enrollment_key,
                            protocol::EnrollmentPublicKeyFromEnv(env_.getenv));
    StatusOr<identity::PrivateKey> box_key = identity::LoadOrCreateBoxKey(data_dir_);
    if (!box_key.ok()) return box_key.status().Annotate("the box key");
    auto o = std::make_shared<Opened>(Opened{std::move(store), *box_key, {}, nullptr, dir_root});
    o->reads = std::make_shared<CachedReads>(o->store.get());

    ModeFacts& f = o->facts;
    f.box = label_;
    f.now = [clock = env_.clock] { return clock->Now(); };
    // A vanished directory store answers kUnavailable itself (DirStore), so
    // a read error here is always "cannot say", never "absent".
    // Conditional reads: a check that finds nothing new transfers no bodies.
    f.read = [reads = o->reads](const std::string& key) { return reads->Read(key); };
    f.guard = [dir = data_dir_] { return protocol::ReadLocalGuard(dir, /*owner_uid=*/0); };
    f.enrollment_key = enrollment_key;
    f.box_key = o->box_key.public_key();
    return o;
  }

  // The instance identity, read from IMDS once it answers, or unattested
  // when that is a fact for good (imds::ReadInstanceIdentity): only such an
  // answer is kept for the process's life. A failed read keeps nothing and
  // is asked again by the caller's next attempt (the record loop's backoff,
  // the next report); the first answer after failures is logged.
  StatusOr<imds::InstanceIdentity> Instance() {
    MutexLock lock(&instance_mu_);
    if (instance_) return *instance_;
    StatusOr<imds::InstanceIdentity> ii = imds::ReadInstanceIdentity(imds_);
    if (!ii.ok()) {
      ++instance_failures_;
      return ii.status();
    }
    if (!ii->attested()) {
      env_.logf("agent: this box is unattested: " + ii->unattested_reason);
    } else if (instance_failures_ > 0) {
      env_.logf(fmt::format(
          "agent: IMDS at {} answers after {} failed read(s): this box is attested as instance {}",
          imds_.options().endpoint, instance_failures_, ii->instance_id));
    }
    instance_ = *ii;
    return *ii;
  }

  StatusOr<std::string> Region(const imds::InstanceIdentity& ii) const {
    std::string region = EnvOr(env_.getenv, "CARLOS_REGION", ii.attested() ? ii.region : "");
    if (region.empty()) return InvalidArgument("CARLOS_REGION is not set, and IMDS gives none");
    return region;
  }

  // The box's facts, read once for both the record and the reports: the
  // record names the same box, region, machine, instance and release as
  // every report the box publishes.
  StatusOr<status::Probes> Probes(imds::InstanceIdentity* ii = nullptr) {
    CARLOS_ASSIGN_OR_RETURN(imds::InstanceIdentity instance, Instance());
    status::Probes p;
    p.box = label_;
    CARLOS_ASSIGN_OR_RETURN(p.region, Region(instance));
    CARLOS_ASSIGN_OR_RETURN(p.machine_id,
                            status::ReadMachineId(status::MachineIdPath(env_.getenv)));
    p.instance_id = instance.attested() ? instance.instance_id : "";
    p.release = protocol::Release();
    p.platform = protocol::Platform();
    p.system_channel = TrimSpace(env_.getenv("CARLOS_SYSTEM_CHANNEL"));
    if (ii) *ii = std::move(instance);
    return p;
  }

  StatusOr<identity::IdentityRecord> BuildRecord(const Opened& o) {
    imds::InstanceIdentity ii;
    CARLOS_ASSIGN_OR_RETURN(status::Probes p, Probes(&ii));
    identity::IdentityRecord r;
    r.box = p.box;
    r.region = p.region;
    r.machine_id = p.machine_id;
    r.instance_id = p.instance_id;
    if (group_) r.group_reference = group_->group;
    r.release = p.release;
    r.platform = p.platform;
    r.public_key = o.box_key.public_key();
    r.created_at = env_.clock->Now();
    if (ii.attested()) r.attestation = identity::InstanceAttestation{ii.document, ii.rsa2048};
    return r;
  }

  // Publishes the status report with the guard's facts (the seed's
  // claimReport); `stage` "hosting" for a hosting box, else the guard's.
  Status Report(const Opened& o, bool hosting) {
    CARLOS_ASSIGN_OR_RETURN(status::Probes p, Probes());
    CARLOS_ASSIGN_OR_RETURN(protocol::LocalGuard g, protocol::ReadLocalGuard(data_dir_, 0));
    std::string stage = hosting         ? "hosting"
                        : g.armed_now() ? "guard-ready"
                        : g.installed() ? "guard-installed"
                                        : "invited";
    return status::PublishReport(
        *o.store, o.box_key, status::BuildReport(p, env_.clock->Now(), hosting, stage, g.Facts()));
  }

  Status RequestArm() {
    Status st = WriteFileAtomic(protocol::JoinMarkerPath(data_dir_),
                                FormatRfc3339Nano(env_.clock->Now()) + "\n", 0644);
    if (metrics_) metrics_->MarkerWrite(st);
    return st;
  }

  // SelectMode on the opened facts, told to the metrics.
  std::function<StatusOr<protocol::ModeDecision>()> Selector(std::shared_ptr<Opened> o,
                                                             bool hosting) {
    return [this, o, hosting] {
      StatusOr<protocol::ModeDecision> d = SelectMode(o->facts);
      if (metrics_) metrics_->Decided(d, hosting);
      return d;
    };
  }

  Status Publish(const Opened& o, bool hosting) {
    Status st = Report(o, hosting);
    if (metrics_) metrics_->ReportPublish(st);
    return st;
  }

  StatusOr<std::unique_ptr<net::HttpServer>> Listen() {
    std::function<void(int)> answered;
    if (metrics_) answered = [m = metrics_.get()](int code) { m->HealthAnswered(code); };
    auto srv = lbhealth::StartListener(flags_.http, timings_.health_header_timeout,
                                       &lbhealth::Default(), std::move(answered));
    if (srv.ok() && metrics_) metrics_->WatchHealthServer(srv->get());
    return srv;
  }

  void StopListening(net::HttpServer* srv) {
    if (metrics_) metrics_->WatchHealthServer(nullptr);
    srv->Shutdown();
  }

  Status Join(const Stop& stop) {
    std::shared_ptr<Opened> o = opened_;
    Joining j;
    j.select = Selector(o, false);
    j.serve = [this](const Stop& done) -> Status {
      CARLOS_ASSIGN_OR_RETURN(std::unique_ptr<net::HttpServer> srv, Listen());
      while (!done.WaitFor(Milliseconds(3'600'000))) {
      }
      StopListening(srv.get());
      return OkStatus();
    };
    j.record = [this, o](const Stop& done) {
      RecordLoop loop;
      loop.store = o->store.get();
      loop.box_key = &o->box_key;
      loop.build = [this, o] { return BuildRecord(*o); };
      loop.backoff = host::GroupReferenceBackoff;
      loop.clock = env_.clock;
      loop.logf = env_.logf;
      loop.warnf = env_.warnf;
      loop.errf = env_.errf;
      if (metrics_) loop.attempted = [m = metrics_.get()](RecordResult r) { m->RecordWrite(r); };
      RunRecordLoop(loop, label_, done);
    };
    j.report = [this, o] { return Publish(*o, false); };
    j.request_arm = [this] { return RequestArm(); };
    j.every = timings_.join_every;
    j.nudge_every = timings_.join_nudge_every;
    // host/wake.h: events end a wait at once; where the store's changes are
    // not watched (S3, or no inotify), a fast poll after each act.
    StatusOr<std::unique_ptr<EventWake>> wake =
        EventWake::Open(JoiningWatches(data_dir_, o->dir_root, label_));
    if (wake.ok()) {
      j.wake = (*wake)->AsWake();
    } else {
      env_.logf("agent: joining: changes on this box are not watched (" + wake.status().ToString() +
                "); checking every " + FormatDuration(timings_.join_every) + " and every " +
                FormatDuration(kFastPollEvery) + " while an answer is expected");
    }
    if (!wake.ok() || o->dir_root.empty()) {
      j.fast = FastPoll{kFastPollEvery, timings_.join_nudge_every};
    }
    j.clock = env_.clock;
    j.logf = env_.logf;
    j.warnf = env_.warnf;
    j.health = &lbhealth::Default();
    JoinOutcome out = RunJoining(j, stop);
    if (out.status.ok()) handover_ = true;
    return out.status;
  }

  int Host() {
    auto srv = Listen();
    if (!srv.ok()) {
      env_.logf("agent: hosting: the load balancer health check is not answered: " +
                srv.status().ToString());
      return 1;
    }
    Hosting h;
    h.box = label_;
    const bool joining_mode = protocol::RegionHAApplies(env_.getenv, GuardArmed());
    std::shared_ptr<Opened> o = opened_;
    if (!o) {
      // A switch is off: the gate opened nothing. Publish when the
      // deployment's stores can be opened; host regardless.
      StatusOr<std::shared_ptr<Opened>> opened = Open();
      if (opened.ok()) {
        o = *opened;
      } else {
        env_.logf("agent: hosting without publishing the edges file or the status report: " +
                  opened.status().ToString());
      }
    }
    if (joining_mode && o) h.select = Selector(o, true);
    if (o) {
      h.publish_edges = [this, o]() -> Status {
        identity::EdgesFile e{label_, env_.clock->Now(), {}};
        CARLOS_ASSIGN_OR_RETURN(std::string bytes, identity::SignEdgesFile(e, o->box_key));
        const std::string key = identity::EdgesKey(label_);
        StatusOr<std::string> put = o->store->Put(key, bytes, PutOptions{});
        return put.ok() ? OkStatus() : put.status().Annotate("publish " + key);
      };
      h.publish_report = [this, o] { return Publish(*o, true); };
    }
    h.check_every = timings_.join_every;
    h.report_every = timings_.hosting_report_every;
    h.drain = timings_.drain;
    h.clock = env_.clock;
    h.logf = env_.logf;
    h.warnf = env_.warnf;
    h.health = &lbhealth::Default();
    if (metrics_) h.draining = [m = metrics_.get()] { m->Draining(); };
    Status st = RunHosting(h, *env_.stop);
    StopListening(srv->get());
    return st.code() == Code::kCancelled ? 0 : 1;
  }

  // Declared first so that they outlive everything that records into them;
  // null when -metrics is off.
  std::unique_ptr<AgentMetrics> metrics_;
  std::unique_ptr<net::HttpServer> metrics_server_;
  const AgentFlags flags_;
  const AgentEnv env_;
  const protocol::Timings timings_;
  const std::string data_dir_;
  imds::ImdsClient imds_;
  std::string label_;
  std::optional<imds::GroupReference> group_;
  std::shared_ptr<Opened> opened_;  // The gate's last open (gate thread only).
  Mutex instance_mu_;
  std::optional<imds::InstanceIdentity> instance_ CARLOS_GUARDED_BY(instance_mu_);
  int instance_failures_ CARLOS_GUARDED_BY(instance_mu_) = 0;
  int exit_code_ = 0;
  bool handover_ = false;  // Joining ended: the box is enrolled and armed.
};

}  // namespace

Status CheckStaticSettings(const AgentFlags& flags, const Getenv& getenv) {
  if (StatusOr<std::pair<std::string, int>> addr = net::SplitListenAddress(flags.http);
      !addr.ok()) {
    return InvalidArgument("-http: " + addr.status().message());
  }
  const std::string data_dir = DataDir(getenv);
  struct stat st {};
  if (::stat(data_dir.c_str(), &st) != 0) {
    return InvalidArgument(
        "CARLOS_DATA_DIR: " + ErrnoStatus(errno, "the data dir", data_dir).message() +
        "; create it or set CARLOS_DATA_DIR to the box's data dir");
  }
  if (!S_ISDIR(st.st_mode)) {
    return InvalidArgument("CARLOS_DATA_DIR: " + data_dir + " is not a directory");
  }
  if (protocol::RegionHAApplies(getenv, GuardArmed(data_dir))) {
    StatusOr<identity::PublicKey> key = protocol::EnrollmentPublicKeyFromEnv(getenv);
    if (!key.ok()) return key.status();
  }
  return OkStatus();
}

int RunAgent(const AgentFlags& flags, const AgentEnv& env) {
  if (Status st = CheckStaticSettings(flags, env.getenv); !st.ok()) {
    (env.errf ? env.errf : env.logf)("agent: " + st.ToString());
    return 2;
  }
  if (std::string w = protocol::SwitchesOffWarning(env.getenv); !w.empty()) {
    (env.warnf ? env.warnf : env.logf)("agent: warning: " + w);
  }
  StatusOr<protocol::Timings> timings = protocol::TimingsFromEnv(env.getenv);
  if (!timings.ok()) {
    env.logf("agent: " + timings.status().ToString());
    return 2;
  }
  Agent agent(flags, env, *timings);
  return agent.Run();
}

}  // namespace carlos::host

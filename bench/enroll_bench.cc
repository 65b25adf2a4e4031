// Automatic enrollment passes over 1,000 and 10,000 recorded boxes on the
// directory store and on the local S3 server (Ceph RGW; skipped without
// CARLOS_S3_ENV_FILE, the harness's env file): wall time and store requests
// (counted by metrics::MeasuredStore) for, in order, on one enroller:
//   invite   the pass that invites every box;
//   first idle  the next pass, nothing changed since (the informer holds
//            everything; the directory store hashes the new invitations once);
//   idle     the pass after, nothing changed: the steady state of a watch;
//   changed  a pass after 100 boxes published a guard-ready report (each is
//            read and enrolled);
//   cold     a pass of a fresh enroller (no memory), nothing to do.
// Targets (docs/enroll.md, "Benchmarks"): idle <= 0.02 requests per box on
// S3 and <= 1 s on the directory store at 10,000 boxes; changed <= 3
// requests per changed box.
//
//   build/bench/enroll_bench --benchmark_filter=Dir
//   CARLOS_S3_ENV_FILE=<build>/s3-server/env build/bench/enroll_bench --benchmark_filter=S3
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include "base/files.h"
#include "base/strings.h"
#include "enroll/enroller.h"
#include "enroll/parallel.h"
#include "identity/encoding.h"
#include "identity/identity_record.h"
#include "identity/status_report.h"
#include "identity/store_keys.h"
#include "metrics/measured_store.h"
#include "store/aws_credentials.h"
#include "store/s3_store.h"

namespace carlos::enroll {
namespace {

SystemTime Start() {
  SystemTime t;
  ParseRfc3339("2026-11-29T18:00:00Z", &t);
  return t;
}

// N boxes: each one's signed identity record (unattested, so that set-up
// does not spend minutes signing instance identity documents with RSA), its
// store key, and its box key (for its reports).
struct BenchBox {
  std::string key;
  std::string bytes;
  std::optional<identity::PrivateKey> box_key;
  std::string record_digest;
};

std::vector<BenchBox> MakeRecords(int n) {
  std::vector<BenchBox> out(n);
  ParallelFor(n, 2, [&](size_t i) {
    auto key = identity::PrivateKey::Generate();
    identity::IdentityRecord r;
    r.box = fmt::format("box-{:05d}", i);
    r.region = "us-west-2";
    r.machine_id = HexEncode(identity::Sha256(r.box)).substr(0, 32);
    r.release = "0.1.0";
    r.platform = "linux-amd64";
    r.public_key = key->public_key();
    r.created_at = Start();
    std::string bytes = *identity::SignIdentityRecord(r, *key);
    out[i] = {identity::RecordKey(r.box), bytes, *key, identity::Sha256Digest(bytes)};
  });
  return out;
}

// Box `b`'s guard-ready report (armed, bound to its stored invitation), as
// its agent would publish it; false when its invitation cannot be read.
bool PutReport(Store& store, const BenchBox& b, SystemTime now) {
  std::string box = identity::BoxOfKey(identity::kRecordsPrefix, b.key).value_or("");
  auto inv = store.Get(identity::InvitationKey(box));
  if (!inv.ok()) return false;
  identity::StatusReport r;
  r.box = box;
  r.region = "us-west-2";
  r.machine_id = HexEncode(identity::Sha256(box)).substr(0, 32);
  r.release = "0.1.0";
  r.platform = "linux-amd64";
  r.reported_at = now;
  r.stage = "guard-ready";
  identity::GuardFacts g;
  g.installed = g.armed = true;
  g.guard_digest = "sha256:" + std::string(64, 'a');
  g.record_digest = b.record_digest;
  g.invitation_digest = identity::Sha256Digest(inv->data);
  r.guard = g;
  auto bytes = identity::SignStatusReport(r, *b.box_key);
  return bytes.ok() && store.Put(identity::StatusKey(box), *bytes, PutOptions{}).ok();
}

EnrollerSettings Settings() {
  EnrollerSettings s;
  s.enrollment_key = *identity::PrivateKey::Generate();
  s.enrollment_public_key = s.enrollment_key->public_key();
  s.allow_unattested = true;
  s.workers = 8;
  return s;
}

// Runs the passes over `store` and reports them as counters.
void Passes(benchmark::State& state, Store& store, const std::vector<BenchBox>& boxes) {
  const int n = static_cast<int>(boxes.size());
  constexpr int kChanged = 100;
  FakeClock clock(Start());
  metrics::MeasuredStore counting(&store);
  EnrollerSettings settings = Settings();
  Enroller e(&counting, &clock, nullptr, settings);
  auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  struct Run {
    double seconds;
    metrics::StoreCounts counts;
    StatusOr<PassSummary> pass;
  };
  auto run = [&](Enroller& en) {
    counting.Reset();
    auto t0 = std::chrono::steady_clock::now();
    StatusOr<PassSummary> pass = en.Pass();
    double s = secs(t0, std::chrono::steady_clock::now());
    return Run{s, counting.counts(), std::move(pass)};
  };

  Run invite = run(e);
  Run first_idle = run(e);
  Run idle = run(e);
  std::atomic<int> failed{0};
  ParallelFor(kChanged, 8, [&](size_t i) {
    if (!PutReport(store, boxes[i * (n / kChanged)], clock.Now())) ++failed;
  });
  clock.Advance(Milliseconds(1000));
  Run changed = run(e);
  Enroller fresh(&counting, &clock, nullptr, settings);
  Run cold = run(fresh);
  if (!invite.pass.ok() || !first_idle.pass.ok() || !idle.pass.ok() || !changed.pass.ok() ||
      !cold.pass.ok() || invite.pass->invited != n || idle.pass->invited != 0 || failed > 0 ||
      changed.pass->enrolled != kChanged) {
    state.SkipWithError("a pass failed, or did not invite every box or enroll the changed ones");
    return;
  }
  state.SetIterationTime(idle.seconds);
  state.counters["boxes"] = n;
  state.counters["invite_s"] = invite.seconds;
  state.counters["invite_req_per_box"] = static_cast<double>(invite.counts.total()) / n;
  state.counters["first_idle_s"] = first_idle.seconds;
  state.counters["first_idle_requests"] = static_cast<double>(first_idle.counts.total());
  state.counters["idle_s"] = idle.seconds;
  state.counters["idle_req_per_box"] = static_cast<double>(idle.counts.total()) / n;
  state.counters["idle_requests"] = static_cast<double>(idle.counts.total());
  state.counters["changed_s"] = changed.seconds;
  state.counters["changed_req_per_changed_box"] =
      static_cast<double>(changed.counts.total()) / kChanged;
  state.counters["changed_gets"] = static_cast<double>(changed.counts.gets);
  state.counters["changed_puts"] = static_cast<double>(changed.counts.puts);
  state.counters["changed_lists"] = static_cast<double>(changed.counts.lists);
  state.counters["cold_s"] = cold.seconds;
  state.counters["cold_req_per_box"] = static_cast<double>(cold.counts.total()) / n;
}

void BM_PassDir(benchmark::State& state) {
  int n = static_cast<int>(state.range(0));
  auto records = MakeRecords(n);
  for (auto _ : state) {
    std::string root = fmt::format("{}/carlos-enroll-bench-{}",
                                   std::filesystem::temp_directory_path().string(), ::getpid());
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root + "/control/boxes");
    // Set-up writes the files directly: what is measured is the pass.
    for (const auto& b : records) std::ofstream(root + "/" + b.key) << b.bytes;
    auto store = OpenStore(MapGetenv({{"CARLOS_DEPLOYMENT_DIR", root}}));
    if (!store.ok()) {
      state.SkipWithError(store.status().message().c_str());
      return;
    }
    Passes(state, **store, records);
    std::filesystem::remove_all(root);
  }
}
BENCHMARK(BM_PassDir)
    ->Arg(1000)
    ->Arg(10000)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

void BM_PassS3(benchmark::State& state) {
  int n = static_cast<int>(state.range(0));
  const char* file = std::getenv("CARLOS_S3_ENV_FILE");
  std::ifstream in(file ? file : "");
  if (!file || !in) {
    state.SkipWithError("no S3 server: set CARLOS_S3_ENV_FILE to the harness's env file");
    return;
  }
  std::map<std::string, std::string> env;
  for (std::string line; std::getline(in, line);) {
    auto eq = line.find('=');
    if (eq != std::string::npos)
      env[TrimSpace(line.substr(0, eq))] = TrimSpace(line.substr(eq + 1));
  }
  auto records = MakeRecords(n);
  for (auto _ : state) {
    S3StoreOptions o;
    o.bucket = fmt::format("enroll-bench-{}-{}", ::getpid(), std::rand() % 100000);
    o.endpoint = env["CARLOS_S3_ENDPOINT"];
    o.region = env.count("AWS_REGION") ? env["AWS_REGION"] : "us-east-1";
    o.credentials = EnvCredentials(MapGetenv(env));
    auto s3 = S3Store::Open(o);
    if (!s3.ok() || !(*s3)->CreateBucket().ok()) {
      state.SkipWithError("the S3 bucket could not be made");
      return;
    }
    std::atomic<int> failed{0};
    ParallelFor(records.size(), 16, [&](size_t i) {
      if (!(*s3)->Put(records[i].key, records[i].bytes, PutOptions{}).ok()) ++failed;
    });
    if (failed > 0) {
      state.SkipWithError("set-up puts failed");
      return;
    }
    Passes(state, **s3, records);
  }
}
BENCHMARK(BM_PassS3)->Arg(1000)->Arg(10000)->Iterations(1)->UseManualTime()->Unit(
    benchmark::kMillisecond);

}  // namespace
}  // namespace carlos::enroll

BENCHMARK_MAIN();

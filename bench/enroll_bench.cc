// One automatic enrollment pass over 1,000 and 10,000 recorded boxes on the
// directory store, and over 1,000 on the local S3 server (Ceph RGW; skipped
// without CARLOS_S3_ENV_FILE, the harness's env file): wall time and store
// requests per box, for the pass that invites every box and for the next
// pass, which has nothing to do. Targets (docs/enroll.md): 10,000 boxes on
// the directory store in under 5 s; at most 4 requests per box with nothing
// to do.
//
//   build/bench/enroll_bench --benchmark_filter=Dir
//   CARLOS_S3_ENV_FILE=/tmp/s3/env build/bench/enroll_bench --benchmark_filter=S3
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "base/files.h"
#include "base/strings.h"
#include "enroll/enroller.h"
#include "enroll/parallel.h"
#include "identity/encoding.h"
#include "identity/identity_record.h"
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

// N signed identity records (unattested, so that set-up does not spend
// minutes signing instance identity documents with RSA), as key -> bytes.
std::vector<std::pair<std::string, std::string>> MakeRecords(int n) {
  std::vector<std::pair<std::string, std::string>> out(n);
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
    out[i] = {identity::RecordKey(r.box), *identity::SignIdentityRecord(r, *key)};
  });
  return out;
}

EnrollerSettings Settings() {
  EnrollerSettings s;
  s.enrollment_key = *identity::PrivateKey::Generate();
  s.enrollment_public_key = s.enrollment_key->public_key();
  s.allow_unattested = true;
  s.workers = 8;
  return s;
}

// Runs the two passes over `store` and reports them as counters.
void TwoPasses(benchmark::State& state, Store& store, int n) {
  FakeClock clock(Start());
  metrics::MeasuredStore counting(&store);
  Enroller e(&counting, &clock, nullptr, Settings());

  auto t0 = std::chrono::steady_clock::now();
  auto first = e.Pass();
  auto t1 = std::chrono::steady_clock::now();
  metrics::StoreCounts c1 = counting.counts();
  counting.Reset();
  auto second = e.Pass();
  auto t2 = std::chrono::steady_clock::now();
  metrics::StoreCounts c2 = counting.counts();
  if (!first.ok() || !second.ok() || first->invited != n || second->invited != 0) {
    state.SkipWithError("a pass failed or did not invite every box");
    return;
  }
  auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  state.SetIterationTime(secs(t0, t1));
  state.counters["boxes"] = n;
  state.counters["invite_pass_s"] = secs(t0, t1);
  state.counters["invite_pass_req_per_box"] = static_cast<double>(c1.total()) / n;
  state.counters["idle_pass_s"] = secs(t1, t2);
  state.counters["idle_pass_req_per_box"] = static_cast<double>(c2.total()) / n;
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
    for (const auto& [key, bytes] : records) std::ofstream(root + "/" + key) << bytes;
    auto store = OpenStore(MapGetenv({{"CARLOS_DEPLOYMENT_DIR", root}}));
    if (!store.ok()) {
      state.SkipWithError(store.status().message().c_str());
      return;
    }
    TwoPasses(state, **store, n);
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
      if (!(*s3)->Put(records[i].first, records[i].second, PutOptions{}).ok()) ++failed;
    });
    if (failed > 0) {
      state.SkipWithError("set-up puts failed");
      return;
    }
    TwoPasses(state, **s3, n);
  }
}
BENCHMARK(BM_PassS3)->Arg(1000)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace carlos::enroll

BENCHMARK_MAIN();

// The deployment store's latency and throughput: put, get and list of 1,000
// small documents on each backend (docs/store.md has the numbers measured).
// The directory backend runs in a temporary directory; the S3 backend runs
// against the server CARLOS_S3_ENV_FILE describes (tests/harness/s3-server's
// env file) or the CARLOS_S3_ENDPOINT / AWS_* environment, and is skipped
// when neither is there.
//
//   tests/harness/s3-server up /tmp/s3 7580
//   CARLOS_S3_ENV_FILE=/tmp/s3/env build/bench/store_bench
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "base/env.h"
#include "base/strings.h"
#include "store/dir_store.h"
#include "store/s3_store.h"

namespace carlos {
namespace {

constexpr int kDocs = 1000;

std::string Doc(int i) {
  // About 300 bytes, the size of a small signed protocol document.
  return fmt::format(
      "{{\"format\":\"carlos.bench/1\",\"box\":\"web-{}\",\"region\":\"eu-west-1\","
      "\"public_key\":\"{}\",\"signature\":\"{}\"}}",
      i, std::string(44, 'k'), std::string(88, 's'));
}

std::string Key(int i) { return fmt::format("control/boxes/web-{:04}.json", i); }

// The S3 server's settings, or an empty map.
std::map<std::string, std::string> S3Settings() {
  std::map<std::string, std::string> env;
  std::string file = EnvOr(ProcessGetenv(), "CARLOS_S3_ENV_FILE", "");
  if (!file.empty()) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
      auto eq = line.find('=');
      if (eq != std::string::npos) env[line.substr(0, eq)] = TrimSpace(line.substr(eq + 1));
    }
  } else {
    for (const char* v :
         {"CARLOS_S3_ENDPOINT", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"}) {
      std::string val = EnvOr(ProcessGetenv(), v, "");
      if (!val.empty()) env[v] = val;
    }
  }
  if (env["CARLOS_S3_ENDPOINT"].empty()) env.clear();
  return env;
}

struct Backends {
  std::string dir;
  std::unique_ptr<Store> dir_store;
  std::unique_ptr<Store> s3_store;
  std::string s3_skip;

  Backends() {
    char tmpl[] = "/tmp/carlos-store-bench-XXXXXX";
    dir = ::mkdtemp(tmpl);
    dir_store = std::move(DirStore::Open(dir)).value();
    auto env = S3Settings();
    if (env.empty()) {
      s3_skip =
          "no S3 server: set CARLOS_S3_ENV_FILE (tests/harness/s3-server) or CARLOS_S3_ENDPOINT";
      return;
    }
    S3StoreOptions o;
    o.bucket = fmt::format("bench-{}", ::getpid());
    o.endpoint = env["CARLOS_S3_ENDPOINT"];
    o.region = env.count("AWS_REGION") ? env["AWS_REGION"] : "us-east-1";
    o.credentials = EnvCredentials(MapGetenv(env));
    auto s3 = S3Store::Open(o);
    if (!s3.ok()) {
      s3_skip = s3.status().message();
      return;
    }
    Status st = (*s3)->CreateBucket();
    if (!st.ok()) {
      s3_skip = st.message();
      return;
    }
    s3_store = std::move(s3).value();
  }
  ~Backends() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

Backends& B() {
  static Backends b;
  return b;
}

Store* Pick(benchmark::State& state, bool s3) {
  if (!s3) return B().dir_store.get();
  if (!B().s3_store) state.SkipWithError(B().s3_skip.c_str());
  return B().s3_store.get();
}

void BM_Put(benchmark::State& state, bool s3) {
  Store* store = Pick(state, s3);
  if (store == nullptr) return;
  int i = 0;
  for (auto _ : state) {
    auto v = store->Put(Key(i % kDocs), Doc(i), {});
    if (!v.ok()) state.SkipWithError(v.status().message().c_str());
    ++i;
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_PutCreateOnly(benchmark::State& state, bool s3) {
  Store* store = Pick(state, s3);
  if (store == nullptr) return;
  int i = 0;
  std::string run = fmt::format("{}", ::getpid());
  for (auto _ : state) {
    auto v =
        store->Put(fmt::format("create/{}/{:05}", run, i), Doc(i), {PutCondition::kCreateOnly, ""});
    if (!v.ok()) state.SkipWithError(v.status().message().c_str());
    ++i;
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Get(benchmark::State& state, bool s3) {
  Store* store = Pick(state, s3);
  if (store == nullptr) return;
  for (int i = 0; i < kDocs; ++i) {
    if (!store->Put(Key(i), Doc(i), {}).ok()) state.SkipWithError("setup put failed");
  }
  int i = 0;
  for (auto _ : state) {
    auto o = store->Get(Key(i++ % kDocs));
    if (!o.ok()) state.SkipWithError(o.status().message().c_str());
    benchmark::DoNotOptimize(o);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_CompareAndSwap(benchmark::State& state, bool s3) {
  Store* store = Pick(state, s3);
  if (store == nullptr) return;
  auto v = store->Put("control/counter", "0", {});
  if (!v.ok()) state.SkipWithError(v.status().message().c_str());
  std::string tag = v.ok() ? *v : "";
  int i = 0;
  for (auto _ : state) {
    auto next = store->Put("control/counter", std::to_string(++i), {PutCondition::kIfMatch, tag});
    if (!next.ok()) state.SkipWithError(next.status().message().c_str());
    tag = next.ok() ? *next : tag;
  }
  state.SetItemsProcessed(state.iterations());
}

// Lists all 1,000 keys under control/boxes/ (one page of 1,000).
void BM_List1000(benchmark::State& state, bool s3) {
  Store* store = Pick(state, s3);
  if (store == nullptr) return;
  for (int i = 0; i < kDocs; ++i) {
    if (!store->Put(Key(i), Doc(i), {}).ok()) state.SkipWithError("setup put failed");
  }
  for (auto _ : state) {
    auto keys = ListAll(*store, "control/boxes/");
    if (!keys.ok() || keys->size() != kDocs) state.SkipWithError("list did not return 1000 keys");
  }
  state.SetItemsProcessed(state.iterations() * kDocs);
}

void Register() {
  for (bool s3 : {false, true}) {
    std::string b = s3 ? "s3" : "dir";
    benchmark::RegisterBenchmark(("Put/" + b).c_str(), BM_Put, s3)
        ->Iterations(kDocs)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("PutCreateOnly/" + b).c_str(), BM_PutCreateOnly, s3)
        ->Iterations(kDocs)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("Get/" + b).c_str(), BM_Get, s3)
        ->Iterations(kDocs)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("CompareAndSwap/" + b).c_str(), BM_CompareAndSwap, s3)
        ->Iterations(kDocs)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("List1000/" + b).c_str(), BM_List1000, s3)
        ->Iterations(20)
        ->UseRealTime();
  }
}

}  // namespace
}  // namespace carlos

int main(int argc, char** argv) {
  carlos::Register();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

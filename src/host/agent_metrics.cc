#include "host/agent_metrics.h"

#include <chrono>

namespace carlos::host {

namespace {

using protocol::Stage;

constexpr Stage kStages[] = {Stage::kRetired, Stage::kUnrecorded, Stage::kConflict,
                             Stage::kHosting, Stage::kGuardReady, Stage::kGuardInstalled,
                             Stage::kInvited, Stage::kReferenced, Stage::kRecorded};
constexpr const char* kModes[] = {"joining", "hosting", "draining"};

std::string StageLabel(Stage s) {
  return s == Stage::kNone ? "none" : std::string(protocol::StageName(s));
}

}  // namespace

AgentMetrics::AgentMetrics(Clock* clock)
    : clock_(clock),
      store_(registry_),
      stage_(registry_.AddGauge("carlos_box_stage",
                                "The box's stage (docs/protocol.md): 1 for the current one.",
                                {"stage"})),
      mode_(registry_.AddGauge("carlos_box_mode", "The agent's mode: 1 for the current one.",
                               {"mode"})),
      changes_(registry_.AddCounter("carlos_box_stage_changes_total",
                                    "Stage changes the agent saw, by from and to stage.",
                                    {"from", "to"})),
      markers_(registry_.AddCounter("carlos_join_marker_writes_total",
                                    "Join requests to root (join marker writes), by outcome.",
                                    {"outcome"})),
      reports_(registry_.AddCounter("carlos_report_publishes_total",
                                    "Status report publishes, by outcome.", {"outcome"})),
      records_(registry_.AddCounter("carlos_record_writes_total",
                                    "Identity record writes, by outcome.", {"outcome"})),
      health_(registry_.AddCounter("carlos_health_requests_total",
                                   "Load balancer health check requests, by answer code.",
                                   {"code"})),
      imds_(registry_.AddCounter("carlos_imds_requests_total",
                                 "IMDS requests, by operation (token, get) and outcome.",
                                 {"operation", "outcome"})),
      imds_duration_(registry_.AddHistogram("carlos_imds_request_duration_seconds",
                                            "IMDS request latency, by operation.", {"operation"})),
      health_200_(health_->With({"200"})),
      health_404_(health_->With({"404"})),
      health_405_(health_->With({"405"})),
      health_503_(health_->With({"503"})) {
  metrics::AddBuildInfo(registry_);
  for (Stage s : kStages) stage_->With({StageLabel(s)})->Set(0);
  for (const char* m : kModes) mode_->With({m})->Set(0);
  since_.store(metrics::UnixSeconds(*clock_));
  registry_.AddGaugeFunc("carlos_box_stage_seconds",
                         "Seconds since the box's current stage began (or the agent started).",
                         [this] { return metrics::UnixSeconds(*clock_) - since_.load(); });
  registry_.AddGaugeFunc("carlos_health_open_connections",
                         "Open connections to the load balancer health check.", [this] {
                           net::HttpServer* s = health_server_.load();
                           return s ? static_cast<double>(s->open_connections()) : 0.0;
                         });
}

void AgentMetrics::Decided(const StatusOr<protocol::ModeDecision>& decision, bool hosting) {
  if (!decision.ok()) return;
  const bool host = decision->mode == protocol::Mode::kHosting;
  const char* mode = host ? "hosting" : hosting ? "draining" : "joining";
  MutexLock lock(&mu_);
  for (const char* m : kModes) mode_->With({m})->Set(std::string_view(m) == mode ? 1 : 0);
  if (decision->stage == last_) return;
  changes_->With({StageLabel(last_), StageLabel(decision->stage)})->Increment();
  if (last_ != Stage::kNone) stage_->With({StageLabel(last_)})->Set(0);
  stage_->With({StageLabel(decision->stage)})->Set(1);
  last_ = decision->stage;
  since_.store(metrics::UnixSeconds(*clock_));
}

void AgentMetrics::Draining() {
  MutexLock lock(&mu_);
  for (const char* m : kModes) mode_->With({m})->Set(std::string_view(m) == "draining" ? 1 : 0);
}

void AgentMetrics::MarkerWrite(const Status& status) {
  markers_->With({metrics::OutcomeLabel(status)})->Increment();
}
void AgentMetrics::ReportPublish(const Status& status) {
  reports_->With({metrics::OutcomeLabel(status)})->Increment();
}
void AgentMetrics::RecordWrite(RecordResult result) {
  const char* outcome = result == RecordResult::kWritten    ? "written"
                        : result == RecordResult::kInPlace  ? "in_place"
                        : result == RecordResult::kConflict ? "conflict"
                                                            : "failed";
  records_->With({outcome})->Increment();
}

void AgentMetrics::ImdsExchanged(std::string_view method, long http_status, const Status& transport,
                                 double seconds) {
  const char* operation = method == "PUT" ? "token" : "get";
  std::string outcome =
      transport.ok() ? std::to_string(http_status) : metrics::OutcomeLabel(transport);
  imds_->With({operation, outcome})->Increment();
  imds_duration_->With({operation})->Observe(seconds);
}

void AgentMetrics::HealthAnswered(int code) {
  switch (code) {
    case 200:
      health_200_->Increment();
      break;
    case 404:
      health_404_->Increment();
      break;
    case 405:
      health_405_->Increment();
      break;
    case 503:
      health_503_->Increment();
      break;
    default:
      health_->With({std::to_string(code)})->Increment();
  }
}

}  // namespace carlos::host

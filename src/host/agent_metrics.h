// The agent's metrics (`carlos agent -metrics ADDR`; docs/operator.md,
// "Metrics"): the box's stage and mode, stage changes, seconds in the
// current stage, the store's requests (metrics::MeasuredStore), the health
// check's answers and open connections, and the outcome of each marker
// write, report publish and identity record write. No label carries the
// box's label or any other unbounded value: one agent is one box, and
// Prometheus's target labels name it.
//
// Thread-safety: every method is safe from any thread.
#pragma once

#include <atomic>
#include <memory>

#include "base/clock.h"
#include "base/mutex.h"
#include "base/status.h"
#include "host/record_loop.h"
#include "metrics/measured_store.h"
#include "metrics/registry.h"
#include "net/http_server.h"
#include "protocol/mode.h"

namespace carlos::host {

class AgentMetrics {
 public:
  // `clock` (the wall clock, for seconds in stage and the last read) must
  // outlive this object.
  explicit AgentMetrics(Clock* clock);

  metrics::Registry& registry() { return registry_; }
  metrics::StoreMetrics* store() { return &store_; }

  // A mode decision (SelectMode's answer), from joining (`hosting` false)
  // or hosting (true). Sets carlos_box_stage{stage} (1 for the decision's
  // stage, 0 for the others) and carlos_box_mode{mode}: joining, hosting,
  // or draining when hosting decides the box may no longer host; counts
  // carlos_box_stage_changes_total{from,to} when the stage differs from the
  // last one ("none" before the first) and restarts the seconds in stage.
  // A failed decision (the stage is unknown) changes nothing.
  void Decided(const StatusOr<protocol::ModeDecision>& decision, bool hosting);
  // The hosting agent drains (stopped by SIGTERM/SIGINT, or no longer
  // allowed to host): carlos_box_mode{mode="draining"} 1, the others 0; the
  // stage is left as it was.
  void Draining();

  // The outcome of a join request to root (the marker write) and of a
  // status report publish: counts carlos_join_marker_writes_total{outcome}
  // and carlos_report_publishes_total{outcome} with
  // metrics::OutcomeLabel(status).
  void MarkerWrite(const Status& status);
  void ReportPublish(const Status& status);
  // One identity record attempt (host/record_loop.h): counts
  // carlos_record_writes_total{outcome}, outcome written, in_place,
  // conflict or failed.
  void RecordWrite(RecordResult result);

  // One exchange with IMDS (imds::ImdsClient::Observer): counts
  // carlos_imds_requests_total{operation,outcome} (operation token for a
  // PUT, get for a GET; outcome the HTTP status, "200", "404", ..., or the
  // transport error's OutcomeLabel, "unavailable", "deadline_exceeded")
  // and observes carlos_imds_request_duration_seconds{operation}.
  void ImdsExchanged(std::string_view method, long http_status, const Status& transport,
                     double seconds);

  // Counts one health check answer with this HTTP status code
  // (carlos_health_requests_total{code}); the codes the check gives (200,
  // 404, 405, 503) are counted without a lookup.
  void HealthAnswered(int code);
  // The health listener whose open connections carlos_health_open_connections
  // reports (nullptr: 0). The server must outlive its being watched: unset
  // it before shutting the server down.
  void WatchHealthServer(net::HttpServer* server) { health_server_.store(server); }

 private:
  Clock* clock_;
  metrics::Registry registry_;
  metrics::StoreMetrics store_;
  metrics::Family<metrics::Gauge>* stage_;
  metrics::Family<metrics::Gauge>* mode_;
  metrics::Family<metrics::Counter>* changes_;
  metrics::Family<metrics::Counter>* markers_;
  metrics::Family<metrics::Counter>* reports_;
  metrics::Family<metrics::Counter>* records_;
  metrics::Family<metrics::Counter>* health_;
  metrics::Family<metrics::Counter>* imds_;
  metrics::Family<metrics::Histogram>* imds_duration_;
  metrics::Counter* health_200_;
  metrics::Counter* health_404_;
  metrics::Counter* health_405_;
  metrics::Counter* health_503_;
  std::atomic<net::HttpServer*> health_server_{nullptr};
  Mutex mu_;
  protocol::Stage last_ CARLOS_GUARDED_BY(mu_) = protocol::Stage::kNone;
  std::atomic<double> since_{0};  // Unix seconds the current stage began.
};

}  // namespace carlos::host

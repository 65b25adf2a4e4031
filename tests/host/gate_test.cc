#include "host/gate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "host/joinmode.h"

namespace carlos::host {
namespace {

using namespace carlos::protocol;  // NOLINT: the stages and decisions under test.

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const SystemTime kT0 = SystemTime(std::chrono::seconds(1'800'000'000));

// A gate against scripts: open and select answer their scripts' entries in
// turn (the last one repeating).
class GateHarness {
 public:
  explicit GateHarness(std::map<std::string, std::string> env = {{"CARLOS_HOST_CLAIM", "1"},
                                                                 {"CARLOS_REGION_HA", "1"}})
      : clock_(kT0) {
    g_.getenv = MapGetenv(std::move(env));
    g_.wait = Milliseconds(15'000);
    g_.clock = &clock_;
    g_.logf = [this](const std::string& line) { logs_.push_back(line); };
    g_.open = [this]() -> StatusOr<std::shared_ptr<const ModeFacts>> {
      Status st = opens_.empty() ? OkStatus() : opens_[std::min(opened_, opens_.size() - 1)];
      ++opened_;
      if (!st.ok()) return st;
      auto f = std::make_shared<ModeFacts>();
      f->box = "web-1";
      return std::shared_ptr<const ModeFacts>(f);
    };
    g_.select = [this](const ModeFacts& f) -> StatusOr<ModeDecision> {
      EXPECT_EQ(f.box, "web-1");
      return selects_[std::min(selected_++, selects_.size() - 1)];
    };
    g_.join = [this](std::shared_ptr<const ModeFacts> f, const ModeDecision& d, const Stop&) {
      EXPECT_EQ(f->box, "web-1");
      joined_.push_back(d);
      return join_result_;
    };
  }

  bool Run() { return DecideAgentMode(g_, stop_); }

  FakeClock clock_;
  Gate g_;
  Stop stop_;
  std::vector<Status> opens_;
  std::vector<StatusOr<ModeDecision>> selects_;
  size_t opened_ = 0, selected_ = 0;
  std::vector<ModeDecision> joined_;
  Status join_result_ = Cancelled("joining stopped");
  std::vector<std::string> logs_;
};

const ModeDecision kHosting{Mode::kHosting, "web-1", Stage::kHosting, "(enrolled)"};
const ModeDecision kRecorded{Mode::kJoining, "web-1", Stage::kRecorded, "(waiting to be invited)"};

TEST(Gate, ASwitchOffHostsDirectly) {
  for (auto env : std::vector<std::map<std::string, std::string>>{
           {},
           {{"CARLOS_HOST_CLAIM", "1"}},
           {{"CARLOS_REGION_HA", "1"}},
           {{"CARLOS_HOST_CLAIM", "1"}, {"CARLOS_REGION_HA", " \t"}},
           {{"CARLOS_HOST_CLAIM", ""}, {"CARLOS_REGION_HA", "1"}}}) {
    GateHarness h(env);
    h.selects_ = {kRecorded};
    EXPECT_TRUE(h.Run());
    EXPECT_EQ(h.opened_, 0u);
    EXPECT_THAT(h.logs_, IsEmpty());
  }
}

TEST(Gate, AnArmedGuardIsEnforcedWithASwitchOff) {
  for (auto env : std::vector<std::map<std::string, std::string>>{
           {}, {{"CARLOS_HOST_CLAIM", "1"}}, {{"CARLOS_REGION_HA", "1"}}}) {
    GateHarness h(env);
    h.g_.guard_armed = [] { return true; };
    h.selects_ = {kRecorded};
    EXPECT_FALSE(h.Run());
    EXPECT_EQ(h.opened_, 1u);
    ASSERT_EQ(h.joined_.size(), 1u);
    EXPECT_THAT(h.logs_, ElementsAre("agent: the guard is armed: it stays enforced whatever "
                                     "CARLOS_HOST_CLAIM and CARLOS_REGION_HA say",
                                     "agent: web-1 is joining (recorded): it hosts nothing until "
                                     "it is enrolled"));
  }
  // Not armed: the switches decide (hosts at once).
  GateHarness h(std::map<std::string, std::string>{});
  h.g_.guard_armed = [] { return false; };
  EXPECT_TRUE(h.Run());
  EXPECT_EQ(h.opened_, 0u);
}

TEST(Gate, SwitchesAreOnWhateverTheirValue) {
  GateHarness h({{"CARLOS_HOST_CLAIM", "0"}, {"CARLOS_REGION_HA", "false"}});
  h.selects_ = {kHosting};
  EXPECT_TRUE(h.Run());
  EXPECT_EQ(h.opened_, 1u);
}

TEST(Gate, HostingIsTrueWithoutJoining) {
  GateHarness h;
  h.selects_ = {kHosting};
  EXPECT_TRUE(h.Run());
  EXPECT_THAT(h.joined_, IsEmpty());
  EXPECT_THAT(h.logs_, IsEmpty());
}

TEST(Gate, OpenErrorsAreModeUnknownLoggedOncePerDistinctError) {
  GateHarness h;
  Status down = Unavailable("open store: connection refused");
  Status key = InvalidArgument("CARLOS_ENROLLMENT_PUBKEY is not set");
  h.opens_ = {down, down, key, key, down, OkStatus()};
  h.selects_ = {kHosting};
  EXPECT_TRUE(h.Run());
  EXPECT_THAT(h.logs_,
              ElementsAre("agent: mode: mode unknown: the deployment's stores and this box's "
                          "guard: open store: connection refused; checking again",
                          "agent: mode: mode unknown: the deployment's stores and this box's "
                          "guard: CARLOS_ENROLLMENT_PUBKEY is not set; checking again",
                          "agent: mode: mode unknown: the deployment's stores and this box's "
                          "guard: open store: connection refused; checking again",
                          "agent: mode: the mode is known again after 1m15s"));
  EXPECT_EQ(h.clock_.sleeps(), 5);  // Waited once after each failure.
  EXPECT_EQ(h.clock_.Now() - kT0, Milliseconds(5 * 15'000));
}

TEST(Gate, SelectErrorsAreLoggedOnceAndWaitedOut) {
  GateHarness h;
  Status unknown = ModeUnknown("control/boxes/web-1.json", Unavailable("store down"));
  h.selects_ = {unknown, unknown, unknown, kRecorded};
  EXPECT_FALSE(h.Run());
  EXPECT_THAT(h.logs_,
              ElementsAre("agent: mode: mode unknown: control/boxes/web-1.json: store down; "
                          "checking again",
                          "agent: mode: the mode is known again after 45s",
                          "agent: web-1 is joining (recorded): it hosts nothing until it is "
                          "enrolled"));
  EXPECT_EQ(h.opened_, 4u);  // The facts are opened again on every attempt, as the seed does.
  ASSERT_EQ(h.joined_.size(), 1u);
  EXPECT_EQ(h.joined_[0], kRecorded);
}

TEST(Gate, StopWhileWaitingIsFalseWithoutJoining) {
  GateHarness h;
  h.opens_ = {Unavailable("down")};
  h.clock_.OnSleep([&](SystemTime) {
    if (h.clock_.sleeps() == 3) h.stop_.Request();
  });
  EXPECT_FALSE(h.Run());
  EXPECT_THAT(h.joined_, IsEmpty());
  EXPECT_EQ(h.opened_, 3u);
  EXPECT_EQ(h.logs_.size(), 1u);
}

TEST(Gate, JoiningRunsJoinAndIsFalse) {
  GateHarness h;
  h.selects_ = {kRecorded};
  h.join_result_ = OkStatus();  // Joined until hosting: the process ends and is restarted.
  EXPECT_FALSE(h.Run());
  EXPECT_THAT(h.logs_, ElementsAre("agent: web-1 is joining (recorded): it hosts nothing until "
                                   "it is enrolled"));
  ASSERT_EQ(h.joined_.size(), 1u);
}

TEST(Gate, ACancelledJoinIsNotLogged) {
  GateHarness h;
  h.selects_ = {kRecorded};
  EXPECT_FALSE(h.Run());
  EXPECT_EQ(h.logs_.size(), 1u);
}

TEST(Gate, AJoinErrorIsLogged) {
  GateHarness h;
  h.selects_ = {kRecorded};
  h.join_result_ = Unavailable("listen :80: address in use");
  EXPECT_FALSE(h.Run());
  EXPECT_THAT(h.logs_, ElementsAre("agent: web-1 is joining (recorded): it hosts nothing until "
                                   "it is enrolled",
                                   "agent: joining: listen :80: address in use"));
}

}  // namespace
}  // namespace carlos::host

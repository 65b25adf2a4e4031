#include "dev/region_plan.h"

#include "dev/region_env.h"

namespace carlos::dev {

RegionPlan PlanRegion(const RegionOptions& options, const RegionLayout& layout,
                      const std::vector<std::string>& environ, const std::string& pubkey,
                      const std::vector<std::string>& imds_endpoints) {
  RegionPlan plan;
  if (options.s3_bucket.empty()) {
    plan.shared["CARLOS_DEPLOYMENT_DIR"] = layout.deployment_dir();
  } else {
    plan.shared["CARLOS_DEPLOYMENT_BUCKET"] = options.s3_bucket;
    // The endpoint is the region's own setting, passed through (ChildEnv
    // drops every other CARLOS_* variable of the region's environment).
    std::string endpoint = EnvValue(environ, "CARLOS_S3_ENDPOINT");
    if (!endpoint.empty()) plan.shared["CARLOS_S3_ENDPOINT"] = endpoint;
  }
  plan.shared["CARLOS_REGION"] = options.region;
  plan.shared["CARLOS_ENROLLMENT_PUBKEY"] = pubkey;

  const std::string& bin = options.carlos_bin;
  for (int i = 1; i <= options.boxes; ++i) {
    std::string box = BoxLabel(i);
    plan.boxes.push_back(box);
    std::map<std::string, std::string> env = plan.shared;
    // On a box, /etc/carlos/host.env: both switches on, so the agent joins.
    env["CARLOS_HOST_CLAIM"] = "1";
    env["CARLOS_REGION_HA"] = "1";
    env["CARLOS_BOX_LABEL"] = box;
    env["CARLOS_DATA_DIR"] = layout.data_dir(box);
    env["CARLOS_IMDS_ENDPOINT"] = imds_endpoints[static_cast<size_t>(i - 1)];
    // Each box is its own machine: /etc/machine-id is the host's, shared.
    env["CARLOS_MACHINE_ID_FILE"] = layout.machine_id(box);
    std::vector<std::string> child_env = ChildEnv(environ, env);

    UnitSpec agent;
    agent.name = box + " agent";
    std::string http = "127.0.0.1:" + std::to_string(BoxHttpPort(options.base_port, i));
    if (options.guard_exec) {
      agent.process.argv = {bin, "system", "guard-exec", "--", bin, "agent", "-http", http};
    } else {
      agent.process.argv = {bin, "agent", "-http", http};
    }
    if (options.metrics) {
      agent.process.argv.push_back("-metrics");
      agent.process.argv.push_back("127.0.0.1:" +
                                   std::to_string(BoxMetricsPort(options.base_port, i)));
    }
    agent.process.env = child_env;
    agent.process.log_path = layout.agent_log(box);
    agent.restart = Restart::kAlways;
    agent.restart_delay = options.restart_delay;
    // Exit 0 is the hand-over to hosting (or the region's stop): at once.
    agent.clean_exit_delay = Milliseconds(0);
    agent.pid_file = layout.agent_pid(box);
    plan.agents.push_back(std::move(agent));

    UnitSpec join;
    join.name = box + " join";
    join.process.argv = {bin, "system", "join"};
    join.process.env = child_env;
    join.process.log_path = layout.join_log(box);
    join.restart = Restart::kNo;
    plan.joins.push_back(std::move(join));
  }

  std::map<std::string, std::string> env = plan.shared;
  env["CARLOS_ENROLLMENT_KEY"] = layout.enrollment_key();
  env[kIidCertEnv] = layout.imds_cert();
  plan.enroller.name = "enroller";
  plan.enroller.process.argv = {bin, "boxes", "auto-enroll", "--watch"};
  if (!options.enroller_every.empty()) {
    plan.enroller.process.argv.push_back("--every");
    plan.enroller.process.argv.push_back(options.enroller_every);
  }
  if (options.metrics) {
    plan.enroller.process.argv.push_back("--metrics");
    plan.enroller.process.argv.push_back("127.0.0.1:" +
                                         std::to_string(EnrollerMetricsPort(options.base_port)));
  }
  plan.enroller.process.env = ChildEnv(environ, env);
  plan.enroller.process.log_path = layout.enroller_log();
  plan.enroller.restart = Restart::kAlways;
  plan.enroller.restart_delay = options.enroller_restart_delay;
  plan.enroller.pid_file = layout.enroller_pid();
  return plan;
}

}  // namespace carlos::dev

// Where `carlos dev region` keeps things, all under one region
// directory (default ./carlos-region), and which loopback ports it uses.
// A second run with the same directory finds the same enrollment key, the
// same IMDS signer and the same boxes' data dirs (so the same box keys and
// identity records), and picks the deployment up where it was.
//
//   DIR/region.env            the settings for running `carlos boxes …` and
//                             `carlos store …` by hand against this region
//   DIR/deployment/           the deployment store (directory backend)
//   DIR/enrollment.key        the enrollment key (PKCS #8 PEM, 0600)
//   DIR/enrollment.pub        its public key, CARLOS_ENROLLMENT_PUBKEY
//   DIR/imds/signer.crt|.key  the IMDS emulator's stand-in AWS certificate
//   DIR/imds/fault            test-facing: an IMDS fault to inject (RegionImdsFaults)
//   DIR/boxes/<box>/          each box's data dir (CARLOS_DATA_DIR), with its
//                             own machine-id (CARLOS_MACHINE_ID_FILE)
//   DIR/logs/<box>.agent.log  each box's agent output (every start appends)
//   DIR/logs/<box>.join.log   each `carlos system join` run for the box
//   DIR/logs/enroller.log     `carlos boxes auto-enroll --watch`
//   DIR/logs/region.log       the region's own lines (starts, exits, changes)
//   DIR/run/<box>.agent.pid   the running agent's pid (removed when it ends)
//   DIR/run/enroller.pid
//   DIR/run/region.lock       held while a region runs on DIR
//
// Ports: box i (from 1) answers the load balancer on 127.0.0.1:base+i and
// its emulated IMDS is 127.0.0.1:base+100+i, so at most 99 boxes.
//
// Thread-safety: plain values and functions.
#pragma once

#include <string>

#include "protocol/settings.h"

namespace carlos::dev {

inline constexpr int kDefaultBasePort = 8400;
inline constexpr int kMaxBoxes = 99;
inline constexpr int kImdsPortOffset = 100;

struct RegionLayout {
  std::string dir;  // The region directory, absolute.

  std::string env_file() const { return dir + "/region.env"; }
  std::string deployment_dir() const { return dir + "/deployment"; }
  std::string enrollment_key() const { return dir + "/enrollment.key"; }
  std::string enrollment_pub() const { return dir + "/enrollment.pub"; }
  std::string imds_dir() const { return dir + "/imds"; }
  std::string imds_cert() const { return dir + "/imds/signer.crt"; }
  std::string imds_key() const { return dir + "/imds/signer.key"; }
  // Test-facing: a line here makes the region's IMDS fail for a while
  // (region_imds.h RegionImdsFaults).
  std::string imds_fault() const { return dir + "/imds/fault"; }
  std::string boxes_dir() const { return dir + "/boxes"; }
  std::string logs_dir() const { return dir + "/logs"; }
  std::string run_dir() const { return dir + "/run"; }
  std::string lock_file() const { return dir + "/run/region.lock"; }
  std::string region_log() const { return dir + "/logs/region.log"; }
  std::string enroller_log() const { return dir + "/logs/enroller.log"; }
  std::string enroller_pid() const { return dir + "/run/enroller.pid"; }

  std::string data_dir(const std::string& box) const { return boxes_dir() + "/" + box; }
  std::string marker(const std::string& box) const {
    return protocol::JoinMarkerPath(data_dir(box));
  }
  // The box's own machine id (32 hex digits), CARLOS_MACHINE_ID_FILE.
  std::string machine_id(const std::string& box) const { return data_dir(box) + "/machine-id"; }
  std::string agent_log(const std::string& box) const {
    return logs_dir() + "/" + box + ".agent.log";
  }
  std::string join_log(const std::string& box) const {
    return logs_dir() + "/" + box + ".join.log";
  }
  std::string agent_pid(const std::string& box) const {
    return run_dir() + "/" + box + ".agent.pid";
  }
};

// Box i's label (i from 1): "box-1".
std::string BoxLabel(int i);
// Box i's health port and emulated IMDS port.
inline int BoxHttpPort(int base_port, int i) { return base_port + i; }
inline int BoxImdsPort(int base_port, int i) { return base_port + kImdsPortOffset + i; }
// With `carlos dev region --metrics`: box i's agent serves GET /metrics on
// base_port+200+i, the enroller on base_port+200.
inline constexpr int kMetricsPortOffset = 200;
inline int BoxMetricsPort(int base_port, int i) { return base_port + kMetricsPortOffset + i; }
inline int EnrollerMetricsPort(int base_port) { return base_port + kMetricsPortOffset; }
// Box i's health check URL: "http://127.0.0.1:<port>/_carlos/lb".
std::string BoxHealthUrl(int base_port, int i);
// Box i's emulated EC2 instance id: "i-0c4a10500" followed by i as 8 hex
// digits (17 characters after "i-", as EC2's are).
std::string BoxInstanceId(int i);

}  // namespace carlos::dev

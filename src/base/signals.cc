#include "base/signals.h"

#include <pthread.h>
#include <signal.h>

#include <thread>

namespace carlos {

void StopOnSignals(std::shared_ptr<Stop> stop) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread([stop, set] {
    int sig = 0;
    while (sigwait(&set, &sig) != 0) {
    }
    stop->Request();
  }).detach();
}

}  // namespace carlos

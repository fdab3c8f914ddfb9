// run_worker: `texc worker` — one measuring process of the farm (docs/tuning.md). It registers
// the device it measures under its kind (farm_keys::device), then pulls the jobs of that kind from
// the kind's stream as a member of its consumer group (XREADGROUP): a job is delivered to one worker
// and stays pending, owned by it, until acknowledged. For each job: a malformed one (not a job, too
// large, of another device kind, a shipped artefact it cannot run (FarmArtefact.h artefact_refusal:
// another kind, triple or CPU, PTX newer than its GPU, a VDLA program of another configuration), an
// id that is not its content hash) is logged, acknowledged and
// counted (farm_keys::rejected); a job whose result is already stored is acknowledged at once;
// otherwise `measure` runs it (the candidate rebuilt and measured in a child process exactly as
// local tuning does) and the result is stored under the job id only if none is (SET NX), and only
// then is the job acknowledged. So a worker that dies mid-job loses nothing: its job stays pending.
//
// While a job is in hand a heartbeat thread re-claims it every visibility/3 (XCLAIM, which
// resets its idle time) and refreshes the worker's key (expiring after a visibility); a job idle
// longer than the visibility timeout has lost its worker, and the next worker to look claims it
// (XAUTOCLAIM) before reading new jobs. SIGTERM or SIGINT: the job in hand is finished (its result
// stored and acknowledged), then the worker leaves.
//
// Test hook: TEXC_FARM_TEST_DELAY_S=S makes the worker sleep S seconds before measuring each job
// (in the worker, not the child), so that a test can kill it with a job in hand.
#pragma once
#include <cstddef>
#include <functional>
#include <ostream>
#include <string>

#include "tools/farm/FarmMeasurer.h"
#include "tuner/Measure.h"

namespace texc {

struct WorkerOptions {
  FarmOptions farm;
  std::string target;            // what it measures ("x86"): which shipped artefacts it runs
  Machine machine;               // the triple, CPU and features shipped artefacts must suit (cuda: the
                                 // device's PTX target as cpu; vdla: the configuration's vdla_config_id)
  std::string consumer;          // the worker's name in the group ("" = HOST-PID)
  double visibility_s = 30;      // a pending job idle this long is claimed by another worker
  size_t max_job_bytes = 4 << 20;
  int max_jobs = 0;              // leave after this many measured jobs (0: run until SIGTERM)
};

/// Measures a well-formed job of this worker's kind (throws std::exception for a job whose
/// candidate cannot be rebuilt: the worker stores an "error" result with the message).
using MeasureJob = std::function<Measurement(const FarmJob&)>;

/// Runs until SIGTERM or SIGINT (or max_jobs); `device` names what is measured (its device() and
/// machine(), which the tuner's records carry). Throws BrokerError when the broker is lost.
void run_worker(const WorkerOptions& options, const Runner& device, const MeasureJob& measure, std::ostream& log);

}  // namespace texc

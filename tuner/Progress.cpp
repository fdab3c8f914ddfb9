#include "tuner/Progress.h"

#include <cstdio>

namespace texc {

Progress::Progress(std::ostream& out, bool tty, std::string op, int total, int already_done)
    : out_(out), tty_(tty), op_(std::move(op)), total_(total), start_done_(already_done) {}

namespace {
std::string duration(double s) {
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "%.0fs", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", int(s) / 60, int(s) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", int(s) / 3600, int(s) % 3600 / 60);
  return buf;
}
}  // namespace

std::string Progress::line(const std::string& op, int done, int total, double best_gflops, int failures,
                           double elapsed_s, double eta_s) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "tune %s: %d/%d trials  best %.2f GFLOP/s  %d failed  %s elapsed  ETA %s", op.c_str(),
                done, total, best_gflops, failures, duration(elapsed_s).c_str(),
                eta_s < 0 ? "?" : duration(eta_s).c_str());
  return buf;
}

void Progress::batch(int done, double best_gflops, const std::string& best_config, int failures,
                     const std::string& measurers) {
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  int new_done = done - start_done_;
  double eta = new_done > 0 ? elapsed / new_done * std::max(0, total_ - done) : -1;
  std::string text = line(op_, done, total_, best_gflops, failures, elapsed, eta);
  if (!best_config.empty()) text += "  (" + best_config + ")";
  if (!measurers.empty()) text += "  | " + measurers;
  if (tty_) {
    out_ << "\r\033[K" << text << std::flush;
    open_line_ = true;
  } else {
    out_ << text << std::endl;
  }
}

void Progress::finish() {
  if (open_line_) out_ << "\n" << std::flush;
  open_line_ = false;
}

}  // namespace texc

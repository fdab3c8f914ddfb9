// Progress: one line per batch of a tuning run — trials done/total, best throughput so far,
// failures, elapsed time and ETA. On a terminal the line is rewritten in place (\r); otherwise
// (a log, a pipe, CI) each batch is a plain line.
#pragma once
#include <chrono>
#include <ostream>
#include <string>

namespace texc {

class Progress {
 public:
  Progress(std::ostream& out, bool tty, std::string op, int total, int already_done);
  /// After a batch: `done` trials of `total` (resumed ones included), `best` GFLOP/s, `failures`;
  /// `measurers`, when not empty, is what the measurers say (the farm's state: BatchMeasurer::progress).
  void batch(int done, double best_gflops, const std::string& best_config, int failures,
             const std::string& measurers = "");
  /// Ends the in-place line on a terminal.
  void finish();
  /// The text of a progress line (without \r or \n), for tests.
  static std::string line(const std::string& op, int done, int total, double best_gflops, int failures,
                          double elapsed_s, double eta_s);

 private:
  std::ostream& out_;
  bool tty_;
  std::string op_;
  int total_, start_done_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  bool open_line_ = false;
};

}  // namespace texc

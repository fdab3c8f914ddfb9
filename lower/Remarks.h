// How the lowering passes report remarks (ir/Remark.h). A pass knows loops and buffers, not the
// source: it reports against a loop's or a buffer's name, and lower_op places the remark at the
// schedule primitive that made that loop vectorized or parallel, or made that cache (else at the
// op). Reports go to the innermost live RemarkScope of the thread (lower_op opens one when its
// caller asks for remarks); without one they are dropped, so passes report unconditionally.
#pragma once
#include <string>
#include <vector>

namespace texc {

struct PendingRemark {
  enum class Subject { Loop, Buffer };
  Subject subject;
  std::string name;     // the loop variable's or the buffer's name
  std::string message;  // complete, naming the loop or buffer
};

class RemarkScope {
 public:
  explicit RemarkScope(std::vector<PendingRemark>* sink);
  ~RemarkScope();
  RemarkScope(const RemarkScope&) = delete;
  RemarkScope& operator=(const RemarkScope&) = delete;

 private:
  std::vector<PendingRemark>* previous_;
};

void report_remark(PendingRemark remark);

}  // namespace texc

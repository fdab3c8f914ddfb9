#include "lower/Remarks.h"

namespace texc {

namespace {
thread_local std::vector<PendingRemark>* t_sink = nullptr;
}

RemarkScope::RemarkScope(std::vector<PendingRemark>* sink) : previous_(t_sink) { t_sink = sink; }
RemarkScope::~RemarkScope() { t_sink = previous_; }

void report_remark(PendingRemark remark) {
  if (t_sink) t_sink->push_back(std::move(remark));
}

}  // namespace texc

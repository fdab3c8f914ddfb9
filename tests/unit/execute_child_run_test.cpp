// backends/execute/ChildRun.h: run_in_child reports each way a child can end — returned (with what it sent),
// threw (the message), crashed (the signal, and what it sent before), exited, timed out (killed) —
// and the parent goes on in every case.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <stdexcept>
#include <thread>

#include "backends/execute/ChildRun.h"

using namespace texc;

TEST_CASE("a child that returns: what it sent arrives in order") {
  ChildOutcome c = run_in_child([](ChildChannel& parent) {
    parent.send("one ");
    parent.send(std::string(200000, 'x'));  // more than a pipe holds
    parent.send(" two");
  });
  CHECK(c.returned());
  REQUIRE(c.data.size() == 4 + 200000 + 4);
  CHECK(c.data.substr(0, 4) == "one ");
  CHECK(c.data.substr(c.data.size() - 4) == " two");
}

TEST_CASE("a child whose body throws: the message comes back") {
  ChildOutcome c = run_in_child([](ChildChannel&) { throw std::runtime_error("no such kernel"); });
  CHECK(c.end == ChildOutcome::End::Threw);
  CHECK(c.message == "no such kernel");
  CHECK(c.describe() == "no such kernel");
}

TEST_CASE("a child that crashes: the signal, and what it sent before") {
  ChildOutcome c = run_in_child([](ChildChannel& parent) {
    parent.send("before");
    std::signal(SIGSEGV, SIG_DFL);  // doctest's handler would catch it
    std::raise(SIGSEGV);
  });
  CHECK(c.end == ChildOutcome::End::Signaled);
  CHECK(c.signal == SIGSEGV);
  CHECK(c.data == "before");
  CHECK(c.describe() == "crashed (SIGSEGV, Segmentation fault)");
}

TEST_CASE("a child that exits by itself") {
  ChildOutcome c = run_in_child([](ChildChannel&) { _exit(7); });
  CHECK(c.end == ChildOutcome::End::Exited);
  CHECK(c.exit_status == 7);
  CHECK(c.describe() == "exited with status 7");
}

TEST_CASE("a child that hangs is killed at the timeout") {
  auto start = std::chrono::steady_clock::now();
  ChildOutcome c = run_in_child([](ChildChannel& parent) {
    parent.send("started");
    for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }, 0.3);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(c.end == ChildOutcome::End::TimedOut);
  CHECK(c.data == "started");
  CHECK(s >= 0.3);
  CHECK(s < 5);
  CHECK(c.describe() == "timed out (killed after 0.3 s)");
}

TEST_CASE("the time a child spends with its clock paused does not count, up to its own limit") {
  // 0.6 s paused (a measurement's reference) and 0.1 s timed fit a 0.3 s limit.
  ChildOutcome fits = run_in_child([](ChildChannel& parent) {
    parent.pause_clock();
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    parent.resume_clock();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    parent.send("done");
  }, 0.3);
  CHECK(fits.end == ChildOutcome::End::Returned);
  CHECK(fits.data == "done");
  // After the pause the limit holds as before.
  ChildOutcome slow = run_in_child([](ChildChannel& parent) {
    parent.pause_clock();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    parent.resume_clock();
    for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }, 0.3);
  CHECK(slow.end == ChildOutcome::End::TimedOut);
  CHECK_FALSE(slow.paused_too_long);
  // A pause past max_paused_s is a timeout of its own.
  auto start = std::chrono::steady_clock::now();
  ChildOutcome stuck = run_in_child([](ChildChannel& parent) {
    parent.pause_clock();
    for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }, 0.3, 0.5);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(stuck.end == ChildOutcome::End::TimedOut);
  CHECK(stuck.paused_too_long);
  CHECK(s >= 0.5);
  CHECK(s < 5);
  CHECK(stuck.describe() == "timed out (killed after 0.5 s paused)");
}

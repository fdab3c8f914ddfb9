// Internal errors (ir/Diagnostics.h): TEXC_CHECK throws InternalError, so a program that embeds
// texc's libraries survives a bug in texc; it is neither a UserError nor a std::runtime_error or
// std::logic_error, so code that handles the user's mistakes or the machine's failures does not
// take it for one of them.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "ir/Diagnostics.h"

using namespace texc;

namespace {
int checked_half(int x) {
  TEXC_CHECK(x % 2 == 0) << "odd input " << x;
  return x / 2;
}
}  // namespace

TEST_CASE("TEXC_CHECK throws InternalError with its place, its condition and its details") {
  CHECK(checked_half(8) == 4);
  std::string what;
  try {
    checked_half(7);
  } catch (const InternalError& e) {
    what = e.what();
  }
  CHECK(what.find("texc: internal error at ") == 0);
  CHECK(what.find("ir_diagnostics_test.cpp:") != std::string::npos);
  CHECK(what.find("check failed: x % 2 == 0: odd input 7") != std::string::npos);
  std::ostringstream printed;
  print_internal_error(printed, InternalError(what));
  CHECK(printed.str() == what + "\n(this is a bug in texc, not in your program)\n");
}

TEST_CASE("an internal error is none of the errors texc expects") {
  static_assert(!std::is_base_of_v<std::runtime_error, InternalError>);
  static_assert(!std::is_base_of_v<std::logic_error, InternalError>);
  static_assert(!std::is_base_of_v<UserError, InternalError>);
  bool taken_for_runtime_error = false, internal = false;
  try {
    try {
      TEXC_UNREACHABLE() << "a case no caller reaches";
    } catch (const std::runtime_error&) {
      taken_for_runtime_error = true;
    }
  } catch (const InternalError& e) {
    internal = std::string(e.what()).find("unreachable: a case no caller reaches") != std::string::npos;
  }
  CHECK_FALSE(taken_for_runtime_error);
  CHECK(internal);
}

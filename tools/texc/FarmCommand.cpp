// `texc farm status --broker redis://HOST:PORT [--password-file F] [--json]`: what the measurement
// farm's broker says about each device kind (tools/farm/FarmStatus.h, docs/tuning.md): workers
// alive, jobs queued and in flight, results done, failed, rejected and reclaimed, results per minute.
#include "tools/driver/EnvironmentError.h"
#include "tools/texc/Commands.h"

#ifdef TEXC_HAVE_FARM
#include <iostream>

#include "tools/farm/FarmStatus.h"
#include "tools/texc/FarmFlags.h"

namespace texc {

int farm_command(int argc, const char* const* argv) {
  if (argc < 3 || std::string(argv[2]) != "status")
    throw CommandLineError("'texc farm' takes one subcommand: status --broker redis://HOST:PORT [--password-file F] "
                           "[--json] [--insecure-broker]");
  std::string broker, password_file;
  bool json = false, insecure_broker = false;
  for (FarmFlags flags(argc, argv, 3); flags.next();) {
    if (flags.flag() == "--broker") broker = flags.value();
    else if (flags.flag() == "--password-file") password_file = flags.value();
    else if (flags.given() == "--json") json = true;
    else if (flags.given() == "--insecure-broker") insecure_broker = true;
    else throw CommandLineError("'texc farm status' does not take '" + flags.given() + "'");
  }
  if (broker.empty()) throw CommandLineError("'texc farm status' needs --broker redis://HOST:PORT");
  BrokerAddress address;
  std::string password;
  try {  // a mistake in the address or the password file: exit 1
    address = BrokerAddress::parse(broker);
    check_broker_is_private(address, insecure_broker);
    if (!password_file.empty()) password = read_password_file(password_file);
  } catch (const BrokerError& e) {
    throw CommandLineError(e.what());
  }
  try {  // the broker cannot be reached or refuses: exit 2
    RedisClient redis(address, password, /*reconnect_s=*/0);
    std::vector<KindStatus> kinds = read_farm_status(redis);
    std::cout << (json ? farm_status_json(address.url(), kinds) + "\n" : farm_status_text(address.url(), kinds));
  } catch (const BrokerError& e) {
    throw EnvironmentError(e.what());
  }
  return 0;
}

}  // namespace texc
#else
namespace texc {
int farm_command(int, const char* const*) {
  throw EnvironmentError("'texc farm': this texc was built without hiredis (Debian: apt-get install libhiredis-dev, "
                         "then rebuild)");
}
}  // namespace texc
#endif

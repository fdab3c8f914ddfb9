// RedisClient: one connection to the measurement farm's broker (a Redis server, via hiredis), the
// address given as redis://HOST:PORT and the password read from a file (never the command line).
// command() sends one command and returns its reply as a plain tree. A lost connection (the broker
// restarted, a network blip) is reconnected, every half second for up to `reconnect_s`, and the
// command sent again: so a command may reach the broker twice, and the farm's commands are chosen
// to make that harmless (a job published twice is measured once: FarmWorker.h). A broker still
// away after that, and an error reply, throw BrokerError.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

struct redisContext;

namespace texc {

class BrokerError : public std::runtime_error {
 public:
  explicit BrokerError(const std::string& message) : std::runtime_error(message) {}
};

/// redis://HOST:PORT (PORT defaults to 6379). Throws BrokerError for anything else.
struct BrokerAddress {
  std::string host;
  int port = 6379;
  static BrokerAddress parse(const std::string& url);
  std::string url() const { return "redis://" + host + ":" + std::to_string(port); }
};

/// Whether `host` is this machine's loopback: localhost, 127.0.0.0/8, ::1, or a name all of whose
/// addresses are those (a name that does not resolve counts as loopback here: connecting says why).
bool is_loopback_host(const std::string& host);

/// texc speaks plain TCP to the broker (Debian's hiredis has no TLS): throws BrokerError saying how
/// to reach a broker on another machine through a tunnel (docs/tuning.md, "Security") when
/// `address` is not on loopback, unless `insecure_ok` (--insecure-broker: a network the user trusts).
void check_broker_is_private(const BrokerAddress& address, bool insecure_ok);

/// The password in `path`: its first line, without the line end. Throws BrokerError.
std::string read_password_file(const std::string& path);

struct RedisReply {
  enum class Kind { Nil, Integer, String, Status, Array, Error };
  Kind kind = Kind::Nil;
  long long integer = 0;
  std::string text;  // String, Status, Error
  std::vector<RedisReply> elements;

  bool nil() const { return kind == Kind::Nil; }
};

class RedisClient {
 public:
  /// Connects (and AUTHs when `password` is not empty). Throws BrokerError.
  RedisClient(const BrokerAddress& address, const std::string& password, double reconnect_s = 60);
  ~RedisClient();
  RedisClient(const RedisClient&) = delete;
  RedisClient& operator=(const RedisClient&) = delete;

  /// One command, its arguments binary-safe. An error reply throws BrokerError unless
  /// `error_ok`, when it is returned.
  RedisReply command(const std::vector<std::string>& args, bool error_ok = false);

 private:
  /// Connects and AUTHs; throws BrokerError.
  void connect();

  BrokerAddress address_;
  std::string password_;
  double reconnect_s_;
  redisContext* context_ = nullptr;
  std::string where_;
};

}  // namespace texc

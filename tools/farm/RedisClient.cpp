#include "tools/farm/RedisClient.h"

#include <hiredis/hiredis.h>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>

namespace texc {

BrokerAddress BrokerAddress::parse(const std::string& url) {
  const std::string scheme = "redis://";
  if (url.rfind(scheme, 0) != 0)
    throw BrokerError("--broker " + url + ": expected redis://HOST:PORT (rediss:// is not supported: see docs/tuning.md for TLS)");
  std::string rest = url.substr(scheme.size());
  if (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.find('@') != std::string::npos)
    throw BrokerError("--broker " + url + ": no password in the address; give it with --password-file");
  BrokerAddress a;
  size_t colon = rest.rfind(':');
  a.host = rest.substr(0, colon);
  if (colon != std::string::npos) {
    std::string port = rest.substr(colon + 1);
    if (port.empty() || port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5 ||
        std::stoi(port) < 1 || std::stoi(port) > 65535)
      throw BrokerError("--broker " + url + ": the port must be a number from 1 to 65535");
    a.port = std::stoi(port);
  }
  if (a.host.empty()) throw BrokerError("--broker " + url + ": no host");
  return a;
}

bool is_loopback_host(const std::string& host) {
  std::string name = host.size() > 2 && host.front() == '[' && host.back() == ']' ? host.substr(1, host.size() - 2) : host;
  if (name == "localhost") return true;
  addrinfo hints = {};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(name.c_str(), nullptr, &hints, &found) != 0 || !found) return true;  // connecting says why
  bool loopback = true;
  for (addrinfo* a = found; a; a = a->ai_next) {
    if (a->ai_family == AF_INET) {
      uint32_t ip = ntohl(reinterpret_cast<const sockaddr_in*>(a->ai_addr)->sin_addr.s_addr);
      loopback = loopback && (ip >> 24) == 127;
    } else if (a->ai_family == AF_INET6) {
      loopback = loopback && IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<const sockaddr_in6*>(a->ai_addr)->sin6_addr);
    } else {
      loopback = false;
    }
  }
  freeaddrinfo(found);
  return loopback;
}

void check_broker_is_private(const BrokerAddress& address, bool insecure_ok) {
  if (insecure_ok || is_loopback_host(address.host)) return;
  throw BrokerError("--broker " + address.url() + ": the broker is not on this machine's loopback, and texc speaks "
                    "plain TCP to it (this hiredis has no TLS): anyone on the way could read and forge jobs. Reach it "
                    "through a tunnel whose local end is on loopback (ssh -N -L 6380:127.0.0.1:6380 BROKER_HOST, or "
                    "an stunnel client to the broker's TLS port; docs/tuning.md, \"Security\") and give "
                    "--broker redis://127.0.0.1:6380, or accept plain TCP on a network you trust with --insecure-broker");
}

std::string read_password_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw BrokerError("--password-file " + path + ": cannot read it");
  std::string line;
  std::getline(in, line);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.empty()) throw BrokerError("--password-file " + path + ": the first line is empty");
  return line;
}

namespace {

RedisReply convert(const redisReply* r) {
  RedisReply out;
  switch (r->type) {
    case REDIS_REPLY_INTEGER: out.kind = RedisReply::Kind::Integer; out.integer = r->integer; break;
    case REDIS_REPLY_STRING: out.kind = RedisReply::Kind::String; out.text.assign(r->str, r->len); break;
    case REDIS_REPLY_STATUS: out.kind = RedisReply::Kind::Status; out.text.assign(r->str, r->len); break;
    case REDIS_REPLY_ERROR: out.kind = RedisReply::Kind::Error; out.text.assign(r->str, r->len); break;
    case REDIS_REPLY_ARRAY:
      out.kind = RedisReply::Kind::Array;
      for (size_t i = 0; i < r->elements; ++i) out.elements.push_back(convert(r->element[i]));
      break;
    default: out.kind = RedisReply::Kind::Nil; break;
  }
  return out;
}

}  // namespace

RedisClient::RedisClient(const BrokerAddress& address, const std::string& password, double reconnect_s)
    : address_(address), password_(password), reconnect_s_(reconnect_s), where_(address.url()) {
  connect();
}

void RedisClient::connect() {
  if (context_) redisFree(context_);
  timeval timeout{10, 0};
  context_ = redisConnectWithTimeout(address_.host.c_str(), address_.port, timeout);
  if (!context_ || context_->err) {
    std::string why = context_ ? context_->errstr : "out of memory";
    if (context_) redisFree(context_);
    context_ = nullptr;
    throw BrokerError("cannot connect to the broker at " + where_ + ": " + why);
  }
  if (!password_.empty()) command({"AUTH", password_});
}

RedisClient::~RedisClient() {
  if (context_) redisFree(context_);
}

RedisReply RedisClient::command(const std::vector<std::string>& args, bool error_ok) {
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const std::string& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  redisReply* r = nullptr;
  std::string why;
  for (double waited = 0;; waited += 0.5) {
    if (context_) {
      r = static_cast<redisReply*>(redisCommandArgv(context_, int(argv.size()), argv.data(), lens.data()));
      if (r && r->type == REDIS_REPLY_ERROR && std::string(r->str, r->len).rfind("LOADING", 0) == 0) {
        why = "loading its data after a restart";  // answers in a moment
        freeReplyObject(r);
        r = nullptr;
      } else if (r) {
        break;
      } else {
        why = context_->errstr;
        redisFree(context_);
        context_ = nullptr;
      }
    }
    if (waited >= reconnect_s_)
      throw BrokerError("lost the broker at " + where_ + " (" + why + ") and could not reconnect for " +
                        std::to_string(int(reconnect_s_)) + " s");
    usleep(500000);
    if (context_) continue;
    try {
      connect();
    } catch (const BrokerError& e) {
      why = e.what();
    }
  }
  RedisReply out = convert(r);
  freeReplyObject(r);
  if (out.kind == RedisReply::Kind::Error && !error_ok)
    throw BrokerError("the broker at " + where_ + " refused " + args.at(0) + ": " + out.text);
  return out;
}

}  // namespace texc

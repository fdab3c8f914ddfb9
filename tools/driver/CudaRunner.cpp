#include "tools/driver/CudaRunner.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "tools/driver/CudaExecutor.h"
#include "tools/driver/EnvironmentError.h"

namespace texc {

namespace {

class CudaRunner : public Runner {
 public:
  CudaRunner(std::string device_name, std::string arch) : name_(std::move(device_name)), arch_(std::move(arch)) {}

  std::string device() const override { return "cuda / " + name_ + " (" + arch_ + ")"; }

  std::vector<double> run(const LoweredFunc& func, std::vector<Tensor*>& args, int repeat) override {
    CudaTargetOptions target;
    target.arch = arch_;
    auto timing = std::make_shared<JitTiming>();
    OpExecutor execute = make_cuda_executor(func, target, std::max(repeat, 1), timing);
    execute(args);
    return timing->times_ms;
  }

 private:
  std::string name_, arch_;
};

/// Writes all of `text` to `fd`.
void write_all(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += size_t(n);
  }
}

}  // namespace

std::unique_ptr<Runner> make_cuda_runner(const std::string& requested_arch) {
  int fds[2];
  if (::pipe(fds) != 0) throw EnvironmentError(std::string("cannot make a pipe: ") + std::strerror(errno));
  pid_t pid = ::fork();
  if (pid < 0) throw EnvironmentError(std::string("cannot fork: ") + std::strerror(errno));
  if (pid == 0) {  // the probe: "ok\nNAME\nARCH" or "error\nMESSAGE"
    ::close(fds[0]);
    std::string answer;
    try {
      CudaDeviceInfo info = open_cuda_device(requested_arch);
      answer = "ok\n" + info.name + "\n" + info.arch;
    } catch (const std::exception& e) {
      answer = std::string("error\n") + e.what();
    }
    write_all(fds[1], answer);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string answer;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) answer.append(buf, size_t(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  auto line_end = answer.find('\n');
  std::string verdict = answer.substr(0, line_end);
  std::string rest = line_end == std::string::npos ? "" : answer.substr(line_end + 1);
  if (verdict != "ok") {
    if (rest.empty()) rest = "no CUDA device: the probe of CUDA device 0 ended without an answer";
    throw EnvironmentError(rest);
  }
  auto name_end = rest.find('\n');
  return std::make_unique<CudaRunner>(rest.substr(0, name_end), name_end == std::string::npos ? "" : rest.substr(name_end + 1));
}

}  // namespace texc

#include "tools/driver/ModuleOutput.h"

#include "tools/driver/EnvironmentError.h"
#include "tools/driver/OutputFile.h"

namespace texc {

namespace {

/// How every output names itself in messages (OutputFile.h).
constexpr const char* kOutput = "output";

}  // namespace

void write_output_text(const std::string& path, const std::string& text) { write_output_file(path, kOutput, text); }

void write_output_through(const std::string& path, const std::function<void(const std::string&)>& write) {
  OutputFile out(path, kOutput);
  try {
    write(out.write_path());
  } catch (const TargetOptionError&) {  // a CPU the code cannot be generated for (exit 1)
    throw;
  } catch (const OptionError&) {
    throw;
  } catch (const std::runtime_error& e) {
    std::string message = e.what();
    for (size_t at; (at = message.find(out.write_path())) != std::string::npos;)
      message.replace(at, out.write_path().size(), path);
    throw EnvironmentError(message);
  }
  out.commit();
}

}  // namespace texc

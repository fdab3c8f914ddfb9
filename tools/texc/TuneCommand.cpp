// `texc tune FILE.tex --target T --trials N --records R.jsonl`: the knob search lives in tuner/,
// which this build does not have yet; the command parses its arguments and reports that (exit 2).
#include "tools/texc/Commands.h"
#include "tools/texc/EnvironmentError.h"

namespace texc {

int tune_command(const CommandLine& cl) {
  throw EnvironmentError("'texc tune' needs the tuner, which this build of texc does not have yet");
}

}  // namespace texc

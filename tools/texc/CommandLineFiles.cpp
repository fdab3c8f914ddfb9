#include "tools/texc/CommandLineFiles.h"

#include <filesystem>

#include "ir/InputFile.h"
#include "tools/driver/KnobOptions.h"
#include "tools/driver/LoadProgram.h"
#include "tools/driver/OutputFile.h"
#include "tools/texc/Commands.h"
#include "tools/texc/ModelSource.h"

namespace texc {

void note_command_line_inputs(const CommandLine& cl) {
  // The source first, --records last: an input named twice is remembered as what it was first,
  // so --records that is also another input is found as that other input.
  note_input_file(cl.file, "source file");
  if (!cl.vdla_config.empty()) note_input_file(cl.vdla_config, "--vdla-config");
  for (const std::string& f : cl.extern_srcs) note_input_file(f, "--extern-src");
  for (const std::string& f : cl.extern_libs) note_input_file(f, "--extern-lib");
  for (const std::string& f : cl.transfer) note_input_file(f, "--transfer");
  for (const std::string& f : cl.curve_with) note_input_file(f, "--curve-with");
  if (!cl.records.empty()) note_input_file(cl.records, "--records");
  // Refused now rather than after hours of tuning: an input that is no regular file or too large.
  if (!cl.vdla_config.empty()) check_input_file(cl.vdla_config, kVdlaConfigInput);
  for (const std::string& f : cl.transfer) check_input_file(f, kRecordsInput, "--transfer");
  for (const std::string& f : cl.curve_with) check_input_file(f, kRecordsInput, "--curve-with");
  if (!cl.records.empty()) check_input_file(cl.records, kRecordsInput, "--records");
}

void check_command_line_files(const CommandLine& cl) {
  if (!cl.records.empty())
    if (std::optional<FileIdentity> id = file_identity(cl.records))
      if (const InputFileRecord* input = find_input_file(*id); input && input->what != "--records")
        throw CommandLineError("--records '" + cl.records + "' is the same file as " + input->what + " '" + input->path +
                               "'; records need a file of their own (texc tune appends to it)");
  if (!cl.curve.empty()) refuse_input_as_output(cl.curve, "--curve");
  if (!cl.trace.empty()) refuse_input_as_output(cl.trace, "--trace");
  std::error_code ec1, ec2;
  if (!cl.curve.empty() && !cl.records.empty() &&
      std::filesystem::weakly_canonical(std::filesystem::absolute(cl.curve), ec1) ==
          std::filesystem::weakly_canonical(std::filesystem::absolute(cl.records), ec2))
    throw CommandLineError("--curve '" + cl.curve + "' is the --records file; the curve needs a file of its own");
}

Program load_program(const CommandLine& cl) {
  note_command_line_inputs(cl);
  Program program = read_program(model_program_source(cl), cl);
  check_command_line_files(cl);  // the inputs are known now: the front end noted every import
  check_knob_options(cl, program.ops);
  return program;
}

Program load_definitions(const CommandLine& cl) { return load_definitions(model_program_source(cl), cl); }

}  // namespace texc

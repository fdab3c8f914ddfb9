#include "backends/interp/RunOp.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <new>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "backends/interp/InterpError.h"
#include "ir/Diagnostics.h"
#include "backends/interp/Npy.h"
#include "backends/interp/ReferenceInterpreter.h"
#include "ir/ConstEval.h"

namespace texc {

std::vector<int64_t> buffer_shape(const Buffer& b) {
  std::vector<int64_t> shape;
  for (const Expr& e : b->shape) {
    auto v = eval_int(e);
    if (!v) throw InterpError("tensor '" + b->name + "' has a shape that is not a constant");
    shape.push_back(*v);
  }
  return shape;
}

namespace {


std::string io_path(const std::string& dir, const OpDef& op, const Buffer& b) {
  return (std::filesystem::path(dir) / (op.name + "." + b->name + ".npy")).string();
}

Tensor load_input(const std::string& path, const Buffer& b, const OpDef& op) {
  Tensor t = read_npy(path);
  std::vector<int64_t> shape = buffer_shape(b);
  if (t.dtype() != b->dtype || t.shape() != shape)
    throw NpyError("input '" + b->name + "' of op '" + op.name + "' must be " + b->dtype.str() + shape_string(shape) +
                   " (dtype '" + npy_descr(b->dtype) + "'), but '" + path + "' holds " + t.describe() +
                   " (dtype '" + npy_descr(t.dtype()) + "')");
  return t;
}

double elapsed_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (uint8_t(c) < 0x20) out += fmt::format("\\u{:04x}", int(c));
        else out += c;
    }
  }
  return out + "\"";
}

std::string json_number(double v) { return std::isfinite(v) ? fmt::format("{:.6g}", v) : "null"; }

}  // namespace

uint64_t input_seed(uint64_t run_seed, size_t input_index) { return run_seed * 1000003ull + input_index + 1; }

RunResult run_op(const OpDef& op, const OpExecutor& execute, const RunOptions& options) {
  RunResult r;
  r.op = op.name;
  r.target = options.target;
  r.threads = options.threads;

  std::vector<Tensor> tensors;
  tensors.reserve(op.inputs.size() + op.outputs.size());
  const Buffer* allocating = nullptr;  // whose tensor is being made (for a failed allocation's message)
  try {
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const Buffer& b = op.inputs[i];
      allocating = &b;
      const Tensor* weight = options.weights ? find_weight(*options.weights, options.weights_path, op, b) : nullptr;
      if (weight) {
        tensors.push_back(*weight);
      } else if (!options.inputs_dir.empty() && std::filesystem::exists(io_path(options.inputs_dir, op, b))) {
        tensors.push_back(load_input(io_path(options.inputs_dir, op, b), b, op));
      } else {
        if (!options.inputs_dir.empty()) r.random_inputs.push_back(b->name);  // no file for it: random
        tensors.emplace_back(b->dtype, buffer_shape(b));
        // --input-range, else the op's declared domain (half-open: integers up to hi - 1), else the default.
        auto range = options.input_ranges.find(b->name);
        if (range == options.input_ranges.end()) range = options.input_ranges.find("");
        auto domain = op.input_domains.find(b->name);
        if (range != options.input_ranges.end())
          tensors.back().fill_random(input_seed(options.seed, i), range->second.first, range->second.second);
        else if (domain != op.input_domains.end())
          tensors.back().fill_random(input_seed(options.seed, i), domain->second.first,
                                     b->dtype.is_float() ? domain->second.second : domain->second.second - 1);
        else
          tensors.back().fill_random(input_seed(options.seed, i));
      }
    }
    for (const Buffer& b : op.outputs) {
      allocating = &b;
      tensors.emplace_back(b->dtype, buffer_shape(b));
      tensors.back().fill_poison();
    }
  } catch (const AllocationError& e) {
    r.message = std::string(e.what()) + ((*allocating)->role == BufferRole::Input ? " (input '" : " (output '") +
                (*allocating)->name + "')";
    return r;
  }
  std::vector<Tensor*> args;
  for (Tensor& t : tensors) args.push_back(&t);

  // The reference first: its values at the checked points, and whatever it proves wrong with the
  // op on these inputs (an out-of-bounds read, a division by zero) before any compiled code runs.
  std::vector<const Tensor*> inputs(args.begin(), args.begin() + op.inputs.size());
  const OpDef& defined = options.reference ? *options.reference : op;
  double flops = count_flops(defined);
  const bool checking = options.check_mode != CheckMode::None;
  // A graph of kernels: each kernel on its own inputs first; then, sampled, the whole op against
  // the kernels' outputs rather than against its reference (RunOptions::check_parts).
  const bool against_parts = checking && options.check_parts && options.check_mode == CheckMode::Sampled;
  std::vector<Tensor> part_outputs;
  if (checking && options.check_parts) {
    PartsCheck parts = options.check_parts(std::vector<Tensor*>(args.begin(), args.begin() + op.inputs.size()));
    part_outputs = std::move(parts.outputs);
    r.kernels_checked = parts.parts;
    r.points_checked += parts.points_checked;
    r.max_rel_err = parts.max_rel_err;
    r.sampled = parts.sampled;
    if (!parts.failure.empty()) {
      r.message = parts.failure;
      return r;
    }
  }
  std::vector<ExpectedOutput> expected;
  std::vector<CheckOptions> checks;
  if (options.on_reference) options.on_reference(true);
  try {
    std::optional<ReferenceInterpreter> reference;
    if (checking && !against_parts) reference.emplace(defined, inputs);
    TEXC_CHECK(!against_parts || part_outputs.size() == op.outputs.size())
        << "the parts of op '" << op.name << "' computed " << part_outputs.size() << " of its " << op.outputs.size()
        << " outputs";
    for (size_t o = 0; checking && o < op.outputs.size(); ++o) {
      CheckOptions check = options.check;
      check.seed = options.seed * 31 + o;
      check.accumulation_length = accumulation_length(defined, op.outputs[o]->name);
      if (options.check_mode == CheckMode::Full) {
        check.full_check_limit = std::numeric_limits<int64_t>::max();
      } else if (flops > options.full_check_max_flops) {
        check.full_check_limit = std::min(check.full_check_limit, check.sample_points);
      }
      if (against_parts)
        expected.push_back(expected_output(part_outputs[o], op.outputs[o]->name));
      else
        expected.push_back(expected_output(*reference, op.outputs[o]->name, check));
      checks.push_back(check);
      if (!expected.back().error.empty()) {
        r.message = expected.back().error + " (so the op was not run)";
        return r;
      }
    }
  } catch (const InterpError& e) {
    r.message = "reference: " + std::string(e.what());
    return r;
  } catch (const AllocationError& e) {
    r.message = "reference: " + std::string(e.what());
    return r;
  } catch (const std::bad_alloc&) {
    r.message = "reference: out of memory while evaluating the op's stages";
    return r;
  } catch (const std::length_error&) {
    r.message = "reference: a stage of the op is too large to evaluate";
    return r;
  }
  if (options.on_reference) options.on_reference(false);

  // The first run is checked (and timed when it is the only one).
  std::vector<double> times;
  try {
    auto start = std::chrono::steady_clock::now();
    execute(args);
    times.push_back(elapsed_ms(start));
  } catch (const InterpError& e) {
    r.message = e.what();
    return r;
  } catch (const AllocationError& e) {
    r.message = e.what();
    return r;
  } catch (const std::bad_alloc&) {
    r.message = "out of memory while running the op";
    return r;
  }

  r.passed = true;
  for (size_t o = 0; checking && o < op.outputs.size(); ++o) {
    CheckResult c = compare_output(expected[o], *args[op.inputs.size() + o], checks[o]);
    r.max_rel_err = std::max(r.max_rel_err, c.max_rel_err);
    r.points_checked += c.points_checked;
    r.sampled = r.sampled || c.sampled;
    r.nonfinite_expected += c.nonfinite_expected;
    if (!c.passed && r.passed) {
      r.passed = false;
      r.message = c.message;
    }
  }

  if (options.repeat > 1) {
    times.clear();
    for (int k = 0; k < options.repeat; ++k) {
      auto start = std::chrono::steady_clock::now();
      execute(args);
      times.push_back(elapsed_ms(start));
    }
  }
  std::sort(times.begin(), times.end());
  size_t n = times.size();
  r.median_ms = n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
  r.gflops = r.median_ms > 0 ? flops / (r.median_ms * 1e6) : 0;

  if (!options.save_io_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.save_io_dir, ec);
    if (ec) throw NpyError("cannot create directory '" + options.save_io_dir + "': " + ec.message());
    for (size_t i = 0; i < op.inputs.size(); ++i) write_npy(io_path(options.save_io_dir, op, op.inputs[i]), *args[i]);
    for (size_t o = 0; o < op.outputs.size(); ++o)
      write_npy(io_path(options.save_io_dir, op, op.outputs[o]), *args[op.inputs.size() + o]);
  }
  return r;
}

std::string format_result_line(const RunResult& r) {
  std::string checked = r.points_checked == 0 ? "not checked"
                        : fmt::format("{} points checked ({})", r.points_checked, r.sampled ? "sampled" : "all");
  if (r.kernels_checked) checked += fmt::format(", {} kernels checked on their own inputs", r.kernels_checked);
  if (r.nonfinite_expected) checked += fmt::format(", {} NaN/inf in the reference", r.nonfinite_expected);
  std::string line = fmt::format("{:<24} {:<7} {}  max_rel_err {:<9.2e} {:>10.4g} ms {:>9.4g} GFLOP/s  {}", r.op,
                                 r.target, r.passed ? "PASS" : "FAIL", r.max_rel_err, r.median_ms, r.gflops, checked);
  if (!r.passed) line += "\n    " + r.message;
  return line;
}

std::string format_result_json(const RunResult& r) {
  return fmt::format(
      "{{\"op\": {}, \"target\": {}, \"status\": \"{}\", \"max_rel_err\": {}, \"median_ms\": {}, \"gflops\": {}, "
      "\"threads\": {}, \"points_checked\": {}, \"nonfinite_expected\": {}, \"message\": {}{}}}",
      json_string(r.op), json_string(r.target), r.passed ? "pass" : "fail", json_number(r.max_rel_err),
      json_number(r.median_ms), json_number(r.gflops), r.threads, r.points_checked, r.nonfinite_expected,
      json_string(r.message), r.kernels_checked ? fmt::format(", \"kernels_checked\": {}", r.kernels_checked) : "");
}

}  // namespace texc

// Curve: an SVG of the best throughput found so far against the number of trials, one line per
// series (per records file: a tuner, a seed), with axes, ticks and a legend. Plain SVG, no
// scripts or external resources.
#pragma once
#include <string>
#include <vector>

namespace texc {

struct CurveSeries {
  std::string label;
  std::vector<double> best_so_far;  // after trial 1, 2, ...
};

/// The SVG text.
std::string curve_svg(const std::vector<CurveSeries>& series, const std::string& title);

}  // namespace texc

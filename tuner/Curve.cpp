#include "tuner/Curve.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace texc {

namespace {
std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}
}  // namespace

std::string curve_svg(const std::vector<CurveSeries>& series, const std::string& title) {
  const double width = 720, height = 440, left = 70, right = 180, top = 40, bottom = 50;
  const double pw = width - left - right, ph = height - top - bottom;
  size_t max_trials = 1;
  double max_y = 0;
  for (const CurveSeries& s : series) {
    max_trials = std::max(max_trials, s.best_so_far.size());
    for (double v : s.best_so_far) max_y = std::max(max_y, v);
  }
  if (max_y <= 0) max_y = 1;
  max_y *= 1.05;
  auto x_of = [&](double t) { return left + pw * (t - 1) / std::max<double>(1, double(max_trials) - 1); };
  auto y_of = [&](double v) { return top + ph * (1 - v / max_y); };
  static const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) + "\" height=\"" + num(height) +
                    "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<text x=\"" + num(left) + "\" y=\"22\" font-size=\"14\">" + escape(title) + "</text>\n";
  svg += "<line x1=\"" + num(left) + "\" y1=\"" + num(top + ph) + "\" x2=\"" + num(left + pw) + "\" y2=\"" +
         num(top + ph) + "\" stroke=\"black\"/>\n";
  svg += "<line x1=\"" + num(left) + "\" y1=\"" + num(top) + "\" x2=\"" + num(left) + "\" y2=\"" + num(top + ph) +
         "\" stroke=\"black\"/>\n";
  for (int k = 0; k <= 5; ++k) {
    double v = max_y * k / 5, t = 1 + (double(max_trials) - 1) * k / 5;
    svg += "<text x=\"" + num(left - 6) + "\" y=\"" + num(y_of(v) + 4) + "\" text-anchor=\"end\">" + num(v) + "</text>\n";
    svg += "<text x=\"" + num(x_of(t)) + "\" y=\"" + num(top + ph + 18) + "\" text-anchor=\"middle\">" +
           num(std::round(t)) + "</text>\n";
  }
  svg += "<text x=\"" + num(left + pw / 2) + "\" y=\"" + num(height - 10) + "\" text-anchor=\"middle\">trials</text>\n";
  svg += "<text transform=\"translate(16," + num(top + ph / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">best GFLOP/s so far</text>\n";
  for (size_t i = 0; i < series.size(); ++i) {
    const char* color = colors[i % 8];
    std::string points;
    for (size_t t = 0; t < series[i].best_so_far.size(); ++t)
      points += num(x_of(double(t + 1))) + "," + num(y_of(series[i].best_so_far[t])) + " ";
    svg += "<polyline fill=\"none\" stroke=\"" + std::string(color) + "\" stroke-width=\"2\" points=\"" + points + "\"/>\n";
    double ly = top + 16 * double(i);
    svg += "<line x1=\"" + num(left + pw + 12) + "\" y1=\"" + num(ly) + "\" x2=\"" + num(left + pw + 32) + "\" y2=\"" +
           num(ly) + "\" stroke=\"" + color + "\" stroke-width=\"2\"/>\n";
    svg += "<text x=\"" + num(left + pw + 36) + "\" y=\"" + num(ly + 4) + "\">" + escape(series[i].label) + "</text>\n";
  }
  return svg + "</svg>\n";
}

}  // namespace texc

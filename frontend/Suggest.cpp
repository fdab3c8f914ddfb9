#include "frontend/Suggest.h"

#include <algorithm>

namespace texc {

static size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitution});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string closest_name(const std::string& name, const std::vector<std::string>& candidates) {
  size_t limit = (name.size() + 1) / 3;
  if (limit == 0) return "";
  std::string best;
  size_t best_distance = limit + 1;
  for (const std::string& c : candidates) {
    if (c == name) continue;
    size_t d = edit_distance(name, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::vector<std::string> closest_names(const std::string& name, const std::vector<std::string>& candidates,
                                       size_t max_count) {
  std::string best = closest_name(name, candidates);
  if (best.empty()) return {};
  size_t best_distance = edit_distance(name, best);
  std::vector<std::string> names;
  for (const std::string& c : candidates)
    if (c != name && names.size() < max_count && edit_distance(name, c) == best_distance &&
        std::find(names.begin(), names.end(), c) == names.end())
      names.push_back(c);
  return names;
}

std::string quoted_alternatives(const std::vector<std::string>& names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "'" : i + 1 == names.size() ? " or '" : ", '") + names[i] + "'";
  return text;
}

}  // namespace texc

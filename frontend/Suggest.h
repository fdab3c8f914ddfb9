// "Did you mean ...?": the closest of a set of known names to a misspelled one.
#pragma once
#include <string>
#include <vector>

namespace texc {

/// The candidate nearest to `name` by edit distance, if it is near enough to be a plausible typo
/// (within about a third of the name's length; none for one-letter names); "" otherwise.
std::string closest_name(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace texc

// "Did you mean ...?": the closest of a set of known names to a misspelled one.
#pragma once
#include <string>
#include <vector>

namespace texc {

/// The candidate nearest to `name` by edit distance, if it is near enough to be a plausible typo
/// (within about a third of the name's length; none for one-letter names); "" otherwise.
std::string closest_name(const std::string& name, const std::vector<std::string>& candidates);

/// Every candidate as near to `name` as the closest one (ties, in the candidates' order, at most
/// `max_count`); empty when closest_name finds none.
std::vector<std::string> closest_names(const std::string& name, const std::vector<std::string>& candidates,
                                       size_t max_count = 3);

/// 'a', 'a' or 'b', 'a', 'b' or 'c': names for a "did you mean" message.
std::string quoted_alternatives(const std::vector<std::string>& names);

}  // namespace texc

#pragma once
// The calibration profiles plansim ships: validate/*/profile.yaml, compiled into the binary by
// cmake/EmbedProfiles.cmake (the generated shipped_profiles_data.cpp), so the installed binary needs no
// data directory. Each entry: the file's path relative to the source tree, and its text.
#include <string>
#include <utility>
#include <vector>

namespace plansim::io {

const std::vector<std::pair<std::string, std::string>>& shipped_profile_texts();

}  // namespace plansim::io

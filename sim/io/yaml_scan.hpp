#pragma once
// io-internal: one pass over a YAML text's events before yaml-cpp builds the tree (yaml-cpp keeps
// duplicate keys silently, first wins; accepts lists, mappings and nulls as keys; and a tree costs
// ~450 bytes per value). Rejects, each as a ConfigError naming both positions where there are two:
//   - a second document (after `---`),
//   - a key that is not a plain scalar (`{[x]: 1}`, `? :`, `~: 1`, an alias),
//   - a key given twice in one mapping,
//   - more than limits::kMaxYamlValues values, or aliases that would expand past
//     limits::kMaxYamlExpandedValues (a "billion laughs" document).
// Syntax errors are left to the tree builder, which reports them with their position.
#include <string>

#include "sim/core/error.hpp"
#include "sim/core/limits.hpp"

namespace plansim::io {

// `name` is the file name for positions; when `where` is not empty every error is reported there
// instead (a value from the command line).
void scan_yaml(const std::string& text, const std::string& name, const std::string& where = {});

}  // namespace plansim::io

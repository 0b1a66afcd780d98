#pragma once
// What nlohmann::json lets through or refuses without a position, found with one: a key repeated in one
// object (the parser keeps the last, silently) and a number beyond a double's range (1e999: the parser
// throws out_of_range, which carries no byte offset). plansim refuses both, as its YAML reader does
// (README "Reliability").
#include <cstddef>
#include <optional>
#include <string>

namespace plansim {

struct JsonDefect {
  size_t offset = 0;    // byte offset of the key or number
  std::string message;  // "duplicate key 'x'", "the number 1e999 is out of range"
};

// The first defect of a JSON text whose syntax nlohmann accepts (numbers may overflow), or nullopt.
std::optional<JsonDefect> json_strict_defect(const std::string& text);

}  // namespace plansim

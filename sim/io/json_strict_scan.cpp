// One pass over a JSON text's tokens (json_strict_scan.hpp). The syntax is known valid, so the scan only
// tracks nesting, object keys (a set per open object, reused by depth) and the extent of each number.
#include "sim/io/json_strict_scan.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "sim/io/json_document.hpp"

namespace plansim {
namespace {

struct Level {
  bool object = false;
  bool want_key = false;
  std::unordered_set<std::string> keys;
};

}  // namespace

std::optional<JsonDefect> json_strict_defect(const std::string& t) {
  std::vector<Level> levels;  // levels[0..depth): kept between objects so their sets keep their buckets
  size_t depth = 0;
  for (size_t i = 0; i < t.size();) {
    const char c = t[i];
    if (c == '"') {
      const size_t end = json_string_end(t, i);
      if (depth > 0 && levels[depth - 1].want_key) {
        Level& top = levels[depth - 1];
        top.want_key = false;
        const std::string_view raw(t.data() + i + 1, end - i - 2);
        // A key with escapes is compared decoded ("\u0061" is "a").
        std::string key = raw.find('\\') == std::string_view::npos
                              ? std::string(raw)
                              : nlohmann::json::parse(t.substr(i, end - i)).get<std::string>();
        if (!top.keys.insert(key).second) return JsonDefect{i, fmt::format("duplicate key '{}'", key)};
      }
      i = end;
    } else if (c == '{' || c == '[') {
      if (levels.size() == depth) levels.emplace_back();
      Level& l = levels[depth++];
      l.object = c == '{';
      l.want_key = l.object;
      l.keys.clear();
      ++i;
    } else if (c == '}' || c == ']') {
      if (depth > 0) --depth;
      ++i;
    } else if (c == ',') {
      if (depth > 0 && levels[depth - 1].object) levels[depth - 1].want_key = true;
      ++i;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      size_t end = i + 1;
      bool exponent = false;
      while (end < t.size() && (std::isdigit(static_cast<unsigned char>(t[end])) || t[end] == '.' || t[end] == 'e' ||
                                t[end] == 'E' || t[end] == '+' || t[end] == '-')) {
        exponent = exponent || t[end] == 'e' || t[end] == 'E';
        ++end;
      }
      // Without an exponent only a number of over 308 digits can exceed a double (max ~1.8e308).
      if (exponent || end - i > 300) {
        const std::string number = t.substr(i, end - i);
        if (!std::isfinite(std::strtod(number.c_str(), nullptr)))
          return JsonDefect{i, fmt::format("the number {} is out of range (beyond a double's)", number)};
      }
      i = end;
    } else {
      ++i;
    }
  }
  return std::nullopt;
}

}  // namespace plansim

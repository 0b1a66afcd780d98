#include "sim/io/checked_number.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "sim/core/limits.hpp"

namespace plansim::io {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Spellings of infinity and NaN (YAML's .inf/.nan, C's inf/nan), for a precise message.
bool names_non_finite(std::string_view t) {
  std::string s = lower(t);
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.erase(0, 1);
  return s == ".inf" || s == "inf" || s == "infinity" || s == ".nan" || s == "nan";
}

// Shortest text that shows the number (integers without exponent up to 1e15).
std::string num(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return with_commas(static_cast<int64_t>(v));
  return fmt::format("{:g}", v);
}

}  // namespace

std::string with_commas(int64_t v) {
  const bool neg = v < 0;
  std::string digits = std::to_string(v);
  if (neg) digits.erase(0, 1);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return neg ? "-" + out : out;
}

int64_t parse_integer(std::string_view text) {
  const std::string_view t = trim(text);
  std::string_view digits = t;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (!digits.empty() && ptr == digits.data() + digits.size() && ec == std::errc()) return v;
  if (ec == std::errc::result_out_of_range && ptr == digits.data() + digits.size())
    throw UnitError(fmt::format("'{}' is out of range (integers here are far below 9.2e18)", t));
  throw UnitError(fmt::format("must be an integer, got '{}'", t));
}

double parse_real(std::string_view text) {
  const std::string_view t = trim(text);
  if (names_non_finite(t)) throw UnitError(fmt::format("must be a finite number, got '{}'", t));
  // Only [sign] digits [. digits] [e [sign] digits]: strtod alone would also take hex and "inf".
  size_t i = 0;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  size_t mantissa = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++mantissa;
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++mantissa;
  }
  bool ok = mantissa > 0;
  if (ok && i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    size_t exp = 0;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++exp;
    ok = exp > 0;
  }
  if (!ok || i != t.size()) throw UnitError(fmt::format("must be a number, got '{}'", t));
  const std::string s(t);
  const double v = std::strtod(s.c_str(), nullptr);
  if (!std::isfinite(v)) throw UnitError(fmt::format("'{}' is out of range (not a finite number)", t));
  return v;
}

std::string describe(IntRange r) {
  if (r.hi >= std::numeric_limits<int64_t>::max() / 2) return fmt::format("an integer >= {}", with_commas(r.lo));
  return fmt::format("an integer from {} to {}", with_commas(r.lo), with_commas(r.hi));
}

std::string describe(RealRange r) {
  if (r.lo_open) return fmt::format("a number > {} and <= {}", num(r.lo), num(r.hi));
  return fmt::format("a number from {} to {}", num(r.lo), num(r.hi));
}

std::string range_problem(int64_t v, IntRange r) {
  if (v >= r.lo && v <= r.hi) return {};
  return fmt::format("must be {}, got {}", describe(r), with_commas(v));
}

std::string range_problem(double v, RealRange r) {
  if (!std::isfinite(v)) return fmt::format("must be a finite number, got {}", v);
  const bool low_ok = r.lo_open ? v > r.lo : v >= r.lo;
  if (low_ok && v <= r.hi) return {};
  return fmt::format("must be {}, got {}", describe(r), num(v));
}

int64_t integer_in(std::string_view text, IntRange range) {
  int64_t v = 0;
  try {
    v = parse_integer(text);
  } catch (const UnitError&) {
    throw UnitError(fmt::format("must be {}, got '{}'", describe(range), trim(text)));
  }
  if (auto p = range_problem(v, range); !p.empty()) throw UnitError(p);
  return v;
}

double real_in(std::string_view text, RealRange range) {
  const double v = parse_real(text);
  if (auto p = range_problem(v, range); !p.empty()) throw UnitError(p);
  return v;
}

Bytes parse_nccl_size(std::string_view text) {
  std::string_view t = trim(text);
  double mult = 1;
  if (!t.empty()) {
    switch (t.back()) {
      case 'K': case 'k': mult = 1024.0; break;
      case 'M': case 'm': mult = 1048576.0; break;
      case 'G': case 'g': mult = 1073741824.0; break;
      default: break;
    }
    if (mult > 1) t.remove_suffix(1);
  }
  double v = 0;
  try {
    v = parse_real(t);
  } catch (const UnitError&) {
    throw UnitError(fmt::format("'{}' is not a size (a number with an optional K, M or G suffix = powers of 1024)",
                                trim(text)));
  }
  const double bytes = std::floor(v * mult);
  if (!(bytes >= 0 && bytes <= limits::kMaxBytes))
    throw UnitError(fmt::format("a size must be from 0 to 1 PiB (1024^5 B), got '{}'", trim(text)));
  return Bytes(bytes);
}

}  // namespace plansim::io

#include "sim/io/unit_parse.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

#include "sim/core/limits.hpp"
#include "sim/io/checked_number.hpp"

namespace plansim::io {
namespace {

struct Split {
  double number = 0;
  std::string unit;  // whitespace removed, case preserved
};

const char* example_of(std::string_view what) {
  return what == "size" ? "'80 GiB'" : what == "rate" ? "'400 Gb/s'" : what == "time" ? "'1.5 us'"
         : what == "power" ? "'500 W'" : "'312 TFLOP/s'";
}

// Splits "  1.5 GiB/s " into 1.5 and "GiB/s". Throws on a missing, malformed or non-finite number.
Split split_number(std::string_view text, std::string_view what) {
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  size_t j = i;
  while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.' || text[j] == '-' ||
                             text[j] == '+' || ((text[j] == 'e' || text[j] == 'E') && j > i && j + 1 < text.size() &&
                                                (std::isdigit(static_cast<unsigned char>(text[j + 1])) ||
                                                 text[j + 1] == '-' || text[j + 1] == '+'))))
    ++j;
  Split s;
  if (j == i) throw UnitError(fmt::format("expected a {} like {}, got '{}'", what, example_of(what), text));
  const std::string_view num = text.substr(i, j - i);
  try {
    s.number = parse_real(num);
  } catch (const UnitError& e) {
    throw UnitError(fmt::format("malformed number '{}' in {} '{}' ({})", num, what, text, e.what()));
  }
  for (size_t k = j; k < text.size(); ++k)
    if (!std::isspace(static_cast<unsigned char>(text[k]))) s.unit.push_back(text[k]);
  return s;
}

// The value after the unit is applied must be finite and inside the quantity's range (README "Units").
double in_range(double v, double hi, std::string_view what, std::string_view text, const char* range) {
  if (!(std::isfinite(v) && v <= hi))
    throw UnitError(fmt::format("{} '{}' is out of range: {} must be from {}", what, text, what, range));
  return v;
}

// Multiplier of a size prefix (already stripped of the trailing B/b): "", k, K, M, G, T, P, Ki, Mi, Gi, Ti, Pi.
bool prefix_multiplier(std::string_view p, double& mult) {
  static constexpr std::array<std::pair<std::string_view, double>, 12> kTable = {{
      {"", 1.0}, {"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15},
      {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0}, {"Pi", 1125899906842624.0},
  }};
  for (const auto& [name, m] : kTable)
    if (name == p) {
      mult = m;
      return true;
    }
  return false;
}

// Parses "GiB", "Gb", "MB", "B", "" as a byte multiplier. Sets ok=false when not a size unit.
double size_unit(std::string_view u, bool& ok) {
  ok = true;
  if (u.empty()) return 1.0;
  double mult = 0;
  const char last = u.back();
  if (last == 'B' || last == 'b') {
    const double per = last == 'B' ? 1.0 : 1.0 / 8.0;
    if (prefix_multiplier(u.substr(0, u.size() - 1), mult)) return mult * per;
  }
  if (u == "bytes" || u == "byte") return 1.0;
  ok = false;
  return 0;
}

}  // namespace

Bytes parse_bytes(std::string_view text) {
  Split s = split_number(text, "size");
  bool ok = false;
  double m = size_unit(s.unit, ok);
  if (!ok) throw UnitError(fmt::format("unknown size unit '{}' in '{}' (use B, kB, MB, GB, KiB, MiB, GiB, or bits: Mb, Gb)", s.unit, text));
  if (s.number < 0) throw UnitError(fmt::format("size must not be negative, got '{}'", text));
  return Bytes(in_range(s.number * m, limits::kMaxBytes, "size", text, "0 to 1 PiB"));
}

Rate parse_rate(std::string_view text) {
  Split s = split_number(text, "rate");
  std::string u = s.unit;
  std::string base;
  if (u.size() > 2 && u.substr(u.size() - 2) == "/s") base = u.substr(0, u.size() - 2);
  else if (u.size() > 2 && u.substr(u.size() - 2) == "ps") base = u.substr(0, u.size() - 2);
  else throw UnitError(fmt::format("rate '{}' needs a unit per second, like '900 GB/s' or '400 Gb/s'", text));
  bool ok = false;
  double m = size_unit(base, ok);
  if (!ok || base.empty()) throw UnitError(fmt::format("unknown rate unit '{}' in '{}' (use GB/s, Gb/s, GiB/s, MB/s, GBps, Gbps)", s.unit, text));
  if (s.number < 0) throw UnitError(fmt::format("rate must not be negative, got '{}'", text));
  return Rate(in_range(s.number * m, limits::kMaxRate, "rate", text, "1 B/s to 1 PB/s"));
}

Time parse_time(std::string_view text) {
  Split s = split_number(text, "time");
  static constexpr std::array<std::pair<std::string_view, double>, 9> kTable = {{
      {"ps", 1e-12}, {"ns", 1e-9}, {"us", 1e-6}, {"\xC2\xB5s", 1e-6}, {"\xCE\xBCs", 1e-6}, {"ms", 1e-3},
      {"s", 1.0}, {"min", 60.0}, {"h", 3600.0},
  }};
  for (const auto& [name, m] : kTable)
    if (name == s.unit) {
      if (s.number < 0) throw UnitError(fmt::format("time must not be negative, got '{}'", text));
      return Time::from_seconds(in_range(s.number * m, limits::kMaxInputSeconds, "time", text, "0 to 1e6 s"));
    }
  throw UnitError(fmt::format("time '{}' needs a unit: ps, ns, us, ms, s", text));
}

FlopRate parse_flop_rate(std::string_view text) {
  Split s = split_number(text, "flop rate");
  std::string u = s.unit;
  for (std::string_view suffix : {"FLOP/s", "FLOPS", "flop/s", "flops"}) {
    if (u.size() >= suffix.size() && u.substr(u.size() - suffix.size()) == suffix) {
      double m = 0;
      if (prefix_multiplier(u.substr(0, u.size() - suffix.size()), m) && s.number >= 0)
        return FlopRate(in_range(s.number * m, limits::kMaxFlopRate, "flop rate", text, "1 FLOP/s to 1 EFLOP/s"));
    }
  }
  throw UnitError(fmt::format("flop rate '{}' needs a unit like '312 TFLOP/s'", text));
}

Flops parse_flops(std::string_view text) {
  Split s = split_number(text, "flop count");
  std::string u = s.unit;
  for (std::string_view suffix : {"FLOP", "flop"}) {
    if (u.size() >= suffix.size() && u.substr(u.size() - suffix.size()) == suffix) {
      double m = 0;
      if (prefix_multiplier(u.substr(0, u.size() - suffix.size()), m) && s.number >= 0)
        return Flops(in_range(s.number * m, limits::kMaxFlops, "flop count", text, "0 to 1e30 FLOP"));
    }
  }
  throw UnitError(fmt::format("flop count '{}' needs a unit like '3.1e21 FLOP'", text));
}

double parse_watts(std::string_view text) {
  Split s = split_number(text, "power");
  double m = 0;
  if (s.unit == "W") m = 1;
  else if (s.unit == "kW") m = 1e3;
  else throw UnitError(fmt::format("power '{}' needs a unit: W or kW, like '500 W'", text));
  const double w = s.number * m;
  if (!(w >= 1 && w <= 1e6)) throw UnitError(fmt::format("power '{}' is out of range: power must be from 1 W to 1 MW", text));
  return w;
}

std::string format_bytes(Bytes b) {
  static constexpr std::array<std::pair<const char*, double>, 4> kBinary = {
      {{"TiB", 1099511627776.0}, {"GiB", 1073741824.0}, {"MiB", 1048576.0}, {"KiB", 1024.0}}};
  for (const auto& [name, m] : kBinary) {
    double q = b.value() / m;
    if (q >= 1 && q == std::floor(q)) return fmt::format("{} {}", q, name);
  }
  return fmt::format("{} B", b.value());
}

std::string format_rate(Rate r) { return fmt::format("{} B/s", r.value()); }
std::string format_time(Time t) { return fmt::format("{} ps", t.picoseconds()); }

}  // namespace plansim::io

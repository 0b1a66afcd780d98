#include "sim/core/units.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>

#include "sim/core/error.hpp"

namespace plansim {

void throw_time_overflow(const char* what) {
  throw ConfigError(SourcePos{"plansim", 0, 0},
                    fmt::format("{} passed {:g} s (106 days), the range of the simulated clock: an input makes this "
                                "run impossibly long (a tiny bandwidth or FLOP rate, a huge model or batch)",
                                what, Time::max_seconds()));
}
namespace {

// Prints v with a decimal SI prefix chosen so the mantissa is in [1, 1000).
std::string with_si_prefix(double v, const char* unit) {
  static constexpr std::array<const char*, 7> kPrefixes = {"", "k", "M", "G", "T", "P", "E"};
  double mag = std::fabs(v);
  size_t i = 0;
  while (mag >= 1000.0 && i + 1 < kPrefixes.size()) {
    mag /= 1000.0;
    v /= 1000.0;
    ++i;
  }
  return fmt::format("{:.4g} {}{}", v, kPrefixes[i], unit);
}

}  // namespace

std::string to_string(Time t) {
  if (t.is_infinite()) return "inf";
  const double s = t.seconds();
  const double a = std::fabs(s);
  if (a == 0.0) return "0 s";
  if (a < 1e-9) return fmt::format("{} ps", t.picoseconds());
  if (a < 1e-6) return fmt::format("{:.4g} ns", s * 1e9);
  if (a < 1e-3) return fmt::format("{:.4g} us", s * 1e6);
  if (a < 1.0) return fmt::format("{:.4g} ms", s * 1e3);
  return fmt::format("{:.4g} s", s);
}

std::string to_string(Bytes b) { return with_si_prefix(b.value(), "B"); }
std::string to_string(Rate r) { return with_si_prefix(r.value(), "B/s"); }
std::string to_string(Flops f) { return with_si_prefix(f.value(), "FLOP"); }
std::string to_string(FlopRate f) { return with_si_prefix(f.value(), "FLOP/s"); }

}  // namespace plansim

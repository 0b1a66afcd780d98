#pragma once
// Unit strings, parsed once at the input boundary.
//   sizes:  "80 GiB", "25MiB", "1.5 GB", "512 B", "4096" (plain number = bytes). GB = 1e9, GiB = 2^30.
//           Bits are accepted too: "400 Mb" = 50 MB.
//   rates:  "900 GB/s", "400 Gb/s" (bits: = 50 GB/s), "50 GBps", "100 Gbps", "12.5 GiB/s".
//   times:  "1.5 us", "500 ns", "2 ms", "3 s", "0.8 µs". A plain number is refused (unit needed).
//   flops:  "312 TFLOP/s", "989 TFLOPS" (rate); "3.1e21 FLOP" (count).
//   power:  "500 W", "1.2 kW" (watts). A plain number is refused (unit needed).
// Each parse function throws UnitError with a message naming what was expected.
#include <stdexcept>
#include <string>
#include <string_view>

#include "sim/core/units.hpp"

namespace plansim::io {

class UnitError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

Bytes parse_bytes(std::string_view text);
Rate parse_rate(std::string_view text);
Time parse_time(std::string_view text);
FlopRate parse_flop_rate(std::string_view text);
Flops parse_flops(std::string_view text);
double parse_watts(std::string_view text);  // power in watts, from 1 W to 1 MW

// Canonical strings that parse back to the same value (round-trip tested).
std::string format_bytes(Bytes b);  // exact: "80 GiB" when a whole binary multiple, else "1.5e+09 B"
std::string format_rate(Rate r);    // "5e+10 B/s"
std::string format_time(Time t);    // "1500 ps"

}  // namespace plansim::io

#pragma once
// The one checked path from text to number (README "Units" and "Limits"): parse the whole text
// strictly, apply the unit (unit_parse.hpp), then require a finite value inside the quantity's
// documented range. The YAML readers (yaml_reader.hpp, so also --set) and every numeric command-line
// option (sim/app/cli_numbers.hpp) go through it. A rejection throws UnitError with a one-line message
// that names the accepted range; the caller adds where the text came from (file:line:col, --option).
//
//   int64_t n = integer_in("131073", {1, limits::kMaxGpus});  // UnitError: "must be an integer from 1 to 131,072 ..."
//   double f = real_in(".nan", {0, 1});                       // UnitError: "must be a finite number ..."
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/io/unit_parse.hpp"

namespace plansim::io {

struct IntRange {
  int64_t lo = 0;
  int64_t hi = 0;
};

struct RealRange {
  double lo = 0;
  double hi = 0;
  bool lo_open = false;  // (lo, hi] instead of [lo, hi]
};

// A decimal integer, the whole text (surrounding spaces allowed): optional sign, digits. Beyond int64: an error.
int64_t parse_integer(std::string_view text);
// A decimal number, the whole text: optional sign, digits, fraction, exponent. Must be finite:
// "inf", ".nan", "1e999" are errors (with a message saying so).
double parse_real(std::string_view text);

// Parse, then require the range. Messages: "must be an integer from 1 to 131,072, got '0'".
int64_t integer_in(std::string_view text, IntRange range);
double real_in(std::string_view text, RealRange range);

// The range as words: "an integer from 1 to 131,072", "a number > 0 and <= 1".
std::string describe(IntRange range);
std::string describe(RealRange range);
// Empty when `v` is finite and inside `range`, else what is wrong ("must be ..., got ...").
std::string range_problem(int64_t v, IntRange range);
std::string range_problem(double v, RealRange range);

// 131072 -> "131,072".
std::string with_commas(int64_t v);

// nccl-tests' size syntax for -b/-e: a number with an optional K, M or G suffix = powers of 1024,
// from 0 to 1 PiB; rounded down to a whole byte.
Bytes parse_nccl_size(std::string_view text);

}  // namespace plansim::io

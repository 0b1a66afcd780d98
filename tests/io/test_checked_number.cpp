// The checked path text -> number (sim/io/checked_number.hpp) and the unit parsers' ranges after the
// unit is applied (README "Units").
#include <catch2/catch.hpp>

#include <string>

#include "sim/io/checked_number.hpp"
#include "sim/io/unit_parse.hpp"

using namespace plansim;
using namespace plansim::io;

namespace {
template <class F>
std::string unit_error(F f) {
  try {
    f();
  } catch (const UnitError& e) {
    return e.what();
  }
  return "<no error>";
}
}  // namespace

TEST_CASE("checked numbers: integers are whole texts, without overflow", "[io][limits]") {
  CHECK(parse_integer("42") == 42);
  CHECK(parse_integer(" +7 ") == 7);
  CHECK(parse_integer("-3") == -3);
  CHECK(parse_integer("9223372036854775807") == INT64_MAX);
  CHECK(unit_error([] { parse_integer("9223372036854775808"); }).find("out of range") != std::string::npos);
  for (const char* bad : {"", "1.5", "1e3", "12abc", "0x10", "--1", "+", " "})
    CHECK(unit_error([&] { parse_integer(bad); }) != "<no error>");
  CHECK(integer_in("131072", {1, 131072}) == 131072);
  CHECK(unit_error([] { integer_in("131073", {1, 131072}); }) == "must be an integer from 1 to 131,072, got 131,073");
  CHECK(unit_error([] { integer_in("abc", {0, 10}); }) == "must be an integer from 0 to 10, got 'abc'");
}

TEST_CASE("checked numbers: reals must be finite decimals", "[io][limits]") {
  CHECK(parse_real("1.5") == 1.5);
  CHECK(parse_real(" .5 ") == 0.5);
  CHECK(parse_real("-2e-3") == -2e-3);
  CHECK(parse_real("1E+2") == 100.0);
  for (const char* nonfinite : {".nan", "nan", "NaN", ".inf", "+.inf", "-.Inf", "inf", "infinity"})
    CHECK(unit_error([&] { parse_real(nonfinite); }).find("must be a finite number") != std::string::npos);
  CHECK(unit_error([] { parse_real("1e999"); }).find("out of range") != std::string::npos);
  for (const char* bad : {"", ".", "e3", "1e", "0x1p3", "1.5.2", "1,5", "12 us"})
    CHECK(unit_error([&] { parse_real(bad); }).find("must be a number") != std::string::npos);
  CHECK(real_in("0.1", {0, 1, true}) == 0.1);
  CHECK(unit_error([] { real_in("0", {0, 1, true}); }) == "must be a number > 0 and <= 1, got 0");
  CHECK(unit_error([] { real_in("-0.5", {0, 100}); }) == "must be a number from 0 to 100, got -0.5");
  CHECK(with_commas(1000000000) == "1,000,000,000");
  CHECK(with_commas(-1234) == "-1,234");
  CHECK(with_commas(999) == "999");
}

TEST_CASE("units: the range is checked after the unit multiplies", "[io][limits]") {
  CHECK(parse_rate("400 Gb/s").value() == 50e9);
  CHECK(parse_rate("1 PB/s").value() == 1e15);
  CHECK(unit_error([] { parse_rate("1e300 GB/s"); }) ==
        "rate '1e300 GB/s' is out of range: rate must be from 1 B/s to 1 PB/s");
  CHECK(unit_error([] { parse_rate("2 PB/s"); }).find("out of range") != std::string::npos);
  CHECK(unit_error([] { parse_bytes("1e300 GiB"); }).find("size '1e300 GiB' is out of range") != std::string::npos);
  CHECK(parse_bytes("1 PiB").value() == 1125899906842624.0);
  CHECK(unit_error([] { parse_time("2e6 s"); }).find("time '2e6 s' is out of range") != std::string::npos);
  CHECK(unit_error([] { parse_time("1000 h"); }).find("out of range") != std::string::npos);
  CHECK(parse_time("1e6 s").seconds() == 1e6);
  CHECK(unit_error([] { parse_flop_rate("1e300 TFLOP/s"); }).find("out of range") != std::string::npos);
  CHECK(unit_error([] { parse_rate("1e999 GB/s"); }).find("malformed number") != std::string::npos);
  CHECK(unit_error([] { parse_rate(".nan GB/s"); }) != "<no error>");
  CHECK(unit_error([] { parse_rate("0x1p3 GB/s"); }) != "<no error>");
}

TEST_CASE("units: nccl-tests sizes (-b/-e) are checked", "[io][limits]") {
  CHECK(parse_nccl_size("8").value() == 8);
  CHECK(parse_nccl_size("8K").value() == 8192);
  CHECK(parse_nccl_size("1.5k").value() == 1536);
  CHECK(parse_nccl_size("8G").value() == 8589934592.0);
  for (const char* bad : {"-1", "abc", "1e300", "2097152G", "nan", "8T", "", "K"})
    CHECK(unit_error([&] { parse_nccl_size(bad); }) != "<no error>");
}

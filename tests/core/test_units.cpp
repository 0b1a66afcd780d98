#include <catch2/catch.hpp>

#include "sim/core/units.hpp"
#include "sim/io/unit_parse.hpp"

using namespace plansim;
using namespace plansim::io;

TEST_CASE("units: time is exact picoseconds", "[units]") {
  CHECK(Time::us(1.5).picoseconds() == 1'500'000);
  CHECK(Time::ns(500).picoseconds() == 500'000);
  CHECK(Time::s(2) - Time::ms(500) == Time::ms(1500));
  CHECK(Time::zero() < Time::ps(1));
  CHECK(Time::infinite().is_infinite());
}

TEST_CASE("units: transfer_time is bytes over rate", "[units]") {
  // The seeds' figure: 100 GB of weights over a 12.5 GB/s bus takes 8 s.
  CHECK(transfer_time(GB(100), GBps(12.5)) == Time::s(8));
  CHECK(transfer_time(Bytes(0), GBps(1)) == Time::zero());
  CHECK(transfer_time(GB(1), Rate(0)).is_infinite());
}

TEST_CASE("unit strings: decimal vs binary prefixes, bits vs bytes", "[units][io]") {
  CHECK(parse_rate("400 Gb/s").value() == Approx(50e9));  // bits: 400 Gb/s is 50 GB/s
  CHECK(parse_rate("400 Gbps").value() == Approx(50e9));
  CHECK(parse_rate("900 GB/s").value() == Approx(900e9));
  CHECK(parse_rate("50GBps").value() == Approx(50e9));
  CHECK(parse_rate("1 GiB/s").value() == Approx(1073741824.0));
  CHECK(parse_bytes("80 GiB").value() == Approx(80.0 * 1073741824.0));
  CHECK(parse_bytes("80 GB").value() == Approx(80e9));
  CHECK(parse_bytes("25MiB").value() == Approx(25.0 * 1048576.0));
  CHECK(parse_bytes("4096").value() == Approx(4096));
  CHECK(parse_bytes("8 Mb").value() == Approx(1e6));
  CHECK(parse_time("1.5 us") == Time::ns(1500));
  CHECK(parse_time("500ns") == Time::ns(500));
  CHECK(parse_time("2 ms") == Time::us(2000));
  CHECK(parse_time("0.8 \xC2\xB5s") == Time::ns(800));
  CHECK(parse_flop_rate("312 TFLOP/s").value() == Approx(312e12));
  CHECK(parse_flop_rate("989 TFLOPS").value() == Approx(989e12));
  CHECK(parse_flops("3.1e21 FLOP").value() == Approx(3.1e21));
  CHECK(parse_watts("500 W") == 500);
  CHECK(parse_watts("1.2kW") == Approx(1200));
}

TEST_CASE("unit strings: rejected with a message naming the problem", "[units][io]") {
  CHECK_THROWS_WITH(parse_rate("400 Gb"), Catch::Contains("per second"));
  CHECK_THROWS_WITH(parse_rate("fast"), Catch::Contains("expected a rate"));
  CHECK_THROWS_WITH(parse_bytes("80 GX"), Catch::Contains("unknown size unit"));
  CHECK_THROWS_WITH(parse_bytes("-1 GB"), Catch::Contains("negative"));
  CHECK_THROWS_WITH(parse_time("5"), Catch::Contains("needs a unit"));
  CHECK_THROWS_WITH(parse_time("1.2.3 us"), Catch::Contains("malformed"));
  CHECK_THROWS_WITH(parse_watts("500"), Catch::Contains("needs a unit: W or kW"));
  CHECK_THROWS_WITH(parse_watts("500 mW"), Catch::Contains("needs a unit: W or kW"));
  CHECK_THROWS_WITH(parse_watts("-5 W"), Catch::Contains("out of range"));
  CHECK_THROWS_WITH(parse_watts("2000 kW"), Catch::Contains("out of range"));
}

TEST_CASE("unit strings: canonical forms round-trip", "[units][io]") {
  for (double v : {1.0, 512.0, 1536.0, 80.0 * 1073741824.0, 1.5e9, 25.0 * 1048576.0, 123456789.0}) {
    CHECK(parse_bytes(format_bytes(Bytes(v))).value() == v);
  }
  for (double v : {50e9, 12.5e9, 1.0, 3.3e12}) CHECK(parse_rate(format_rate(Rate(v))).value() == v);
  for (Time t : {Time::ns(500), Time::us(1.5), Time::s(8), Time::ps(1)}) CHECK(parse_time(format_time(t)) == t);
}

TEST_CASE("units: printed forms say their unit", "[units]") {
  CHECK(to_string(Time::us(1.5)) == "1.5 us");
  CHECK(to_string(GB(80)) == "80 GB");
  CHECK(to_string(GBps(50)) == "50 GB/s");
  CHECK(to_string(TFLOPs_per_s(312)) == "312 TFLOP/s");
}

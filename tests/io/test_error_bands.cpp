#include <catch2/catch.hpp>

#include <cmath>

#include "sim/io/error_bands.hpp"

using namespace plansim;

TEST_CASE("error bands: < 1 MiB, 1-64 MiB, >= 64 MiB with mean and max |error|", "[io][coll]") {
  io::ErrorBands b;
  b.add(Bytes(1048575), -10);
  b.add(Bytes(1048576), 4);
  b.add(Bytes(64 * 1048576.0 - 1), -8);
  b.add(Bytes(64 * 1048576.0), 2);
  CHECK(b.mean(0) == 10);
  CHECK(b.max(0) == 10);
  CHECK(b.mean(1) == 6);
  CHECK(b.max(1) == 8);
  CHECK(b.rows(2) == 1);
  io::ErrorBands all;
  all.merge(b);
  all.merge(b);
  CHECK(all.rows(1) == 4);
  CHECK(all.max(1) == 8);
  CHECK(std::isnan(io::ErrorBands{}.mean(2)));
  CHECK(b.format() == "< 1 MiB mean 10.0 % max 10.0 % (1 rows) | 1-64 MiB mean 6.0 % max 8.0 % (2 rows) | "
                      ">= 64 MiB mean 2.0 % max 2.0 % (1 rows)");
  CHECK(io::ErrorBands{}.format() == "< 1 MiB - | 1-64 MiB - | >= 64 MiB -");
}

#pragma once
// Prediction errors of a validation table grouped by message size, as the collectives issue asks:
// < 1 MiB, 1-64 MiB, >= 64 MiB, each with mean and max |error| (and the >= 1 MiB total, the target's
// band). Used by `plansim collective --compare`.
#include <array>
#include <string>

#include "sim/core/units.hpp"

namespace plansim::io {

class ErrorBands {
 public:
  static constexpr int kBands = 3;  // < 1 MiB, [1, 64) MiB, >= 64 MiB
  static int band_of(Bytes b);
  static const char* band_name(int band);  // "< 1 MiB", "1-64 MiB", ">= 64 MiB"

  void add(Bytes size, double error_percent);  // error signed; |error| is accumulated
  void merge(const ErrorBands& o);
  // "< 1 MiB mean 3.1 % max 7.0 % (5 rows) | 1-64 MiB ... | >= 64 MiB ..."; "-" for an empty band.
  [[nodiscard]] std::string format() const;
  [[nodiscard]] double mean(int band) const;  // NaN when empty
  [[nodiscard]] double max(int band) const;
  [[nodiscard]] int rows(int band) const { return n_[static_cast<size_t>(band)]; }

 private:
  std::array<double, kBands> sum_{}, max_{};
  std::array<int, kBands> n_{};
};

}  // namespace plansim::io

#include "sim/io/error_bands.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace plansim::io {

int ErrorBands::band_of(Bytes b) {
  constexpr double kMiB = 1048576.0;
  if (b.value() < kMiB) return 0;
  return b.value() < 64 * kMiB ? 1 : 2;
}

const char* ErrorBands::band_name(int band) {
  static const char* names[] = {"< 1 MiB", "1-64 MiB", ">= 64 MiB"};
  return names[band];
}

void ErrorBands::add(Bytes size, double error_percent) {
  const auto i = static_cast<size_t>(band_of(size));
  sum_[i] += std::abs(error_percent);
  max_[i] = std::max(max_[i], std::abs(error_percent));
  ++n_[i];
}

void ErrorBands::merge(const ErrorBands& o) {
  for (size_t i = 0; i < kBands; ++i) {
    sum_[i] += o.sum_[i];
    max_[i] = std::max(max_[i], o.max_[i]);
    n_[i] += o.n_[i];
  }
}

double ErrorBands::mean(int band) const {
  const auto i = static_cast<size_t>(band);
  return n_[i] ? sum_[i] / n_[i] : std::numeric_limits<double>::quiet_NaN();
}

double ErrorBands::max(int band) const { return max_[static_cast<size_t>(band)]; }

std::string ErrorBands::format() const {
  std::string out;
  for (int b = 0; b < kBands; ++b) {
    if (b) out += " | ";
    out += rows(b) ? fmt::format("{} mean {:.1f} % max {:.1f} % ({} rows)", band_name(b), mean(b), max(b), rows(b))
                   : fmt::format("{} -", band_name(b));
  }
  return out;
}

}  // namespace plansim::io

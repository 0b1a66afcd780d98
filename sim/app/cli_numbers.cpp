#include "sim/app/cli_numbers.hpp"

#include <fmt/format.h>

namespace plansim::app {

CLI::Validator count_in(int64_t lo, int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        try {
          text = std::to_string(io::integer_in(text, io::IntRange{lo, hi}));
        } catch (const io::UnitError& e) {
          return e.what();
        }
        return {};
      },
      fmt::format("{}..{}", lo, hi), "count_in");
}

CLI::Validator number_in(io::RealRange range) {
  return CLI::Validator(
      [range](std::string& text) -> std::string {
        try {
          text = fmt::format("{:.17g}", io::real_in(text, range));
        } catch (const io::UnitError& e) {
          return e.what();
        }
        return {};
      },
      io::describe(range), "number_in");
}

CLI::Validator nccl_size() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          (void)io::parse_nccl_size(text);
        } catch (const io::UnitError& e) {
          return e.what();
        }
        return {};
      },
      "SIZE[K|M|G]", "nccl_size");
}

}  // namespace plansim::app

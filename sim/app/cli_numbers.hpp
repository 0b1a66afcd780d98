#pragma once
// Numeric command-line options through io's checked path (sim/io/checked_number.hpp), so that a bad
// value reads like a bad value in a file: one line, `plansim: --option: must be ..., got '...'`, exit 2.
// Each validator parses the whole text (finite, no trailing junk), checks the documented range and
// rewrites the text to its canonical form, so CLI11's own conversion that follows cannot fail.
//
//   sub->add_option("--nodes", o->nodes, "...")->check(count_in(1, limits::kMaxServers));
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "sim/io/checked_number.hpp"

namespace plansim::app {

CLI::Validator count_in(int64_t lo, int64_t hi);  // an integer in [lo, hi]
CLI::Validator number_in(io::RealRange range);    // a finite real in the range
CLI::Validator nccl_size();                       // -b/-e: a number with an optional K, M or G suffix, 0..1 PiB

}  // namespace plansim::app

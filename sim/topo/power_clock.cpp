#include "sim/topo/power_clock.hpp"

#include <cmath>

namespace plansim {

double power_capped_clock_factor(double limit_watts, double tdp_watts) {
  if (!(limit_watts > 0 && tdp_watts > 0) || limit_watts >= tdp_watts) return 1.0;
  return std::pow(limit_watts / tdp_watts, kPowerClockExponent);
}

}  // namespace plansim

#include "sim/plan/scenario.hpp"

namespace plansim {

const char* to_string(Dim d) {
  switch (d) {
    case Dim::tp: return "tp";
    case Dim::cp: return "cp";
    case Dim::ep: return "ep";
    case Dim::dp: return "dp";
    case Dim::pp: return "pp";
  }
  return "?";
}

std::optional<Dim> dim_from_string(const std::string& s) {
  for (Dim d : {Dim::tp, Dim::cp, Dim::ep, Dim::dp, Dim::pp})
    if (s == to_string(d)) return d;
  return std::nullopt;
}

const char* to_string(Recompute r) {
  switch (r) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::selective_op: return "selective_op";
    case Recompute::full: return "full";
  }
  return "?";
}

}  // namespace plansim

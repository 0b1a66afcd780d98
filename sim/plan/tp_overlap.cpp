#include "sim/plan/tp_overlap.hpp"

#include <string>

namespace plansim {

TpPairs tp_pairs(const std::vector<OpCost>& k, bool backward) {
  std::vector<int> piped;  // pipelined GEMMs (forward) or data gradients (backward), in order
  for (size_t i = 0; i < k.size(); ++i)
    if (k[i].cls == OpClass::gemm && k[i].token_chunks > 1) piped.push_back(static_cast<int>(i));
  if (piped.empty()) return {};
  TpPairs p{piped.front(), piped.size() > 1 ? piped.back() : -1};
  if (backward && p.after >= 0) {
    // backward_of names X's gradients X_dgrad, X_wgrad, the weight gradient right after the data one.
    const std::string& dgrad = k[static_cast<size_t>(p.after)].name;
    const std::string suffix = "_dgrad";
    const auto next = static_cast<size_t>(p.after) + 1;
    if (dgrad.size() > suffix.size() && dgrad.compare(dgrad.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        next < k.size() && k[next].name == dgrad.substr(0, dgrad.size() - suffix.size()) + "_wgrad")
      p.after = static_cast<int>(next);
  }
  const size_t paired = p.after >= 0 ? 2 : 1;
  if (k.size() <= paired) return {};
  return p;
}

}  // namespace plansim

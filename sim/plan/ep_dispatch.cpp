#include "sim/plan/ep_dispatch.hpp"

#include <algorithm>
#include <map>

namespace plansim {

double expected_servers_hit(int experts, int top_k, int servers) {
  if (servers <= 1) return 1;
  // P(no chosen expert on a given server) = C(E − E/n, k) / C(E, k) = Π_{i<k} (E − E/n − i) / (E − i).
  const double e = experts, off = e - e / servers;
  double miss = 1;
  for (int i = 0; i < top_k; ++i) miss *= std::max(0.0, off - i) / (e - i);
  return servers * (1 - miss);
}

EpSplit split_ep_group(const std::vector<int>& members, int rank, int domain_gpus) {
  if (domain_gpus <= 0) return {};
  std::map<int, std::vector<int>> by_domain;  // domain -> members, in EP order
  for (int m : members) by_domain[m / domain_gpus].push_back(m);
  if (by_domain.size() <= 1) return {};
  const size_t per = by_domain.begin()->second.size();
  for (const auto& [domain, ranks] : by_domain)
    if (ranks.size() != per) return {};
  EpSplit s;
  s.within = by_domain.at(rank / domain_gpus);
  const auto index = static_cast<size_t>(std::find(s.within.begin(), s.within.end(), rank) - s.within.begin());
  for (const auto& [domain, ranks] : by_domain) s.across.push_back(ranks[index]);
  return s;
}

}  // namespace plansim

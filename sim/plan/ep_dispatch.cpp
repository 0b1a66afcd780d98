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

EpSplit split_ep_group(const std::vector<int>& members, int rank, int node_gpus) {
  if (node_gpus <= 0) return {};
  std::map<int, std::vector<int>> by_server;  // server -> members, in EP order
  for (int m : members) by_server[m / node_gpus].push_back(m);
  if (by_server.size() <= 1) return {};
  const size_t per = by_server.begin()->second.size();
  for (const auto& [server, ranks] : by_server)
    if (ranks.size() != per) return {};
  EpSplit s;
  s.within = by_server.at(rank / node_gpus);
  const auto index = static_cast<size_t>(std::find(s.within.begin(), s.within.end(), rank) - s.within.begin());
  for (const auto& [server, ranks] : by_server) s.across.push_back(ranks[index]);
  return s;
}

}  // namespace plansim

// The built-in algorithms: one line each (plus the factory's declaration). Order matters only for
// tie-breaking in `auto` (earlier wins), which keeps selection deterministic.
#include "sim/coll/algorithm.hpp"

namespace plansim {

std::unique_ptr<CollectiveAlgorithm> make_ring_algorithm();
std::unique_ptr<CollectiveAlgorithm> make_tree_algorithm();
std::unique_ptr<CollectiveAlgorithm> make_nvls_algorithm();
std::unique_ptr<CollectiveAlgorithm> make_nvls_tree_algorithm();
std::unique_ptr<CollectiveAlgorithm> make_collnet_direct_algorithm();
std::unique_ptr<CollectiveAlgorithm> make_nvls_collnet_algorithm();
std::unique_ptr<CollectiveAlgorithm> make_pat_algorithm();
std::unique_ptr<CollectiveAlgorithm> make_halving_doubling_algorithm();
std::unique_ptr<CollectiveAlgorithm> make_hierarchical_algorithm();
std::unique_ptr<CollectiveAlgorithm> make_chain_algorithm();
std::unique_ptr<CollectiveAlgorithm> make_direct_algorithm();
std::unique_ptr<CollectiveAlgorithm> make_send_recv_algorithm();

AlgorithmRegistry make_default_registry() {
  AlgorithmRegistry r;
  r.add(make_ring_algorithm());
  r.add(make_tree_algorithm());
  r.add(make_nvls_algorithm());
  r.add(make_nvls_tree_algorithm());
  r.add(make_collnet_direct_algorithm());
  r.add(make_nvls_collnet_algorithm());
  r.add(make_pat_algorithm());
  r.add(make_halving_doubling_algorithm());
  r.add(make_hierarchical_algorithm());
  r.add(make_chain_algorithm());
  r.add(make_direct_algorithm());
  r.add(make_send_recv_algorithm());
  return r;
}

}  // namespace plansim

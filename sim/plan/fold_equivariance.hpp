#pragma once
// Whether folding a plan's replicas (CompileOptions::fold_dp) keeps its expert-parallel groups groups.
//
// A folded plan runs the ranks of block 0 (the folded coordinate below `block`) and stands them in for
// every block: a transfer whose group lies inside block 0 is replayed, ranks shifted, for the others; a
// transfer whose group spans blocks runs once, naming every member. That is the unfolded run only when
// shifting a rank by one block (its coordinate + block, cyclically) shifts its groups with it: then a
// group inside block 0 becomes the shifted rank's own group, and a spanning group maps onto itself. The
// dense groups vary whole coordinates and always do. The expert-parallel groups need not:
//  * with the experts folded (ParallelSpec::expert_tp), RankMapping::expert_group cuts the ranks of a
//    stage into runs of ep·expert_tp consecutive indices, which a shift of tp·cp·block indices keeps
//    only when it is a multiple of the run (or the run is the whole stage);
//  * the hierarchical dispatcher (plan/ep_dispatch.hpp) splits an EP group by NVLink domain, which a
//    shift keeps only when it moves domains onto domains.
// Checked directly, rank by rank: O(world · ep).
#include <string>

#include "sim/plan/scenario.hpp"

namespace plansim {

// "" when every rank's expert-parallel groups (the EP group, and its per-domain split where the
// hierarchical dispatcher applies) shifted by one block of `block` along `dim` are the shifted rank's;
// else which rank's group is not, for the report's notes.
std::string expert_groups_break_fold(const Scenario& s, Dim dim, int block);

}  // namespace plansim

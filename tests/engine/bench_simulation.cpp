// Event-queue benchmark ([bench]: not run by ctest). Run: build/tests/plansim_tests "[bench][engine]"
// The shape of a large plan's run: 2,048 ranks each run a chain of 2,000 ops; an op's end schedules
// the rank's next op after a pseudo-random duration and, every other op, a zero-delay follow-up
// (what a finished flow's callback does). Prints the median CPU time per event over five runs.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <vector>

#include "sim/engine/simulation.hpp"

using namespace plansim;

namespace {

struct Chains {
  Simulation sim;
  std::vector<uint32_t> left;  // ops still to run per rank
  uint64_t follow_ups = 0;
  uint64_t state = 88172645463325252ULL;

  uint64_t next() {  // xorshift: cheap, deterministic
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  }
  void op_done(uint32_t r) {
    if (left[r] % 2 == 0) sim.after(Time::zero(), [this] { ++follow_ups; });
    if (--left[r] == 0) return;
    sim.after(Time::ps(static_cast<int64_t>(1'000'000 + next() % 1'000'000)), [this, r] { op_done(r); });
  }
};

}  // namespace

TEST_CASE("bench: event queue, 2048 ranks x 2000 chained ops with zero-delay follow-ups", "[bench][engine]") {
  constexpr uint32_t kRanks = 2048, kOps = 2000;
  std::vector<double> cpu_ns_per_event;
  uint64_t events = 0;
  for (int run = 0; run < 5; ++run) {
    Chains c;
    c.left.assign(kRanks, kOps);
    const std::clock_t c0 = std::clock();
    for (uint32_t r = 0; r < kRanks; ++r) c.sim.after(Time::ps(r), [&c, r] { c.op_done(r); });
    c.sim.run();
    const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    events = c.sim.events_processed();
    // Every op runs once; half of them schedule a follow-up.
    CHECK(events == uint64_t{kRanks} * kOps * 3 / 2);
    CHECK(c.follow_ups == uint64_t{kRanks} * kOps / 2);
    cpu_ns_per_event.push_back(cpu * 1e9 / static_cast<double>(events));
  }
  std::sort(cpu_ns_per_event.begin(), cpu_ns_per_event.end());
  fmt::print("event queue: {} events per run, median {:.1f} ns CPU per event\n", events, cpu_ns_per_event[2]);
}

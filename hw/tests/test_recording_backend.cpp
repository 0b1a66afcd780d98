// The executor's host logic under the recording backend (recording_backend.hpp), without a GPU: device
// placement of streams, events and communicators (defect: an event made before cudaSetDevice), waits
// that mirror the programs' deps, the zero event right after the barrier on the device (no host
// synchronisation in between), the same communicator order on every member, communicators only for
// groups that run something, and a replay under NCCL's in-order matching that must finish (DualPipe's
// two-way channels included) with every pair carrying the plan's tag.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <thread>

#include "hw/rank_runner.hpp"
#include "hw/run_command.hpp"
#include "recording_backend.hpp"

using namespace plansim;
using namespace plansim::hw;
using namespace plansim::hw::testing;

namespace {

std::string tiny() { return std::string(PLANSIM_SOURCE_DIR) + "/hw/tests/data/tiny-pp2.yaml"; }
std::string scenario(const std::string& name) { return std::string(PLANSIM_SOURCE_DIR) + "/scenarios/" + name + ".yaml"; }

// Each phase on a fresh thread per rank, as the executor does (CUDA's current device is per thread).
template <class F>
void on_fresh_threads(std::vector<std::unique_ptr<RankRunner>>& runners, F phase) {
  for (auto& r : runners) std::thread([&] { phase(*r); }).join();
}

struct Recorded {
  World world;
  std::vector<std::unique_ptr<RecordingBackend>> backends;
  std::vector<std::unique_ptr<RankRunner>> runners;
};

// Runs every rank through setup, split, connect and `iterations` iterations; rank r on device r % 8.
std::unique_ptr<Recorded> record_run(const LaunchPlan& lp, bool graph, int iterations = 2) {
  auto rec = std::make_unique<Recorded>();
  for (const RankLaunches& rl : lp.ranks) {
    rec->backends.push_back(std::make_unique<RecordingBackend>(rec->world, rl.rank, static_cast<int>(rl.rank % 8)));
    rec->runners.push_back(std::make_unique<RankRunner>(lp, rl, *rec->backends.back(), graph));
  }
  on_fresh_threads(rec->runners, [](RankRunner& r) { r.setup(); });
  on_fresh_threads(rec->runners, [](RankRunner& r) { r.split(); });
  on_fresh_threads(rec->runners, [](RankRunner& r) { r.connect(); });
  for (int i = 0; i < iterations; ++i) on_fresh_threads(rec->runners, [](RankRunner& r) { r.iteration(); });
  return rec;
}

std::vector<std::vector<uint32_t>> p2p_tags(const LaunchPlan& lp) {
  std::vector<std::vector<uint32_t>> tags;
  for (const RankLaunches& rl : lp.ranks) {
    tags.emplace_back();
    for (const Launch& l : rl.launches)
      if (l.kind == OpKind::send || l.kind == OpKind::recv) tags.back().push_back(l.tag);
  }
  return tags;
}

void check_recorded(const LaunchPlan& lp, const Recorded& rec, bool graph, size_t iterations = 2) {
  // Placement: every stream and event on the rank's device; every communicator's members on theirs.
  for (const auto& be : rec.backends) {
    INFO("rank " << be->rank());
    for (const auto& s : be->streams()) CHECK(s.device == be->device());
    for (const auto& e : be->events()) CHECK(e.device == be->device());
  }
  // Communicators: exactly the created ones, members in the plan's order, each on its rank's device.
  size_t created = 0;
  for (const Communicator& c : lp.communicators) {
    created += c.created ? 1 : 0;
    if (c.created) CHECK(c.ranks.size() > 1);
  }
  CHECK(rec.world.comms.size() == created);
  for (size_t c = 0; c < lp.communicators.size(); ++c) {
    const Communicator& comm = lp.communicators[c];
    for (uint32_t r : comm.ranks) {
      const CommId id = rec.runners[r]->comms()[c];
      REQUIRE((id == kNoComm) == !comm.created);
      if (id == kNoComm) continue;
      std::vector<RecordedMember> members = rec.world.comms[id].members;
      std::sort(members.begin(), members.end(), [](auto& a, auto& b) { return a.key < b.key; });
      REQUIRE(members.size() == comm.ranks.size());
      for (size_t i = 0; i < members.size(); ++i) {
        CHECK(members[i].rank == comm.ranks[i]);
        CHECK(members[i].device == static_cast<int>(comm.ranks[i] % 8));
      }
    }
  }
  for (size_t r = 0; r < lp.ranks.size(); ++r) {
    const RankLaunches& rl = lp.ranks[r];
    const RecordingBackend& be = *rec.backends[r];
    INFO("rank " << r);
    const auto n = static_cast<uint32_t>(rl.launches.size());
    const hw::EventId zero = 3 * n, fork = 3 * n + 1;
    // The zero event is recorded on the barrier's stream right after it: no host wait in between.
    const auto& calls = be.calls();
    size_t barriers = 0;
    for (size_t i = 0; i < calls.size(); ++i) {
      if (calls[i].kind != CallKind::barrier) continue;
      ++barriers;
      REQUIRE(i + 1 < calls.size());
      CHECK(calls[i + 1].kind == CallKind::record);
      CHECK(calls[i + 1].event == zero);
      CHECK(calls[i + 1].stream == calls[i].stream);
      if (graph) CHECK(calls[i + 2].kind == CallKind::launch_captured);
    }
    CHECK(barriers == iterations);
    // Every wait before an op's start event is exactly one of its deps (or the fork, before any op).
    std::vector<std::vector<uint32_t>> waited(rl.streams);
    size_t ops_started = 0;
    for (const Call& c : be.iteration_calls()) {
      if (c.kind == CallKind::wait) {
        if (c.event == fork || c.event > 3 * n + 1) continue;  // fork / join
        REQUIRE(c.event % 3 == 2);                             // a done event
        waited[c.stream].push_back(c.event / 3);
      }
      if (c.kind == CallKind::record && c.event < 3 * n && c.event % 3 == 0) {
        const Launch& l = rl.launches[c.event / 3];
        CHECK(c.stream == l.stream);
        CHECK(waited[c.stream] == l.waits);
        waited[c.stream].clear();
        ++ops_started;
      }
    }
    CHECK(ops_started == n);
  }
  // Under CUDA's stream order and NCCL's in-order matching the iteration completes on every rank.
  CHECK(replay_iteration(rec.backends, rec.world, p2p_tags(lp)) == "");
}

}  // namespace

TEST_CASE("recording backend: placement, waits, zero event and NCCL order for every parallelism", "[hw][record]") {
  const std::vector<std::vector<std::string>> variants = {
      {"nodes=2", "parallel.pp=2", "training.global_batch=8"},
      {"nodes=2", "schedule.kind=zb-h1", "training.global_batch=8"},
      {"nodes=8", "parallel.pp=2", "parallel.dp=4", "schedule.kind=interleaved", "schedule.virtual_stages=2",
       "training.global_batch=8"},
      {"nodes=8", "parallel.tp=2", "parallel.pp=2", "parallel.dp=2", "parallel.sequence_parallel=true",
       "training.recompute=full"},
      {"nodes=8", "parallel.cp=2", "parallel.pp=2", "parallel.dp=2", "parallel.zero=3"},
      {"nodes=8", "parallel.pp=1", "parallel.dp=8", "parallel.ep=4", "model.moe.experts=8", "model.moe.top_k=2",
       "training.global_batch=8", "parallel.zero=1", "training.recompute=selective"},
  };
  for (const auto& sets : variants)
    for (bool graph : {true, false}) {
      INFO(sets.back() << (graph ? " (CUDA graph)" : " (eager)"));
      RunArgs args;
      args.file = tiny();
      args.sets = sets;
      const PreparedRun run = prepare_run(args);
      const auto rec = record_run(run.launches, graph);
      check_recorded(run.launches, *rec, graph);
    }
}

TEST_CASE("recording backend: DualPipe's two-way pipeline runs under NCCL's in-order matching", "[hw][record]") {
  RunArgs args;
  args.file = scenario("dualpipe-moe-64-h100");
  args.scale_layers = 8;
  const PreparedRun run = prepare_run(args);
  // Some channel's two sides order their messages differently: it gets more than one lane.
  const bool lanes = std::any_of(run.launches.communicators.begin(), run.launches.communicators.end(),
                                 [](const Communicator& c) { return c.label.find("lane") != std::string::npos; });
  CHECK(lanes);
  const auto rec = record_run(run.launches, true, 1);
  check_recorded(run.launches, *rec, true, 1);
}

TEST_CASE("recording backend: a channel on one lane whose orders disagree deadlocks or mismatches", "[hw][record]") {
  // The replay is strict enough to catch the defect the lanes fix: force every channel onto one lane.
  RunArgs args;
  args.file = scenario("dualpipe-moe-64-h100");
  args.scale_layers = 8;
  PreparedRun run = prepare_run(args);
  LaunchPlan& lp = run.launches;
  std::map<std::string, uint32_t> first_lane;
  for (uint32_t c = 0; c < lp.communicators.size(); ++c) {
    const std::string& label = lp.communicators[c].label;
    const auto at = label.find(" lane ");
    if (at == std::string::npos) continue;
    auto [it, fresh] = first_lane.emplace(label.substr(0, at), c);
    if (!fresh) lp.communicators[c].created = false;
  }
  for (RankLaunches& rl : lp.ranks)
    for (Launch& l : rl.launches) {
      if (l.kind != OpKind::send && l.kind != OpKind::recv) continue;
      const std::string& label = lp.communicators[l.communicator].label;
      const auto at = label.find(" lane ");
      if (at != std::string::npos) l.communicator = first_lane.at(label.substr(0, at));
    }
  lp.split_rounds.clear();
  for (uint32_t c = 0; c < lp.communicators.size(); ++c)
    if (lp.communicators[c].created) lp.split_rounds.push_back({c});
  const auto rec = record_run(lp, false, 1);
  CHECK(replay_iteration(rec->backends, rec->world, p2p_tags(lp)) != "");
}

TEST_CASE("recording backend: an event made before the device is bound cannot be recorded on the rank's stream", "[hw][record]") {
  World world;
  RecordingBackend be(world, 1, 1);
  std::thread([&] {
    const hw::EventId early = be.create_event(EventUse::timing);  // device 0: nothing bound yet
    be.bind_thread();
    const StreamId s = be.create_stream(false);
    CHECK_THROWS_WITH(be.record(early, s), Catch::Contains("created on device 0"));
  }).join();
}

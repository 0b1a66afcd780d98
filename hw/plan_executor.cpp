#include "hw/plan_executor.hpp"

#include <fmt/format.h>

#include <atomic>
#include <exception>
#include <memory>
#include <stdexcept>
#include <thread>

#include "hw/cuda_backend.hpp"
#include "hw/rank_runner.hpp"
#include "hw/run_control.hpp"

namespace plansim::hw {
namespace {

// Runs `phase` on one thread per local rank; failures are printed at once and raise the abort flag. With
// `watch`, the calling thread is the watchdog meanwhile. Returns the watchdog's reason ("" = fine).
template <class F>
std::string on_ranks(int local, const NcclWorld& world, RunControl& ctl, bool watch, F phase) {
  std::atomic<int> running{local};
  std::vector<std::thread> threads;
  for (int i = 0; i < local; ++i)
    threads.emplace_back([&, i] {
      try {
        phase(i);
      } catch (const AbortedError&) {
        // another rank's failure stopped this one; that rank has said why
      } catch (const std::exception& e) {
        ctl.fail(world.global_rank(i), world.device(i), e.what());
      }
      --running;
    });
  std::string why;
  if (watch) why = ctl.watch(running);
  for (auto& t : threads) t.join();
  if (why.empty() && ctl.failed()) why = "a rank failed";
  return why;
}

}  // namespace

ExecuteResult execute_on_gpus(const LaunchPlan& plan, const ExecuteOptions& opt, const ProcessGroup& procs,
                              NcclWorld& world) {
  if (world.nranks() != plan.world)
    throw std::invalid_argument(fmt::format("the plan needs {} ranks, the NCCL world has {}", plan.world, world.nranks()));
  const int local = world.local_count();
  RunControl ctl(opt.timeout_s);
  for (int i = 0; i < local; ++i) ctl.add(world.comm(i));
  std::vector<std::unique_ptr<ExecBackend>> backends;
  std::vector<std::unique_ptr<RankRunner>> runners;
  for (int i = 0; i < local; ++i) {
    const auto rank = static_cast<size_t>(world.global_rank(i));
    backends.push_back(make_cuda_backend({world.device(i), world.comm(i), opt.dtype, opt.fused_attention}, ctl));
    runners.push_back(std::make_unique<RankRunner>(plan, plan.ranks[rank], *backends.back(), opt.graph));
  }
  auto stop = [&](const std::string& why) {
    ctl.abort_all();
    world.forget_aborted();  // aborted with the rest; the backends skip theirs too
    const std::string msg = fmt::format("the run stopped: {} (process {} of {})", why, procs.rank(), procs.size());
    if (procs.size() > 1) procs.abort(msg, 5);
    throw std::runtime_error(msg);
  };
  // Setup has no NCCL call: every rank learns whether all succeeded before any enters NCCL.
  std::string why = on_ranks(local, world, ctl, false, [&](int i) { runners[static_cast<size_t>(i)]->setup(); });
  if (procs.max(why.empty() ? 0.0 : 1.0) > 0) {
    backends.clear();
    throw std::runtime_error(why.empty() ? "another process failed during setup (see its message)"
                                         : "setup failed on this process (see above)");
  }
  why = on_ranks(local, world, ctl, true, [&](int i) {
    RankRunner& r = *runners[static_cast<size_t>(i)];
    r.split();
    r.connect();
  });
  if (!why.empty()) stop(why);
  std::vector<std::vector<std::vector<OpSpan>>> mine(static_cast<size_t>(opt.iters));
  for (int it = 0; it < opt.warmup + opt.iters; ++it) {
    why = on_ranks(local, world, ctl, true, [&](int i) { runners[static_cast<size_t>(i)]->iteration(); });
    if (!why.empty()) stop(why);
    if (it < opt.warmup) continue;
    auto& slot = mine[static_cast<size_t>(it - opt.warmup)];
    slot.assign(static_cast<size_t>(local), {});
    why = on_ranks(local, world, ctl, false, [&](int i) {
      backends[static_cast<size_t>(i)]->bind_thread();
      slot[static_cast<size_t>(i)] = runners[static_cast<size_t>(i)]->spans();
    });
    if (!why.empty()) stop(why);
  }
  // Every process fills its own ranks; the element-wise sum over processes assembles the world.
  std::vector<size_t> offset;
  size_t at = 0;
  for (const auto& r : plan.ranks) {
    offset.push_back(at);
    at += 2 * r.launches.size();
  }
  ExecuteResult out;
  for (const auto& iteration : mine) {
    std::vector<double> flat(at, 0.0);
    for (int i = 0; i < local; ++i) {
      const auto rank = static_cast<size_t>(world.global_rank(i));
      const auto& spans = iteration[static_cast<size_t>(i)];
      for (size_t k = 0; k < spans.size(); ++k) {
        flat[offset[rank] + 2 * k] = spans[k].start_s;
        flat[offset[rank] + 2 * k + 1] = spans[k].end_s;
      }
    }
    procs.sum_in_place(flat);
    std::vector<std::vector<OpSpan>> world_spans(plan.ranks.size());
    for (size_t r = 0; r < plan.ranks.size(); ++r)
      for (size_t k = 0; k < plan.ranks[r].launches.size(); ++k)
        world_spans[r].push_back({flat[offset[r] + 2 * k], flat[offset[r] + 2 * k + 1]});
    out.per_iteration.push_back(std::move(world_spans));
  }
  out.spans = mean_spans(out.per_iteration);
  return out;
}

}  // namespace plansim::hw

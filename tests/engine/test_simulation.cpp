#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/engine/simulation.hpp"

using namespace plansim;

TEST_CASE("simulation: events run in time order, ties in scheduling order", "[engine]") {
  Simulation sim;
  std::vector<std::string> log;
  sim.at(Time::ns(30), [&] { log.push_back("c@30"); });
  sim.at(Time::ns(10), [&] { log.push_back("a@10"); });
  sim.at(Time::ns(20), [&] { log.push_back("b1@20"); });
  sim.at(Time::ns(20), [&] { log.push_back("b2@20"); });
  sim.at(Time::ns(20), [&] { log.push_back("b3@20"); });
  sim.at(Time::ns(10), [&] { log.push_back("a2@10"); });
  sim.run();
  CHECK(log == std::vector<std::string>{"a@10", "a2@10", "b1@20", "b2@20", "b3@20", "c@30"});
  CHECK(sim.now() == Time::ns(30));
  CHECK(sim.events_processed() == 6);
  CHECK(sim.pending() == 0);
}

TEST_CASE("simulation: the clock is the event's time while it runs", "[engine]") {
  Simulation sim;
  std::vector<int64_t> seen;
  for (int64_t t : {5, 1, 3}) sim.at(Time::ps(t), [&] { seen.push_back(sim.now().picoseconds()); });
  sim.run();
  CHECK(seen == std::vector<int64_t>{1, 3, 5});
}

TEST_CASE("simulation: cancel removes a pending event, once", "[engine]") {
  Simulation sim;
  std::vector<int> log;
  sim.at(Time::ns(1), [&] { log.push_back(1); });
  EventId two = sim.at(Time::ns(2), [&] { log.push_back(2); });
  sim.at(Time::ns(3), [&] { log.push_back(3); });
  CHECK(sim.pending() == 3);
  CHECK(sim.cancel(two));
  CHECK_FALSE(sim.cancel(two));  // already cancelled
  CHECK(sim.pending() == 2);
  sim.run();
  CHECK(log == std::vector<int>{1, 3});
  CHECK(sim.events_processed() == 2);
  CHECK_FALSE(sim.cancel(EventId{}));  // the null id
}

TEST_CASE("simulation: cancelling an event that already ran does nothing", "[engine]") {
  Simulation sim;
  int runs = 0;
  EventId id = sim.at(Time::ns(1), [&] { ++runs; });
  sim.run();
  CHECK(runs == 1);
  CHECK_FALSE(sim.cancel(id));
}

TEST_CASE("simulation: a stale id does not cancel the event that reused its slot", "[engine]") {
  Simulation sim;
  std::vector<int> log;
  EventId old_id = sim.at(Time::ns(5), [&] { log.push_back(1); });
  REQUIRE(sim.cancel(old_id));
  // The freed slot is reused by the next event; the old id must not reach it.
  EventId new_id = sim.at(Time::ns(7), [&] { log.push_back(2); });
  CHECK(new_id.slot == old_id.slot);
  CHECK(new_id.seq != old_id.seq);
  CHECK_FALSE(sim.cancel(old_id));
  sim.run();
  CHECK(log == std::vector<int>{2});
  // Also after running: the slot of a finished event is reused, its id stays dead.
  EventId ran = new_id;
  EventId reuse = sim.at(Time::ns(9), [&] { log.push_back(3); });
  CHECK(reuse.slot == ran.slot);
  CHECK_FALSE(sim.cancel(ran));
  sim.run();
  CHECK(log == std::vector<int>{2, 3});
}

TEST_CASE("simulation: a cancelled event does not stop the events behind it", "[engine]") {
  Simulation sim;
  std::vector<int> log;
  // The cancelled event sits at the heap top when the next event is due.
  EventId first = sim.at(Time::ns(1), [&] { log.push_back(1); });
  sim.at(Time::ns(1), [&] { log.push_back(2); });
  sim.cancel(first);
  sim.run();
  CHECK(log == std::vector<int>{2});
  CHECK(sim.now() == Time::ns(1));
}

TEST_CASE("simulation: run_until stops at the limit and resumes", "[engine]") {
  Simulation sim;
  std::vector<int> log;
  sim.at(Time::ns(10), [&] { log.push_back(10); });
  sim.at(Time::ns(20), [&] { log.push_back(20); });
  sim.at(Time::ns(30), [&] { log.push_back(30); });
  sim.run_until(Time::ns(20));  // events at exactly the limit run
  CHECK(log == std::vector<int>{10, 20});
  CHECK(sim.now() == Time::ns(20));
  CHECK(sim.pending() == 1);
  sim.run_until(Time::ns(25));  // nothing due: the clock still advances to the limit
  CHECK(log == std::vector<int>{10, 20});
  CHECK(sim.now() == Time::ns(25));
  sim.run();
  CHECK(log == std::vector<int>{10, 20, 30});
  CHECK(sim.now() == Time::ns(30));
}

TEST_CASE("simulation: scheduling in the past is an InternalError", "[engine]") {
  Simulation sim;
  sim.at(Time::ns(10), [] {});
  sim.run();
  REQUIRE(sim.now() == Time::ns(10));
  CHECK_THROWS_AS(sim.at(Time::ns(9), [] {}), InternalError);
  CHECK_THROWS_AS(sim.after(Time::ps(-1), [] {}), InternalError);
  CHECK_NOTHROW(sim.at(Time::ns(10), [] {}));  // now itself is allowed
  // And from inside an event.
  Simulation sim2;
  bool threw = false;
  sim2.at(Time::ns(5), [&] {
    try {
      sim2.at(Time::ns(4), [] {});
    } catch (const InternalError&) {
      threw = true;
    }
  });
  sim2.run();
  CHECK(threw);
}

TEST_CASE("simulation: events scheduled from events", "[engine]") {
  Simulation sim;
  std::vector<std::string> log;
  sim.at(Time::ns(1), [&] {
    log.push_back("a@1");
    // Same time: runs after everything already queued for t=1, in scheduling order.
    sim.after(Time::zero(), [&] { log.push_back("c@1"); });
    sim.after(Time::ns(2), [&] {
      log.push_back("d@3");
      sim.after(Time::ns(1), [&] { log.push_back("e@4"); });
    });
  });
  sim.at(Time::ns(1), [&] { log.push_back("b@1"); });
  sim.at(Time::ns(3), [&] { log.push_back("x@3"); });  // queued before d, so it runs first
  sim.run();
  CHECK(log == std::vector<std::string>{"a@1", "b@1", "c@1", "x@3", "d@3", "e@4"});
  CHECK(sim.now() == Time::ns(4));
  CHECK(sim.events_processed() == 6);
}

TEST_CASE("simulation: zero-delay events (the FIFO beside the heap) keep (time, scheduling) order", "[engine]") {
  // Events at the current time bypass the heap; they must still run after every event already due
  // at that time, in scheduling order, be cancellable, and respect run_until's limit.
  Simulation sim;
  std::vector<std::string> log;
  EventId doomed;
  sim.at(Time::zero(), [&] { log.push_back("z0"); });  // scheduled at now (t = 0) before running
  sim.at(Time::ns(1), [&] {
    log.push_back("a");
    sim.after(Time::zero(), [&] {
      log.push_back("a0");
      sim.after(Time::zero(), [&] { log.push_back("a00"); });
    });
    doomed = sim.after(Time::zero(), [&] { log.push_back("never"); });
  });
  sim.at(Time::ns(1), [&] {
    log.push_back("b");
    CHECK(sim.cancel(doomed));
    sim.after(Time::zero(), [&] { log.push_back("b0"); });
  });
  sim.at(Time::ns(1), [&] { log.push_back("c"); });
  sim.at(Time::ns(2), [&] { log.push_back("d"); });
  sim.run_until(Time::ns(1));
  CHECK(log == std::vector<std::string>{"z0", "a", "b", "c", "a0", "b0", "a00"});
  CHECK(sim.pending() == 1);
  sim.run();
  CHECK(log.back() == "d");
  CHECK(sim.events_processed() == 8);
}

TEST_CASE("simulation: an event can cancel a later one", "[engine]") {
  Simulation sim;
  std::vector<int> log;
  EventId later = sim.at(Time::ns(5), [&] { log.push_back(5); });
  sim.at(Time::ns(2), [&] { CHECK(sim.cancel(later)); log.push_back(2); });
  sim.run();
  CHECK(log == std::vector<int>{2});
  CHECK(sim.pending() == 0);
}

TEST_CASE("simulation: many random events run in (time, scheduling order), cancelled ones never", "[engine]") {
  // 20,000 events with many equal times, a third cancelled, some scheduling further events: the
  // run order must equal the reference order, a stable sort of the survivors by time.
  Simulation sim;
  std::mt19937_64 rng(7);
  struct Planned {
    int64_t t;
    uint64_t order;  // scheduling order
    int tag;
  };
  std::vector<Planned> expected;
  std::vector<int> ran;
  uint64_t scheduled = 0;
  std::vector<std::pair<EventId, size_t>> ids;  // id, index into expected
  for (int i = 0; i < 20000; ++i) {
    const int64_t t = static_cast<int64_t>(rng() % 500);
    const bool spawns = rng() % 10 == 0;
    const int tag = i;
    EventId id = sim.at(Time::ps(t), [&, tag, spawns] {
      ran.push_back(tag);
      if (spawns) {
        const int64_t dt = static_cast<int64_t>(rng() % 50);
        const int child = 1'000'000 + tag;
        expected.push_back(Planned{sim.now().picoseconds() + dt, scheduled++, child});
        sim.after(Time::ps(dt), [&, child] { ran.push_back(child); });
      }
    });
    ids.emplace_back(id, expected.size());
    expected.push_back(Planned{t, scheduled++, tag});
  }
  std::vector<bool> cancelled(expected.size(), false);
  for (const auto& [id, idx] : ids)
    if (rng() % 3 == 0) {
      REQUIRE(sim.cancel(id));
      cancelled[idx] = true;
    }
  std::vector<Planned> survivors;
  for (size_t i = 0; i < expected.size(); ++i)
    if (!cancelled[i]) survivors.push_back(expected[i]);
  sim.run();
  // Children were appended to `expected` while running; add them to the reference now.
  for (size_t i = cancelled.size(); i < expected.size(); ++i) survivors.push_back(expected[i]);
  std::sort(survivors.begin(), survivors.end(),
            [](const Planned& a, const Planned& b) { return a.t != b.t ? a.t < b.t : a.order < b.order; });
  std::vector<int> want;
  for (const Planned& p : survivors) want.push_back(p.tag);
  CHECK(ran == want);
  CHECK(sim.pending() == 0);
}

TEST_CASE("simulation: events at one time scheduled between others keep scheduling order across buckets", "[engine]") {
  // Consecutive at() calls for one time share a bucket; a call for another time in between starts a
  // new one. Several buckets of one time must still run in scheduling order, not bucket by bucket
  // in creation order with later events appended to the first.
  Simulation sim;
  std::vector<std::string> log;
  auto add = [&](double ns, const std::string& name) { return sim.at(Time::ns(ns), [&log, name] { log.push_back(name); }); };
  add(5, "a1");
  add(5, "a2");
  add(7, "x1");
  add(5, "a3");
  const EventId b = add(7, "x2");
  add(5, "a4");
  add(5, "a5");
  add(9, "z");
  add(7, "x3");
  CHECK(sim.cancel(b));
  sim.at(Time::ns(5), [&] {
    log.push_back("a6");
    sim.after(Time::ns(2), [&] { log.push_back("x4"); });  // joins time 7 behind x3
    sim.after(Time::zero(), [&] { log.push_back("a7"); });
  });
  sim.run_until(Time::ns(6));
  CHECK(log == std::vector<std::string>{"a1", "a2", "a3", "a4", "a5", "a6", "a7"});
  add(8, "y");  // after run_until moved the clock to 6: between the pending times
  sim.run();
  CHECK(log == std::vector<std::string>{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "x1", "x3", "x4", "y", "z"});
  CHECK(sim.pending() == 0);
}

#pragma once
// A CommService for closed-form tests: every transfer takes cost(request), with no contention.
// (The product times collectives with the collective runner over the flow network.)
#include <functional>

#include "sim/plan/executor.hpp"

namespace plansim::testing {

class FixedComm final : public CommService {
 public:
  FixedComm(Simulation& sim, std::function<Time(const CommRequest&)> cost) : sim_(sim), cost_(std::move(cost)) {}
  void start(const CommRequest& r, std::function<void()> on_done) override {
    ++calls;
    sim_.after(cost_(r), std::move(on_done));
  }
  int calls = 0;

 private:
  Simulation& sim_;
  std::function<Time(const CommRequest&)> cost_;
};

}  // namespace plansim::testing

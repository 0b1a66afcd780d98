// NCCL runs NVLS only on 3 GPUs or more per node (src/transport/nvls.cc ncclNvlsInit, 2.18-2.27:
// gpuCount <= 2 -> nvlsSupport = 0): `auto` must not pick it on 2 GPUs even where the model would find it
// faster, and naming it there is a one-line ConfigError that says what it needs.
#include <catch2/catch.hpp>

#include "sim/coll/selection.hpp"
#include "sim/core/error.hpp"
#include "coll_fixtures.hpp"

using namespace plansim;

namespace {
// A model under which NVLS beats the ring at any group size: NVLink rings at 30 % of line rate.
NcclModelParams nvls_favoured() {
  NcclModelParams m;
  m.nvlink_efficiency = 0.3;
  m.nvls_efficiency = 1.0;
  return m;
}
CollectiveChoice choose(int n, const std::string& algo) {
  static const AlgorithmRegistry reg = make_default_registry();  // outlives the choice's algorithm pointer
  const Topology topo = test::cluster_topology(1, 8, true);
  return choose_collective(reg, nvls_favoured(), topo, {CollOp::all_reduce, test::first_gpus(n), GiB(1), 0, algo});
}
}  // namespace

TEST_CASE("nvls support: auto skips NVLS on 2 GPUs (NCCL's gpuCount <= 2), takes it from 3", "[coll]") {
  CHECK(choose(3, "auto").algorithm->name() == "nvls");
  CHECK(choose(8, "auto").algorithm->name() == "nvls");
  CHECK(choose(2, "auto").algorithm->name() != "nvls");
}

TEST_CASE("nvls support: naming nvls for 2 GPUs is a ConfigError saying what it needs", "[coll]") {
  CHECK(choose(3, "nvls").algorithm->name() == "nvls");
  try {
    (void)choose(2, "nvls");
    FAIL("nvls on 2 GPUs was accepted");
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("'nvls' cannot run all_reduce on this group of 2 GPUs"));
    CHECK_THAT(what, Catch::Contains("at least 3 GPUs"));
    CHECK(what.find('\n') == std::string::npos);
  }
}

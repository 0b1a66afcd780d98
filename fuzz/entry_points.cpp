#include "fuzz/entry_points.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>

#include "sim/calib/calibrate.hpp"
#include "sim/calib/validate.hpp"
#include "sim/core/error.hpp"
#include "sim/io/bench_reader.hpp"
#include "sim/io/checked_number.hpp"
#include "sim/io/nccl_calibration.hpp"
#include "sim/io/nccl_compare.hpp"
#include "sim/io/nccl_tests_reader.hpp"
#include "sim/io/report_timings_reader.hpp"
#include "sim/io/scenario_loader.hpp"
#include "sim/io/topology_loader.hpp"
#include "sim/io/unit_parse.hpp"
#include "sim/model/memory.hpp"
#include "sim/model/transformer.hpp"
#include "sim/plan/layer_partition.hpp"
#include "sim/report/html_page.hpp"
#include "sim/report/report_document.hpp"
#include "sim/sched/holding.hpp"
#include "sim/sched/registry.hpp"

namespace plansim::fuzz {
namespace {

// Runs `f`; a ConfigError or UnitError is the expected rejection of a bad input, so it is swallowed.
template <class F>
void expect_config_errors_only(F&& f) {
  try {
    f();
  } catch (const ConfigError&) {
  } catch (const io::UnitError&) {
  }
}

// The scenario harness stands a small cluster in for the `topology` key: 8 GPUs per server, up to 16
// servers (more is refused as a ConfigError, to keep every run fast).
constexpr const char* kFuzzTopology = R"(name: fuzz
node:
  gpu: H100-SXM-80GB
  gpus: 8
  nvswitch: {bandwidth: 450 GB/s, latency: 0.25 us}
  pcie: {generation: 5, gpus_per_switch: 2, latency: 0.5 us}
  nics: {count: 8, kind: infiniband, bandwidth: 400 Gb/s, latency: 0.5 us}
fabric:
  kind: fat_tree
  latency: 0.3 us
  leaf: {down_ports: 32, up_links: 32}
  spine: {count: 16}
)";

// Stage 0's memory as `plansim search` estimates it (advise/search.cpp), from the model and the schedule.
void stage0_memory(const Scenario& s) {
  const auto sched = make_schedule(s.schedule.kind);
  const StageOrders orders = sched->build({s.parallel.pp, s.micro_batches(), s.schedule.virtual_stages});
  const PipelineLayout lay = sched->layout({s.parallel.pp, s.micro_batches(), s.schedule.virtual_stages});
  const auto chunk_layers = layers_per_chunk(lay, LayerPartition(s.model.layers, lay.pieces(), s.parallel.stage_layers));
  const StageHolding held = stage_holdings(orders, sched->splits_backward(), &chunk_layers)[0];
  (void)stage_memory(s, stage_memory_input(s, 0, held)).total();
}

Topology fuzz_topology(std::optional<int> nodes) {
  if (nodes && *nodes > 16) throw ConfigError(SourcePos{"fuzz", 0, 0}, "the fuzz cluster has at most 16 servers");
  return parse_topology(kFuzzTopology, "fuzz-cluster.yaml", nodes);
}

}  // namespace

void topology(std::string_view data) {
  expect_config_errors_only([&] {
    const Topology t = parse_topology(std::string(data), "fuzz-topology.yaml");
    if (t.num_gpus() >= 2) (void)t.route(GpuId::from(0), GpuId::from(static_cast<uint32_t>(t.num_gpus() - 1)));
  });
}

void scenario(std::string_view data) {
  const size_t nul = data.find('\0');
  const std::string text(data.substr(0, nul));
  std::vector<std::string> sets;
  if (nul != std::string_view::npos) {
    std::string_view rest = data.substr(nul + 1);
    while (!rest.empty() && sets.size() < 16) {
      const size_t next = rest.find('\0');
      sets.emplace_back(rest.substr(0, next));
      rest = next == std::string_view::npos ? std::string_view() : rest.substr(next + 1);
    }
  }
  expect_config_errors_only([&] {
    const LoadedScenario s = parse_scenario(text, "fuzz-scenario.yaml", sets, fuzz_topology);
    // What every command does next with the numbers, where it is cheap: the model's FLOPs, and the
    // memory model of stage 0 when the schedule is small.
    (void)model_flops_per_iteration(s.scenario.model, s.scenario.training.global_batch);
    if (int64_t{s.scenario.parallel.pp} * s.scenario.micro_batches() * s.scenario.schedule.virtual_stages <= 4096)
      stage0_memory(s.scenario);
  });
}

void units(std::string_view data) {
  if (data.empty()) return;
  const auto which = static_cast<unsigned char>(data[0]) % 8;
  const std::string_view text = data.substr(1);
  expect_config_errors_only([&] {
    switch (which) {
      case 0: {
        const Bytes b = io::parse_bytes(text);
        if (io::parse_bytes(io::format_bytes(b)).value() != b.value())
          throw std::logic_error("format_bytes does not round-trip " + std::string(text));
        break;
      }
      case 1: {
        const Rate r = io::parse_rate(text);
        if (io::parse_rate(io::format_rate(r)).value() != r.value())
          throw std::logic_error("format_rate does not round-trip " + std::string(text));
        break;
      }
      case 2: {
        const Time t = io::parse_time(text);
        if (io::parse_time(io::format_time(t)) != t)
          throw std::logic_error("format_time does not round-trip " + std::string(text));
        break;
      }
      case 3: (void)io::parse_flop_rate(text); break;
      case 4: (void)io::parse_flops(text); break;
      case 5: (void)io::parse_nccl_size(text); break;
      case 6: (void)io::integer_in(text, {1, 131072}); break;
      default: (void)io::real_in(text, {0, 1, true}); break;
    }
  });
}

void calibration(std::string_view data) {
  expect_config_errors_only([&] { (void)io::parse_nccl_calibration(std::string(data), "fuzz-calibration.yaml"); });
}

void bench(std::string_view data) {
  expect_config_errors_only([&] {
    calib::Measurements m;
    io::read_bench_text(std::string(data), "fuzz-bench.json", m);
    (void)calib::profile_yaml(calib::calibrate(m));
  });
}

void nccl_compare(std::string_view data) {
  expect_config_errors_only([&] { (void)io::parse_nccl_compare(std::string(data), "fuzz-compare.yaml"); });
}

void report_timings(std::string_view data) {
  expect_config_errors_only([&] {
    const calib::ReportTimings r = io::read_report_timings_text(std::string(data), "fuzz-report.json");
    (void)calib::format_validation(calib::validate(r, r, 0.1));
  });
}

void report(std::string_view data) {
  expect_config_errors_only([&] {
    (void)html::report_page({ReportDocument::parse(std::string(data), "fuzz-report-page.json")}, "");
  });
}

void nccl_tests(std::string_view data) {
  expect_config_errors_only([&] {
    calib::Measurements m;
    io::append_measurements(io::parse_nccl_tests(std::string(data), "fuzz-nccl-tests.log"), m);
    (void)calib::profile_yaml(calib::calibrate(m));
  });
}

const std::vector<Harness>& harnesses() {
  static const std::vector<Harness> all = {
      {"topology", topology},       {"scenario", scenario}, {"units", units},
      {"calibration", calibration}, {"bench", bench},       {"nccl_compare", nccl_compare},
      {"report_timings", report_timings}, {"nccl_tests", nccl_tests},   {"report", report},
  };
  return all;
}

}  // namespace plansim::fuzz

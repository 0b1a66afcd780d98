// plansim._plansim: the CLI's subcommands for Python (README "Python"). Each function calls the library
// function its subcommand calls (sim/api/commands.hpp) with the GIL released, and returns the
// subcommand's --json document as a string; plansim/__init__.py parses it and shapes the arguments.
// ConfigError becomes plansim.ConfigError (a ValueError) with .file, .line, .column and .message.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstddef>
#include <filesystem>
#include <ios>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/api/commands.hpp"
#include "sim/core/error.hpp"
#include "sim/report/report.hpp"

namespace py = pybind11;
using namespace plansim;

namespace {

using Strings = std::vector<std::string>;

// Report::ops as numpy columns over the records' own memory (no copy): the capsule owns the records.
py::dict op_columns(std::vector<OpRecord> ops) {
  auto* held = new std::vector<OpRecord>(std::move(ops));
  py::capsule owner(held, [](void* p) { delete static_cast<std::vector<OpRecord>*>(p); });
  const auto n = static_cast<py::ssize_t>(held->size());
  const auto stride = static_cast<py::ssize_t>(sizeof(OpRecord));
  OpRecord* first = held->empty() ? nullptr : held->data();
  py::dict cols;
  auto column = [&](const char* name, auto* member_of_first, auto tag) {
    using T = decltype(tag);
    if (first == nullptr) {
      cols[name] = py::array_t<T>(0);
      return;
    }
    cols[name] = py::array_t<T>({n}, {stride}, member_of_first, owner);
  };
  column("label", first ? &first->label : nullptr, uint32_t{});
  column("rank", first ? &first->rank : nullptr, uint32_t{});
  column("start_s", first ? &first->start_s : nullptr, double{});
  column("duration_s", first ? &first->duration_s : nullptr, double{});
  return cols;
}

// run(): the report's JSON without `ops`, and (ops) the per-op columns and their labels.
py::tuple run(const std::string& scenario, const Strings& sets, bool symmetry, bool ops) {
  std::string json;
  std::vector<OpRecord> records;
  std::vector<OpLabel> labels;
  {
    py::gil_scoped_release nogil;
    PlanRun r = api::run({scenario, sets, symmetry, ops});
    records = std::move(r.report.ops);
    labels = std::move(r.report.op_labels);
    r.report.ops.clear();
    r.report.op_labels.clear();
    json = report_json(r.report);
  }
  if (!ops) return py::make_tuple(json, py::none(), py::none());
  py::list label_list;
  for (const auto& l : labels) {
    py::dict d;
    d["name"] = l.name;
    d["class"] = l.cls;
    label_list.append(d);
  }
  return py::make_tuple(json, op_columns(std::move(records)), label_list);
}

// Calls fn() without the GIL and returns its string.
template <class Fn>
std::string released(Fn&& fn) {
  py::gil_scoped_release nogil;
  return fn();
}

}  // namespace

PYBIND11_MODULE(_plansim, m) {
  m.doc() = "plansim's library (see the plansim package)";
  // The library logs through spdlog's default logger: to stderr, warnings and worse, as the CLI does.
  if (!spdlog::get("plansim")) spdlog::set_default_logger(spdlog::stderr_color_mt("plansim"));
  spdlog::set_level(spdlog::level::warn);

  static py::exception<ConfigError> config_error(m, "ConfigError", PyExc_ValueError);
  config_error.doc() = "bad input: .file, .line, .column (0 when unknown) and .message; str() is file:line:col: message";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ConfigError& e) {
      py::object err = py::handle(config_error.ptr())(e.what());
      err.attr("file") = e.pos().file;
      err.attr("line") = e.pos().line;
      err.attr("column") = e.pos().column;
      err.attr("message") = e.message();
      PyErr_SetObject(config_error.ptr(), err.ptr());
    } catch (const std::filesystem::filesystem_error& e) {
      PyErr_SetString(PyExc_OSError, e.what());
    } catch (const std::ios_base::failure& e) {
      PyErr_SetString(PyExc_OSError, e.what());
    }
  });

  m.def("run", &run, py::arg("scenario"), py::arg("sets"), py::arg("symmetry"), py::arg("ops"));
  m.def("sweep", [](const std::string& scenario, const Strings& vary, const Strings& sets, int jobs) {
    return released([&] { return advise::sweep_json(api::sweep(scenario, vary, sets, jobs)); });
  });
  m.def("search", [](const std::string& scenario, const Strings& sets, int gpus, int top, int jobs, size_t max_plans,
                     const Strings& only) {
    api::SearchRequest r;  // pruned by the lower bound, as the CLI's default (same top plans)
    r.scenario = scenario;
    r.sets = sets;
    r.gpus = gpus;
    r.top = top;
    r.jobs = jobs;
    r.max_plans = max_plans;
    r.only = only;
    return released([&] { return advise::search_json(api::search(r), top); });
  });
  m.def("lint", [](const std::string& scenario, const Strings& sets, const Strings& thresholds, int jobs) {
    return released([&] { return advise::lint_json(api::lint(scenario, sets, thresholds, jobs)); });
  });
  m.def("topo", [](const std::string& file, std::optional<int> nodes) {
    return released([&] { return api::topo(file, nodes).json; });
  });
  m.def("topo_dot", [](const std::string& file, std::optional<int> nodes) {
    return released([&] { return api::topo_dot(file, nodes); });
  });
  m.def("collective", [](const std::string& topology, std::optional<int> nodes, const std::string& op, int gpus,
                         const std::string& algo, const std::string& proto, const std::string& min_bytes,
                         const std::string& max_bytes, double factor, const std::string& dtype,
                         const std::string& calibration, const std::string& compare) {
    return released([&] {
      return api::collective(
                 {topology, nodes, op, gpus, algo, proto, min_bytes, max_bytes, factor, dtype, calibration, compare})
          .json;
    });
  });
  m.def("validate_report", [](const std::string& sim, const std::string& measured, double tolerance) {
    return released([&] { return api::validate_report(sim, measured, tolerance).json; });
  });
  m.def("validate_runs", [](const Strings& runs, const Strings& sets, const Strings& datasets, const std::string& expect,
                            unsigned threads) {
    api::CommandResult r;
    {
      py::gil_scoped_release nogil;
      r = api::validate_runs({runs, sets, datasets, expect, threads});
    }
    return py::make_tuple(r.json, r.messages);
  });
  m.def("report", [](const Strings& files, const std::string& title) {
    api::CommandResult r;
    {
      py::gil_scoped_release nogil;
      r = api::report(files, title);
    }
    return py::make_tuple(r.text, r.messages);
  });
  m.def("calibrate_bench", [](const Strings& inputs, const Strings& applies_to) {
    return released([&] { return api::calibrate_bench(inputs, applies_to).text; });
  });
  m.def("calibrate_runs", [](const Strings& runs, const Strings& fit, const Strings& keep, const Strings& applies_to,
                             const Strings& datasets, const std::string& name, const std::string& stack, bool loo,
                             bool loo_exact, unsigned threads) {
    return released([&] {
      return api::calibrate_runs({runs, fit, keep, applies_to, datasets, name, stack, loo, loo_exact, threads}).json;
    });
  });
}

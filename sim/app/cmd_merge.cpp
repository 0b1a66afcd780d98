// `plansim merge FILE... [--json FILE] [--csv FILE]`: the results files of a sharded search or sweep
// (--shard K/N --out FILE, one per shard) printed as the one-process run prints them.
#include <memory>

#include "sim/advise/results_file.hpp"
#include "sim/advise/search.hpp"
#include "sim/advise/sweep.hpp"
#include "sim/app/command.hpp"
#include "sim/core/error.hpp"

namespace plansim::app {
namespace {

struct MergeOptions {
  std::vector<std::string> files;
  std::string json;
  std::string csv;
};

}  // namespace

Command add_merge_command(CLI::App& app) {
  auto opt = std::make_shared<MergeOptions>();
  CLI::App* sub = app.add_subcommand("merge", "combine the shards' results files of a search or sweep into one table");
  sub->add_option("files", opt->files, "results files (--out) of every shard K/N of one run")->required();
  sub->add_option("--json", opt->json, "write the merged results as JSON to FILE ('-' = stdout, replacing the text)");
  sub->add_option("--csv", opt->csv, "sweep only: write the merged results as CSV to FILE ('-' = stdout)");
  return {sub, [opt] {
            check_output_path("--json", opt->json);
            check_output_path("--csv", opt->csv);
            std::vector<advise::ShardFile> shards;
            for (const auto& f : opt->files) shards.push_back(advise::read_shard_file(f));
            advise::check_shards(shards);
            if (shards.front().header.at("command") == "search") {
              if (!opt->csv.empty()) throw ConfigError(SourcePos{"plansim: --csv", 0, 0}, "a search has no CSV output");
              int top = 10;
              const advise::SearchResult r = advise::merge_search(shards, top);
              if (opt->json != "-") write_output("-", advise::search_text(r, top));
              if (!opt->json.empty()) write_output(opt->json, advise::search_json(r, top));
              return kExitOk;
            }
            advise::SweepResult r = advise::merge_sweep(shards);
            advise::rethrow_if_all_invalid_alike(r.points);
            if (opt->csv != "-" && opt->json != "-") write_output("-", advise::sweep_table(r));
            if (!opt->csv.empty()) write_output(opt->csv, advise::sweep_csv(r));
            if (!opt->json.empty()) write_output(opt->json, advise::sweep_json(r));
            return kExitOk;
          }};
}

}  // namespace plansim::app

# plansim calibrate: fits from bench JSON, bad input -> file:line:col and exit 2.
d="$src/tests/data/calibrate"
expect_exit 0 "$plansim" calibrate "$d/synthetic_all_reduce.json" "$d/synthetic_gemm.json"
# Exact synthetic data: α = 20 us, bus bandwidth 100 GB/s; GEMM e_max 0.75, F_half 50 GFLOP.
expect_stdout 'latency: "20 us"' "$plansim" calibrate "$d/synthetic_all_reduce.json"
expect_stdout 'bus_bandwidth: "100 GB/s"' "$plansim" calibrate "$d/synthetic_all_reduce.json"
expect_stdout 'max_efficiency: 0\.7500' "$plansim" calibrate "$d/synthetic_gemm.json"
expect_stdout 'half_saturation: "50 GFLOP"' "$plansim" calibrate "$d/synthetic_gemm.json"
expect_exit 0 "$plansim" calibrate "$d/synthetic_gemm.json" -o "$tmp/profile.yaml"
expect_exit 2 "$plansim" calibrate "$d/bad_row.json"
expect_stderr 'bad_row\.json:4:[0-9]+: .*nranks' "$plansim" calibrate "$d/bad_row.json"
expect_stderr 'bad_syntax\.json:2:15: ' "$plansim" calibrate "$d/bad_syntax.json"
expect_exit 2 "$plansim" calibrate "$d/no_such_file.json"
expect_exit 2 "$plansim" calibrate

# --topology: the NCCL model's parameters fitted to the 2x8 H200 table (profile on stdout, residuals on stderr);
# a topology that is not there, or a row the model cannot run on it, is one line and exit 2.
dc="$src/validate/nccl/bench/datacrunch_2node_16xh200_allreduce.json"
expect_stdout '^    network: 0\.[0-9]+$' "$plansim" calibrate "$dc" --topology "$src/topologies/hgx-h200.yaml" --nodes 2
expect_stderr 'leave-one-out by sample' "$plansim" calibrate "$dc" --topology "$src/topologies/hgx-h200.yaml" --nodes 2
expect_exit 2 "$plansim" calibrate "$dc" --topology "$tmp/no_such_topology.yaml"
expect_stderr '16 ranks on topology' "$plansim" calibrate "$dc" --topology "$src/topologies/hgx-h200.yaml" --nodes 1
# --calibration START: the start profile's constants (Ampere channel caps) are kept in the written profile;
# several tables: leave-one-out by table, summarised per table.
b="$src/validate/nccl/bench"
expect_stdout '^    LL128: 20 GB/s$' "$plansim" calibrate "$b/rtx4090_docker_2gpu.json" --topology "$src/topologies/pcie-8gpu.yaml" \
  --calibration "$src/validate/calibration/start/ampere.yaml"
expect_stderr 'leave-one-out by table' "$plansim" calibrate "$b/rtx4090_docker_2gpu.json" "$b/rtx4090_docker_4gpu.json" \
  --topology "$src/topologies/pcie-8gpu.yaml" --calibration "$src/validate/calibration/start/ampere.yaml"
expect_exit 2 "$plansim" calibrate "$dc" --topology "$src/topologies/hgx-h200.yaml" --calibration "$tmp/no_such_profile.yaml"
# A system's 1-node and 4-node tables together: two stages (the server's NVLS, then the network on the
# spanning rows), both efficiencies written.
p6="$src/topologies/aws-p6-b200.yaml"
expect_stderr 'then, on the rows spanning servers' "$plansim" calibrate "$b/b200_p6_allreduce_8GiB_by_gpu_count_nvls_off.json" \
  "$b/b200_p6_4node_allreduce_bench.json" --topology "$p6" --calibration "$src/validate/calibration/start/blackwell.yaml"
expect_stdout '^    network: 0\.[0-9]+$' "$plansim" calibrate "$b/b200_p6_allreduce_8GiB_by_gpu_count_nvls_off.json" \
  "$b/b200_p6_4node_allreduce_bench.json" --topology "$p6" --calibration "$src/validate/calibration/start/blackwell.yaml"

# --runs round trip: "measure" three small plans with plansim itself at a known attention_efficiency (0.4),
# fit that key from the built-in default, and check that the fit finds 0.4 and that the profile it wrote
# (base: none: it replaces the shipped H100 profile, as the fit ran without it) reproduces every
# measurement (fit -> profile -> run).
rt="$tmp/roundtrip"; mkdir -p "$rt"
measure() {  # scenario, seq_len -> iteration time (s) with attention_efficiency 0.4 on the built-in compute
  # model and the topology's collectives profile: the conditions `calibrate --runs` fits under
  "$plansim" run "$src/scenarios/$1" --set model.seq_len="$2" --set compute.attention_efficiency=0.4 \
    --calibration defaults --json - 2>/dev/null | sed -n 's/.*"iteration_time_s": \([0-9.e+-]*\).*/\1/p' | head -1
}
{
  echo "plansim_runs: 1"; echo "gpu: H100"; echo "runs:"
  for row in "seed-pipeline-4x16.yaml 2048" "seed-pipeline-4x16.yaml 8192" "seed-small-batch.yaml 4096"; do
    set -- $row
    echo "  - {name: $1-$2, dataset: synthetic, scenario: $src/scenarios/$1, set: {model.seq_len: $2},"
    echo "     measured: {iteration_time_s: $(measure "$1" "$2")}, source: plansim itself}"
  done
} > "$rt/runs.yaml"
expect_exit 0 "$plansim" calibrate --runs "$rt/runs.yaml" --fit attention_efficiency --applies-to H100-SXM \
  --name roundtrip -o "$rt/profile.yaml"
expect_stdout 'fitted attention_efficiency = 0\.4 ' "$plansim" calibrate --runs "$rt/runs.yaml" --fit attention_efficiency \
  -o "$rt/profile2.yaml"
expect_stdout 'synthetic .* 3 runs  MAPE   0\.0 %' "$plansim" validate --runs "$rt/runs.yaml" --calibration "$rt/profile.yaml"
expect_stdout "calibration: (topology [^ ]* \\+ )?command line $rt/profile.yaml" "$plansim" validate --runs "$rt/runs.yaml" \
  --calibration "$rt/profile.yaml"
expect_stdout "calibration +command line profile 'roundtrip'" "$plansim" run "$src/scenarios/seed-small-batch.yaml" \
  --calibration "$rt/profile.yaml"
# Several runs files are fitted as one set (calibrate --runs A --runs B): the same three runs split over two
# files give the same fit; a run name in both files is an error; validate's --dataset filters across files.
{ head -5 "$rt/runs.yaml"; } > "$rt/runs_a.yaml"
{ head -3 "$rt/runs.yaml"; sed -n '6,$p' "$rt/runs.yaml" | sed 's/dataset: synthetic/dataset: other/'; } > "$rt/runs_b.yaml"
expect_stdout 'fitted attention_efficiency = 0\.4 ' "$plansim" calibrate --runs "$rt/runs_a.yaml" --runs "$rt/runs_b.yaml" \
  --fit attention_efficiency -o "$rt/profile3.yaml"
expect_stdout "plansim calibrate --runs $rt/runs_a.yaml $rt/runs_b.yaml: 3 runs on H100" "$plansim" calibrate \
  --runs "$rt/runs_a.yaml" --runs "$rt/runs_b.yaml" --fit attention_efficiency --no-loo -o "$rt/profile3.yaml"
expect_exit 2 "$plansim" calibrate --runs "$rt/runs_a.yaml" --runs "$rt/runs_a.yaml" --fit attention_efficiency
expect_stderr "is also in an earlier runs file" "$plansim" calibrate --runs "$rt/runs_a.yaml" --runs "$rt/runs_a.yaml" \
  --fit attention_efficiency
expect_stdout 'other +2 runs  MAPE' "$plansim" validate --runs "$rt/runs_a.yaml" --runs "$rt/runs_b.yaml" --dataset other \
  --calibration "$rt/profile.yaml"
expect_stderr 'none of .*runs_a\.yaml, .*runs_b\.yaml has a data set .nope.' "$plansim" validate --runs "$rt/runs_a.yaml" \
  --runs "$rt/runs_b.yaml" --dataset nope
# A key without default bounds, or a run the scenario schema rejects, is a one-line error.
expect_stderr 'has no default bounds' "$plansim" calibrate --runs "$rt/runs.yaml" --fit comm_slowdown
expect_stderr "bad_scenario\.yaml:5:5: run 'x': --set parallel.tq=2: unknown key" "$plansim" validate --runs "$src/tests/data/runs/bad_scenario.yaml"
expect_exit 2 "$plansim" validate --runs "$src/tests/data/runs/bad_scenario.yaml"
# Runs files, --fit, --dataset and --calibration: every bad value is one line and exit 2.
expect_stderr 'two_metrics\.yaml:7:[0-9]+: .measured. must give exactly one of' "$plansim" validate --runs "$src/tests/data/runs/two_metrics.yaml"
expect_exit 2 "$plansim" validate --runs "$src/tests/data/runs/nan_measured.yaml"
expect_stderr 'nan_measured\.yaml:7:' "$plansim" validate --runs "$src/tests/data/runs/nan_measured.yaml"
expect_exit 2 "$plansim" validate --runs "$src/tests/data/runs/empty_group.yaml"
expect_stderr "empty_group\.yaml:6:[0-9]+: 'group' must name the sweep" "$plansim" validate --runs "$src/tests/data/runs/empty_group.yaml"
# Runs of one sweep (`group`): the validation counts the plan pairs plansim orders as published.
expect_stdout 'H100 sweep +plan order: [01] of 1 pairs as published \([0-9]+ %\) in 1 sweeps' "$plansim" validate --runs "$src/tests/data/runs/grouped.yaml"
expect_stderr 'has no data set .nope.' "$plansim" validate --runs "$rt/runs.yaml" --dataset nope
expect_stderr 'bounds must read LO:HI' "$plansim" calibrate --runs "$rt/runs.yaml" --fit attention_efficiency=2:1
expect_stderr "unknown key" "$plansim" calibrate --runs "$rt/runs.yaml" --fit no_such_key=0.1:1
expect_stderr 'calibration profile .* does not exist' "$plansim" run "$src/scenarios/seed-small-batch.yaml" --calibration /no/such.yaml
expect_exit 2 "$plansim" run "$src/scenarios/seed-small-batch.yaml" --calibration /no/such.yaml

# nccl-tests logs (stdout and -J JSON) are measurements too: the profile on stdout, the fit's residual and
# leave-one-out error per size beside it (stderr when the profile goes to stdout).
n="$src/tests/data/nccl_tests"
expect_stdout '^    - op: all_reduce' "$plansim" calibrate "$n/single_node_allreduce.log"
expect_stdout '^    - op: reduce_scatter' "$plansim" calibrate "$n/reduce_scatter.json" "$n/single_node_allreduce.log"
expect_stdout '^plansim_profile: 2' "$plansim" calibrate "$n/srun_2node_allreduce.log"
expect_stderr 'mean \|residual\| .* mean \|leave-one-out\|' "$plansim" calibrate "$n/single_node_allreduce.log"
expect_stdout 'leave-one-out' "$plansim" calibrate "$n/old_v2_allreduce.log" -o "$tmp/nccl_profile.yaml"
expect_exit 2 "$plansim" calibrate "$n/wrong_allreduce.log"
expect_stderr 'wrong_allreduce\.log:20:6: this row failed nccl-tests. correctness check \(#wrong = 1024\)' \
  "$plansim" calibrate "$n/wrong_allreduce.log"
expect_stderr 'garbage_allreduce\.log:23:63: algbw must be a number' "$plansim" calibrate "$n/garbage_allreduce.log"
expect_stderr 'failed_allreduce\.log:3: this run has no result rows' "$plansim" calibrate "$n/failed_allreduce.log"

# The GEMM shape model (calib/gemm_shape_fit.hpp): the measured H200 benches fit it (the GPU from the device
# name; the tables go where the profile does not), --gpu names the GPU, an unknown one is refused with the catalog's names, and a partial shape is an
# error at its row.
h200="$src/validate/measured/h200/data"
expect_stdout '^  gemm_tile_latency: "' "$plansim" calibrate "$h200/gemm_bf16.json" "$h200/gemm_bf16_default.json"
expect_stdout 'GEMM shape model, bf16 on H100-SXM-80GB' "$plansim" calibrate "$h200/gemm_bf16.json" --gpu H100-SXM-80GB -o "$tmp/p.yaml"
expect_bad "$plansim" calibrate "$h200/gemm_bf16.json" --gpu H300
expect_stderr "unknown GPU model 'H300' \(the catalog: A100-SXM-40GB, " "$plansim" calibrate "$h200/gemm_bf16.json" --gpu H300
expect_stderr 'gemm_shape_partial\.json:1:[0-9]+: a gemm row gives its shape as m, n and k together' "$plansim" calibrate "$src/tests/data/bad/bench/gemm_shape_partial.json"

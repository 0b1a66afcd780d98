# plansim validate --measured accepts a PyTorch profiler (Kineto) Chrome trace: per class and NCCL op on the
# trace's rank, end to end from the ProfilerStep ranges.
k="$src/tests/data/kineto"
expect_exit 0 "$plansim" validate --sim "$k/sim_rank0.json" --measured "$k/rank0.trace.json"
expect_stdout '^measured: Kineto trace of rank 0, 2 ProfilerStep' "$plansim" validate --sim "$k/sim_rank0.json" --measured "$k/rank0.trace.json"
expect_stdout '^gemm +1 +7\.50' "$plansim" validate --sim "$k/sim_rank0.json" --measured "$k/rank0.trace.json"
expect_stdout '^end-to-end +1 +\+5\.00' "$plansim" validate --sim "$k/sim_rank0.json" --measured "$k/rank0.trace.json"
expect_exit 1 "$plansim" validate --sim "$k/sim_rank0.json" --measured "$k/rank0.trace.json" --tolerance 0.04
expect_exit 2 "$plansim" validate --sim "$k/sim_rank0.json" --measured "$k/bad_event.trace.json"
expect_stderr 'bad_event\.trace\.json:12:[0-9]+: ' "$plansim" validate --sim "$k/sim_rank0.json" --measured "$k/bad_event.trace.json"

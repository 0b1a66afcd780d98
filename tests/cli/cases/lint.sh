# plansim lint: exit 1 with findings (rule id, --set fix, measured cost), 0 on the good plan, 2 on bad input.
d="$src/scenarios/antipatterns"
expect_exit 1 "$plansim" lint "$d/pipeline-bubble.yaml" -j 2
expect_stdout '^\[pipeline-bubble\] 16 stages × 4 micro-batches' "$plansim" lint "$d/pipeline-bubble.yaml" -j 2
expect_stdout '^  fix: +--set training.global_batch=' "$plansim" lint "$d/pipeline-bubble.yaml" -j 2
expect_stdout '^  cost: +[0-9.]+ s of the [0-9.]+ s iteration \([0-9.]+ %\); \+[0-9]+ tokens/s' "$plansim" lint "$d/pipeline-bubble.yaml" -j 2
expect_stdout '"rules": \[' "$plansim" lint "$d/pipeline-bubble.yaml" -j 2 --json -
expect_exit 0 "$plansim" lint "$d/good.yaml" -j 2
expect_stdout '^no findings$' "$plansim" lint "$d/good.yaml" -j 2
# A threshold silences its rule.
expect_exit 0 "$plansim" lint "$d/grad-accumulation.yaml" -j 2 --threshold min_gain=0.5
expect_exit 2 "$plansim" lint "$d/good.yaml" --threshold bogus=1
expect_stderr "unknown threshold" "$plansim" lint "$d/good.yaml" --threshold bogus=1
expect_exit 2 "$plansim" lint "$d/good.yaml" --set parallel.tpp=2
expect_exit 2 "$plansim" lint "$d/no-such-file.yaml"
# On half a server: a 4-GPU plan lints like any other (no error about the idle GPUs).
expect_exit 0 "$plansim" lint "$d/good.yaml" --set parallel.dp=4 --set training.global_batch=32 -j 2

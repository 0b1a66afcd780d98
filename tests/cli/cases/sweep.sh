# plansim sweep: one row per point of the product, invalid points in the table, CSV/JSON outputs.
g="$src/scenarios/antipatterns/good.yaml"
expect_exit 0 "$plansim" sweep "$g" --vary parallel.dp=8,16 --vary training.micro_batch=4,8 -j 2
expect_stdout '^ +16 +4  invalid \[1\]$' "$plansim" sweep "$g" --vary parallel.dp=8,16 --vary training.micro_batch=4,8 -j 2
expect_stdout '^\[1\] .*16 GPUs, but the topology has 8 GPUs' "$plansim" sweep "$g" --vary parallel.dp=8,16 --vary training.micro_batch=4,8 -j 2
expect_stdout '^ +8 +8 +[0-9.]+ +[0-9]+ ' "$plansim" sweep "$g" --vary parallel.dp=8,16 --vary training.micro_batch=4,8 -j 2
# Fewer GPUs than the topology: a valid point on the first 4 (README "Any subset of a cluster").
expect_stdout '^ +4 +8 +[0-9.]+ +[0-9]+ ' "$plansim" sweep "$g" --vary parallel.dp=4 --vary training.micro_batch=8 -j 2
rows=$("$plansim" sweep "$g" --vary parallel.dp=8,16 --vary training.micro_batch=2,4,8 -j 2 --csv - 2>/dev/null | tail -n +2 | wc -l)
if [ "$rows" -eq 6 ]; then passes=$((passes + 1)); else echo "FAIL: sweep CSV: expected 6 rows, got $rows"; fails=$((fails + 1)); fi
expect_stdout '"valid": false' "$plansim" sweep "$g" --vary parallel.dp=16 --json -
expect_stderr 'points simulated' "$plansim" sweep "$g" --vary training.micro_batch=4,8 -j 2
expect_exit 2 "$plansim" sweep "$g" --vary parallel.tp
expect_exit 2 "$plansim" sweep "$g" --vary parallel.nope=1,2

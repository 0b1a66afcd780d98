# plansim run --bound; search/sweep --shard K/N --out FILE (resumable) and plansim merge (the same
# table as one process, byte for byte); bad --shard, results files and shard sets: one line, exit 2.
g="$src/scenarios/antipatterns/good.yaml"
expect_stdout 'iteration time lower bound: [0-9.]+ ms' "$plansim" run "$g" --bound
expect_stdout '"iteration_lower_bound_ms": [0-9.]+' "$plansim" run "$g" --bound --json -
expect_bad "$plansim" run "$g" --bound --trace "$tmp/t.json"

sm="$tmp/sm"
rm -rf "$sm"; mkdir -p "$sm"
vary="--vary parallel.dp=4,8 --vary training.micro_batch=1,2,4"
"$plansim" sweep "$g" $vary -j 2 >"$sm/one.txt" 2>/dev/null
for k in 0 1 2; do "$plansim" sweep "$g" $vary -j 1 --shard $k/3 --out "$sm/sw$k.jsonl" >/dev/null 2>&1; done
"$plansim" merge "$sm/sw2.jsonl" "$sm/sw0.jsonl" "$sm/sw1.jsonl" >"$sm/merged.txt" 2>/dev/null
if cmp -s "$sm/one.txt" "$sm/merged.txt"; then passes=$((passes + 1)); else
  echo "FAIL: merged sweep shards differ from the one-process sweep"; diff "$sm/one.txt" "$sm/merged.txt" | head -5; fails=$((fails + 1)); fi
# Resume: an interrupted write (a truncated last line) and a missing done line are redone, nothing else.
head -c -7 "$sm/sw0.jsonl" | head -n 2 >"$sm/cut.jsonl"; printf '{"index": 3, "sets": [' >>"$sm/cut.jsonl"
cp "$sm/cut.jsonl" "$sm/sw0.jsonl"
expect_bad "$plansim" merge "$sm/sw0.jsonl" "$sm/sw1.jsonl" "$sm/sw2.jsonl"
"$plansim" sweep "$g" $vary -j 1 --shard 0/3 --out "$sm/sw0.jsonl" >/dev/null 2>&1
"$plansim" merge "$sm/sw0.jsonl" "$sm/sw1.jsonl" "$sm/sw2.jsonl" >"$sm/merged2.txt" 2>/dev/null
if cmp -s "$sm/one.txt" "$sm/merged2.txt"; then passes=$((passes + 1)); else
  echo "FAIL: resumed sweep shard merged differs"; diff "$sm/one.txt" "$sm/merged2.txt" | head -5; fails=$((fails + 1)); fi
lines=$(wc -l <"$sm/sw0.jsonl")
if [ "$lines" -eq 4 ]; then passes=$((passes + 1)); else echo "FAIL: resumed shard file has $lines lines, wanted 4"; fails=$((fails + 1)); fi

# Search: sharded and merged prints the one-process table byte for byte (exhaustive: counts too).
only="--only training.recompute=none,selective --only parallel.zero=1"
"$plansim" search "$g" $only -j 2 --top 3 --no-prune >"$sm/s1.txt" 2>/dev/null
"$plansim" search "$g" $only -j 1 --top 3 --no-prune --shard 0/2 --out "$sm/s0.jsonl" >/dev/null 2>&1
"$plansim" search "$g" $only -j 1 --top 3 --no-prune --shard 1/2 --out "$sm/s1.jsonl" >/dev/null 2>&1
"$plansim" merge "$sm/s0.jsonl" "$sm/s1.jsonl" >"$sm/smerged.txt" 2>/dev/null
if cmp -s "$sm/s1.txt" "$sm/smerged.txt"; then passes=$((passes + 1)); else
  echo "FAIL: merged search shards differ from the one-process search"; diff "$sm/s1.txt" "$sm/smerged.txt" | head -5; fails=$((fails + 1)); fi
# With pruning the top plans are the same; only the counts line differs (each shard prunes alone).
"$plansim" search "$g" $only -j 2 --top 3 >"$sm/p1.txt" 2>/dev/null
"$plansim" search "$g" $only -j 1 --top 3 --shard 0/2 --out "$sm/p0.jsonl" >/dev/null 2>&1
"$plansim" search "$g" $only -j 1 --top 3 --shard 1/2 --out "$sm/p1.jsonl" >/dev/null 2>&1
"$plansim" merge "$sm/p0.jsonl" "$sm/p1.jsonl" >"$sm/pmerged.txt" 2>/dev/null
if cmp -s <(tail -n +2 "$sm/p1.txt") <(tail -n +2 "$sm/pmerged.txt") && cmp -s <(tail -n +2 "$sm/p1.txt") <(tail -n +2 "$sm/s1.txt"); then
  passes=$((passes + 1)); else echo "FAIL: pruned search (one process, merged shards) differs from the exhaustive top"; fails=$((fails + 1)); fi
expect_stdout 'pruned by the lower bound' "$plansim" search "$g" $only -j 2 --top 3

# Bad input.
expect_bad "$plansim" search "$g" --shard 2/2
expect_bad "$plansim" search "$g" --shard 1
expect_bad "$plansim" sweep "$g" --vary parallel.dp=8 --shard a/3
expect_bad "$plansim" sweep "$g" --vary parallel.dp=8 --shard 0/0
expect_stderr '^plansim: --shard: .*K must be below N' "$plansim" search "$g" --shard 3/2
expect_bad "$plansim" merge "$sm/s0.jsonl"                       # shard 1/2 missing
expect_bad "$plansim" merge "$sm/s0.jsonl" "$sm/s0.jsonl"         # given twice
expect_bad "$plansim" merge "$sm/s0.jsonl" "$sm/sw1.jsonl"        # another run
expect_bad "$plansim" merge "$sm/sw0.jsonl" "$sm/sw1.jsonl"       # a 3-shard run without shard 2
expect_bad "$plansim" merge "$sm/nope.jsonl"
printf 'not json\n' >"$sm/bad.jsonl"
expect_stderr 'bad.jsonl:1:1: ' "$plansim" merge "$sm/bad.jsonl"
expect_bad "$plansim" merge "$sm/bad.jsonl"
printf 'not json\n' >"$sm/bad2.jsonl"
expect_bad "$plansim" sweep "$g" $vary --out "$sm/bad2.jsonl"
# Resuming into another run's file is refused.
expect_bad "$plansim" sweep "$g" --vary parallel.dp=8 --out "$sm/sw1.jsonl"
expect_bad "$plansim" sweep "$g" $vary --shard 1/3 --out "$sm/sw0.jsonl"

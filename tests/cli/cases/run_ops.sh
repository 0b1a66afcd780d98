# plansim run --json carries per-op timings (`ops`) in the form plansim validate and plansim-hw run use.
sc="$src/scenarios"
expect_stdout '^  "ops": \[$' "$plansim" run "$sc/seed-pipeline-4x16.yaml" --json -
expect_stdout '\{"name": "attention_fwd", "class": "gemm", "rank": 0, "start_s": [0-9.e-]+, "duration_s": [0-9.e-]+\}' \
  "$plansim" run "$sc/seed-pipeline-4x16.yaml" --json -
expect_stdout '"name": "dp_all_reduce", "class": "collective"' "$plansim" run "$sc/seed-pipeline-4x16.yaml" --json -
expect_stdout '"name": "send", "class": "p2p"' "$plansim" run "$sc/seed-pipeline-4x16.yaml" --json -
# A report validated against itself: every class within 0 %. DP 2 is folded, so `ops` holds DP replica
# 0's 4 ranks' ops: 192 sends and receives.
ops_json="$(mktemp)"
"$plansim" run "$sc/seed-pipeline-4x16.yaml" --json "$ops_json" >/dev/null
expect_exit 0 "$plansim" validate --sim "$ops_json" --measured "$ops_json"
expect_stdout '^p2p +192 +0\.00 +0\.00' "$plansim" validate --sim "$ops_json" --measured "$ops_json"
# The folded report against a full one (--no-symmetry, as plansim-hw measures every rank): replica 1's
# ranks are compared with the ranks that stand for them (ranks[].executed_as), all 384 p2p ops, 0 %, and
# nothing unmatched. The other way round, the full simulation's replica-1 ops have no measured counterpart.
full_json="$(mktemp)"
"$plansim" run "$sc/seed-pipeline-4x16.yaml" --no-symmetry --json "$full_json" >/dev/null
expect_stdout '^p2p +384 +0\.00 +0\.00' "$plansim" validate --sim "$ops_json" --measured "$full_json"
expect_stdout '^tolerance' "$plansim" validate --sim "$ops_json" --measured "$full_json"
if "$plansim" validate --sim "$ops_json" --measured "$full_json" | grep -q unmatched; then
  echo "FAIL: a folded report validated against a full one left ops unmatched"; fails=$((fails + 1))
else passes=$((passes + 1)); fi
expect_stdout '^unmatched ops: 2346 only in the simulation, 0 only' "$plansim" validate --sim "$full_json" --measured "$ops_json"
rm -f "$ops_json" "$full_json"
# Every rank of the world in `ranks`: TP8 is folded (TP across servers, outermost of the mapping), so
# rank 63 points at TP rank 0 of its group, rank 7.
expect_stdout '^    \{"rank":63,"stage":0,"executed_as":7\}$' "$plansim" run "$sc/seed-tp8-ethernet.yaml" --json -
expect_stdout '^    \{"rank":7,"stage":0,"executed_as":7,"compute_busy_s":' "$plansim" run "$sc/seed-tp8-ethernet.yaml" --json -
# DP folded (8 replicas of one server each): rank 63 shares the figures of DP replica 0's rank 7.
expect_stdout '^    \{"rank":63,"stage":0,"executed_as":7\}$' "$plansim" run "$sc/seed-tp8-nvlink.yaml" --json -
expect_stdout '^    \{"rank":7,"stage":0,"executed_as":7,"compute_busy_s":' "$plansim" run "$sc/seed-tp8-nvlink.yaml" --json -

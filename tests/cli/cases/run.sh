# plansim run: exit codes, errors with positions, outputs.
sc="$src/scenarios"
expect_exit 0 "$plansim" run "$sc/seed-pipeline-4x16.yaml"
expect_stdout "iteration time +[0-9.]+ s" "$plansim" run "$sc/seed-pipeline-4x16.yaml"
expect_stdout "pipeline bubble" "$plansim" run "$sc/seed-pipeline-4x16.yaml" --set schedule.kind=gpipe
expect_exit 2 "$plansim" run "$sc/seed-pipeline-4x16.yaml" --set training.micro_bach=2
expect_stderr "unknown key 'training.micro_bach' \(did you mean 'training.micro_batch'\?\)" \
  "$plansim" run "$sc/seed-pipeline-4x16.yaml" --set training.micro_bach=2
expect_stderr "seed-pipeline-4x16.yaml:[0-9]+:[0-9]+: tp·pp·dp·cp = 1·4·4·1 = 16 GPUs, but the topology has 8 GPUs" \
  "$plansim" run "$sc/seed-pipeline-4x16.yaml" --set parallel.dp=4
expect_exit 2 "$plansim" run "$sc/no-such-file.yaml"
# Fewer GPUs than the topology (README "Any subset of a cluster"): the first ones, or a `gpus` list.
expect_stdout "GPUs +0-3 of the topology's 8" "$plansim" run "$sc/seed-pipeline-4x16.yaml" --set parallel.dp=1
expect_stdout '"gpu_ids": \[4, 5, 6, 7\]' "$plansim" run "$sc/seed-pipeline-4x16.yaml" --set parallel.dp=1 --set 'gpus=[4,5,6,7]' --json -
expect_stdout '"topology_gpus": 8' "$plansim" run "$sc/seed-pipeline-4x16.yaml" --set parallel.pp=2 --set parallel.dp=1 --json -
expect_exit 2 "$plansim" run "$sc/seed-pipeline-4x16.yaml" --set parallel.dp=1 --set 'gpus=[0,1,2,8]'
expect_stderr "GPU 8 is not in the topology \(8 GPUs, numbered 0 to 7\)" \
  "$plansim" run "$sc/seed-pipeline-4x16.yaml" --set parallel.dp=1 --set 'gpus=[0,1,2,8]'
expect_stderr "'gpus' lists 8 GPUs, but the plan has tp·pp·dp·cp = 4 ranks" \
  "$plansim" run "$sc/seed-pipeline-4x16.yaml" --set parallel.dp=1 --set 'gpus=[0,1,2,3,4,5,6,7]'
# Out of memory: exit 3 with the breakdown, 0 with --allow-oom.
expect_exit 3 "$plansim" run "$sc/seed-dp-70b-ib.yaml"
expect_stdout "OUT OF MEMORY" "$plansim" run "$sc/seed-dp-70b-ib.yaml"
expect_exit 0 "$plansim" run "$sc/seed-dp-70b-ib.yaml" --allow-oom
# JSON and trace outputs.
expect_stdout '"iteration_time_s"' "$plansim" run "$sc/seed-pipeline-4x16.yaml" --json -
expect_stdout '"exposed_comm_s"' "$plansim" run "$sc/seed-pipeline-4x16.yaml" --json -
expect_stdout '"traceEvents"' "$plansim" run "$sc/seed-pipeline-4x16.yaml" --trace -
# --trace-ranks picks world ranks; a folded rank is labelled with the executed sibling it shows; a
# rank outside the world is refused before the run.
expect_stdout '"rank 63 \(stage 0, as rank 7: TP folded\)"' "$plansim" run "$sc/seed-tp8-ethernet.yaml" --trace - --trace-ranks 0,63
expect_exit 2 "$plansim" run "$sc/seed-tp8-ethernet.yaml" --trace - --trace-ranks 0,64
expect_stderr "'64' is not a rank of this plan \(0 to 63\)" "$plansim" run "$sc/seed-tp8-ethernet.yaml" --trace - --trace-ranks 0,64
# DualPipe: the shipped scenario runs (p + 1 = 9 chunks in flight); a seed pipeline with too few
# micro-batches is refused with the reason.
expect_stdout "activations [0-9.]+ GB \(9 in flight\)" "$plansim" run "$sc/dualpipe-moe-64-h100.yaml"
expect_exit 2 "$plansim" run "$sc/seed-pipeline-16x4.yaml" --set schedule.kind=dualpipe
expect_stderr "the dualpipe schedule needs an even number of micro-batches, at least 2·pp = 32" \
  "$plansim" run "$sc/seed-pipeline-16x4.yaml" --set schedule.kind=dualpipe
# TP folding is kept when exact and the notes say so; where the TP siblings' DP rings take different
# (hashed) routes it is abandoned with the reason, and DP folding is tried (seed-tp8-nvlink: each DP
# replica one server, exact); --no-symmetry executes every rank.
expect_stdout "TP folded \(exact" "$plansim" run "$sc/seed-tp8-ethernet.yaml"
expect_stdout "DP folded \(exact.*TP folding tried first and abandoned \(TP folding is not exact here" "$plansim" run "$sc/seed-tp8-nvlink.yaml"
expect_stdout "every rank executed" "$plansim" run "$sc/seed-tp8-ethernet.yaml" --no-symmetry
# plansim-hw run's shrinking options, so that `plansim run` takes the same command line (hw/README.md):
# --scale-layers N is --set model.layers=N, --scale-batch N is --set training.global_batch=N.
scaled=$("$plansim" run "$sc/seed-pipeline-4x16.yaml" --set parallel.pp=2 --scale-layers 2 --scale-batch 8 --json - | grep -E '"(iteration_time_s|micro_batches)"')
set_keys=$("$plansim" run "$sc/seed-pipeline-4x16.yaml" --set parallel.pp=2 --set model.layers=2 --set training.global_batch=8 --json - | grep -E '"(iteration_time_s|micro_batches)"')
if [ -n "$scaled" ] && [ "$scaled" = "$set_keys" ]; then passes=$((passes + 1)); else
  echo "FAIL: --scale-layers/--scale-batch differ from --set: '$scaled' vs '$set_keys'"; fails=$((fails + 1)); fi
expect_stdout '"micro_batches": 4,' "$plansim" run "$sc/seed-pipeline-4x16.yaml" --scale-batch 8 --json -
expect_exit 2 "$plansim" run "$sc/seed-pipeline-4x16.yaml" --scale-layers 0
expect_stderr "--scale-layers: Value 0 not in range 1 to" "$plansim" run "$sc/seed-pipeline-4x16.yaml" --scale-layers 0
# Activation offload (README "Activation offload"): its own report line and JSON block, copy-engine tracks.
expect_stdout "activation offload +[0-9.]+ GB per rank to host memory and back, in flight with no compute running [0-9.]+ s" \
  "$plansim" run "$sc/seed-pipeline-4x16.yaml" --set training.activation_offload_layers=3
expect_stdout '"activation_offload": \{' "$plansim" run "$sc/seed-pipeline-4x16.yaml" --set training.activation_offload_layers=3 --json -
expect_stdout '"d2h-copy"' "$plansim" run "$sc/seed-pipeline-4x16.yaml" --set training.activation_offload_layers=3 --trace -

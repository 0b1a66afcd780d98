# plansim search: ranked plans with their reasons and a reproducible best plan.
g="$src/scenarios/antipatterns/good.yaml"
only="--only training.recompute=none --only parallel.zero=1 --only training.micro_batch=2"
expect_exit 0 "$plansim" search "$g" $only -j 2 --top 3
expect_stdout '^search .* on 8 GPUs: [0-9]+ plans enumerated, [0-9]+ pruned by the memory model' "$plansim" search "$g" $only -j 2 --top 3
expect_stdout '^  1  TP1 PP1 DP8 mb2 1f1b rc:none ZeRO-1' "$plansim" search "$g" $only -j 2 --top 3
expect_stdout '^     why: exposed comm' "$plansim" search "$g" $only -j 2 --top 3
expect_stdout '^best plan: --set parallel.tp=1 ' "$plansim" search "$g" $only -j 2 --top 3
expect_stdout '"tp_inside_server": true' "$plansim" search "$g" $only -j 2 --top 1 --json -
expect_exit 2 "$plansim" search "$g" --gpus 12
expect_stderr 'not a whole number of 8-GPU servers' "$plansim" search "$g" --gpus 12
expect_exit 2 "$plansim" search "$g" --only model.layers=2
# A subset of the server (README "Any subset of a cluster"): the search plans for the plan's 4 GPUs.
expect_stdout '^search .* on 4 GPUs: [0-9]+ plans enumerated' "$plansim" search "$g" $only --set parallel.dp=4 -j 2 --top 3
# An MoE base with sequence parallelism and folded experts (expert_tp 1) re-planned for 16 GPUs with --gpus: the
# cluster probe leaves the plan's own settings out (it used to fail "sequence_parallel needs tp > 1"), and the
# folded plans (TP > 1) say ETP1 and may take EP wider than DP.
moe="$src/scenarios/dualpipe-moe-64-h100.yaml"
moe_fold="--set parallel.tp=2 --set parallel.dp=4 --set parallel.expert_tp=1 --set parallel.sequence_parallel=true --set schedule.kind=1f1b --set training.global_batch=64"
expect_stdout '^search .* on 16 GPUs: [0-9]+ plans enumerated' "$plansim" search "$moe" $moe_fold --gpus 16 -j 2 --top 3
expect_stdout '^ +[0-9]+  TP2 PP1 DP8 EP8 ETP1 mb' "$plansim" search "$moe" $moe_fold --gpus 16 -j 2 --top 10 --only parallel.tp=2

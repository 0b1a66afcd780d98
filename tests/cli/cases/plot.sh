# plansim plot: SVG through gnuplot; bad kinds and extensions are input errors.
out=$(mktemp -d)
expect_exit 0 "$plansim" plot bubble --out "$out/b.svg"
if head -c 200 "$out/b.svg" | grep -q '<svg\|<?xml' && grep -q '<path' "$out/b.svg"; then passes=$((passes + 1)); else echo "FAIL: plot bubble: not an SVG with paths"; fails=$((fails + 1)); fi
expect_exit 0 "$plansim" plot sweep "$src/scenarios/antipatterns/good.yaml" --vary training.micro_batch=2,4,8 --metric mfu --out "$out/s.svg" -j 2
if grep -q '<path' "$out/s.svg"; then passes=$((passes + 1)); else echo "FAIL: plot sweep: no paths"; fails=$((fails + 1)); fi
expect_exit 2 "$plansim" plot bubble --out "$out/b.pdf"
expect_exit 2 "$plansim" plot pie --out "$out/p.svg"
expect_exit 2 "$plansim" plot sweep "$src/scenarios/antipatterns/good.yaml" --vary training.micro_batch=2 --metric nope --out "$out/x.svg"
expect_exit 0 "$plansim" plot busbw "$src/validate/nccl/stas00_mlengineering.yaml" --out "$out/bw.svg"
if grep -q '<path' "$out/bw.svg"; then passes=$((passes + 1)); else echo "FAIL: plot busbw: no paths"; fails=$((fails + 1)); fi
expect_stderr 'give nccl-tests tables' "$plansim" plot busbw --out "$out/bw.svg"
expect_exit 2 "$plansim" plot busbw "$src/no/such/table.yaml" --out "$out/bw.svg"

# The pictures of a run (README "Pictures"): each kind writes an SVG; a scenario that fails is bad input.
for kind in timeline memory breakdown; do
  expect_exit 0 "$plansim" plot $kind "$src/scenarios/seed-pipeline-4x16.yaml" --set training.global_batch=16 --out "$out/$kind.svg"
  if grep -q '<path' "$out/$kind.svg"; then passes=$((passes + 1)); else echo "FAIL: plot $kind: no paths"; fails=$((fails + 1)); fi
done
expect_exit 0 "$plansim" plot timeline "$src/scenarios/seed-pipeline-4x16.yaml" --set parallel.pp=1 --set parallel.dp=8 --out "$out/pp1.svg"
expect_exit 2 "$plansim" plot timeline "$src/scenarios/seed-pipeline-4x16.yaml" --set schedule.kind=nope --out "$out/t.svg"
expect_exit 2 "$plansim" plot timeline "$src/no/such/scenario.yaml" --out "$out/t.svg"
expect_exit 2 "$plansim" plot memory --out "$out/m.svg"
rm -rf "$out"

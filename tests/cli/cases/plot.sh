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
rm -rf "$out"

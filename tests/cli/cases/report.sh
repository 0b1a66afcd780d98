# plansim report: a page from run, lint and validate JSON (exit 0); bad documents are one line, exit 2.
d="$tmp/report"
mkdir -p "$d"
"$plansim" run "$src/scenarios/seed-pipeline-4x16.yaml" --json "$d/r.json" >/dev/null
"$plansim" lint "$src/scenarios/antipatterns/pipeline-bubble.yaml" -j 2 --json "$d/l.json" >/dev/null
expect_exit 0 "$plansim" validate --sim "$src/tests/data/validate/sim.json" \
  --measured "$src/tests/data/validate/measured_close.json" --json "$d/v.json"
expect_stdout '"classes"' "$plansim" validate --sim "$src/tests/data/validate/sim.json" \
  --measured "$src/tests/data/validate/measured_close.json" --json -
expect_exit 0 "$plansim" report "$d/r.json" "$d/l.json" "$d/v.json" --out "$d/page.html" --title "cli <test>"
expect_stdout '<title>cli &lt;test&gt;</title>' cat "$d/page.html"
expect_stdout '<section id="s3" class="validate">' cat "$d/page.html"
expect_stdout '^<!DOCTYPE html>' "$plansim" report "$d/l.json"
# run --html / lint --html: the same page without the JSON file.
expect_exit 0 "$plansim" run "$src/scenarios/seed-pipeline-4x16.yaml" --html "$d/run.html"
expect_stdout 'class="iteration-time"' cat "$d/run.html"
expect_exit 1 "$plansim" lint "$src/scenarios/antipatterns/pipeline-bubble.yaml" -j 2 --html "$d/lint.html"
expect_stdout 'class="rule"' cat "$d/lint.html"
expect_exit 2 "$plansim" run "$src/scenarios/seed-pipeline-4x16.yaml" --bound --html "$d/b.html"
# Not a document plansim report draws: one line at file:line:col.
echo '{"points": []}' >"$d/sweep.json"
expect_bad "$plansim" report "$d/sweep.json"
expect_stderr 'sweep.json:1:1: not a document plansim report knows' "$plansim" report "$d/sweep.json"
printf '{\n  "name": 1,\n' >"$d/broken.json"
expect_stderr 'broken.json:3:1: not valid JSON' "$plansim" report "$d/broken.json"
expect_bad "$plansim" report "$src/scenarios/seed-pipeline-4x16.yaml"
expect_bad "$plansim" report "$d/no-such.json"
expect_bad "$plansim" report "$d/r.json" --out "$d/no-such-dir/page.html"

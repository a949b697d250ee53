# Device call D: call C's 3t5i run continued with --resume for as long as the device time left allows.
. docs/results/gpu/interp/setup.sh
cp docs/results/gpu/interp/t3t5i.csv docs/results/gpu/interp/t3t5i.json $OUT/
S=$SECONDS
timeout -s INT 420 python3 -P docs/results/gpu/interp/p.py run --keys docs/results/suites/3t5i.keys.gz --iterations 5 --resume -o $OUT/t3t5i.csv 2>&1 | tail -2
echo "3t5i resumed: wall seconds $((SECONDS - S)), rows $(($(wc -l < $OUT/t3t5i.csv) - 1))" | tee $OUT/times_d.txt
python3 -P docs/results/gpu/interp/p.py conform $OUT/t3t5i.csv --keys docs/results/suites/3t5i.keys.gz > $OUT/conform_t3t5i_d.txt 2>&1; tail -8 $OUT/conform_t3t5i_d.txt
cd $OUT && xz -T4 t3t5i.jsonl 2>/dev/null; mv t3t5i.jsonl.xz t3t5i_d.jsonl.xz 2>/dev/null; ls -la

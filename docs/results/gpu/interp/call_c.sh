# Device call C: the litmus agreement test again (chunked only), then as much of 3t5i as the device time left allows.
. docs/results/gpu/interp/setup.sh
T0=$SECONDS
python3 -P -m pytest tests/test_gpu_cuda_interp.py -m gpu -n0 -q -rs -p no:cacheprovider 2>&1 | tee $OUT/pytest_gpu_c.txt | tail -3
S=$SECONDS
timeout -s INT $((270 - SECONDS + T0)) python3 -P docs/results/gpu/interp/p.py run --keys docs/results/suites/3t5i.keys.gz --iterations 5 -o $OUT/t3t5i.csv 2>&1 | tail -2
echo "3t5i: wall seconds $((SECONDS - S)), rows $(($(wc -l < $OUT/t3t5i.csv) - 1))" | tee -a $OUT/times_c.txt
cd $OUT && xz -T4 t3t5i.jsonl && mkdir -p keep && mv t3t5i.csv t3t5i.json t3t5i.jsonl.xz pytest_gpu_c.txt times_c.txt keep/ && ls -la keep

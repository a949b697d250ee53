# Device call B: GPU tests; the 483 suite x 3 heuristics x 20 iterations with per-test kernels and with the
# interpreter in the same call (and the interpreter with --stop-early); then 3t5i until the call's time is spent
# (continued with --resume in call C).
. docs/results/gpu/interp/setup.sh
T0=$SECONDS
python3 -P -m pytest tests/test_gpu_cuda_interp.py tests/test_gpu_cuda.py -m gpu -n0 -q -rs -p no:cacheprovider 2>&1 | tee $OUT/pytest_gpu.txt | tail -4
for run in "per-test pertest" "interp interp" "interp interp_stop --stop-early"; do
  set -- $run; S=$SECONDS
  P run litmus/oopsla21 --codegen $1 $3 -o $OUT/$2.csv 2>&1 | tail -1
  echo "$2: wall seconds $((SECONDS - S))" | tee -a $OUT/times.txt
done
S=$SECONDS
timeout -s INT $((545 - SECONDS + T0)) python3 -P docs/results/gpu/interp/p.py run --keys docs/results/suites/3t5i.keys.gz --iterations 5 -o $OUT/t3t5i.csv 2>&1 | tail -2
echo "3t5i part 1: wall seconds $((SECONDS - S)), rows $(($(wc -l < $OUT/t3t5i.csv) - 1))" | tee -a $OUT/times.txt
cd $OUT && tar -cJf runs_b.tar.xz *.csv *.json *.jsonl times.txt && ls -la

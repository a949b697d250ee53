# Device call A: the GPU tests, the interpreter on the 483 suite, a first slice of 3t5i (resumed in call C).
. docs/results/gpu/interp/setup.sh
python3 -P -m pytest tests/test_gpu_cuda_interp.py tests/test_gpu_cuda.py -m gpu -n0 -q -rs -p no:cacheprovider 2>&1 | tee $OUT/pytest_gpu.txt | tail -15
SECONDS=0
P run litmus/oopsla21 --codegen interp -o $OUT/interp_a.csv 2>&1 | tail -2
echo "interp 483 wall seconds: $SECONDS"
SECONDS=0
timeout -s INT 100 python3 -P docs/results/gpu/interp/p.py run --keys docs/results/suites/3t5i.keys.gz --iterations 5 -o $OUT/t3t5i.csv 2>&1 | tail -2
echo "3t5i slice wall seconds: $SECONDS; rows: $(wc -l < $OUT/t3t5i.csv)"

# Device test suite with the published suite in place, and the rr flip rate over 1000 iterations.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
mkdir -p .gpu_carry/oopsla21 && cp docs/results/gpu/scripts/flips.lst .gpu_carry/oopsla21/ && cp -r litmus/oopsla21/. .gpu_carry/oopsla21/
python3 -m pytest tests/test_gpu_cuda.py tests/test_gpu_codegen.py tests/test_gpu_cpu.py tests/test_gpu_heuristics.py tests/test_gpu_conform.py -q -rs -p no:cacheprovider 2>&1 | tee $OUT/pytest_device.txt | tail -4
SECONDS=0
python3 .gpu_carry/p.py run @.gpu_carry/oopsla21/flips.lst --heuristics rr --iterations 1000 -o $OUT/flips_rr_1000.csv 2>&1 | tail -1
cat $OUT/flips_rr_1000.csv; echo "t=$SECONDS"

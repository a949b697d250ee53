# Last check of the committed GPU code on the H200 (after the metadata change
# of 1e29a31), two device calls.
# Call 1: the litmus corpus under the three heuristics with the defaults.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
python3 .gpu_carry/p.py run litmus tests/data/gpu -o $OUT/litmus_final.csv
# Call 2: every tests/test_gpu_* test, the `gpu` ones included, against the
# package installed from the working tree (the models come from its entry points).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-cache-dir --target /tmp/pkg .
export PYTHONPATH=/tmp/pkg:/tmp/site PYTHONUNBUFFERED=1
python3 -P -m pytest tests/test_gpu_cuda.py tests/test_gpu_codegen.py tests/test_gpu_cpu.py tests/test_gpu_heuristics.py \
    tests/test_gpu_conform.py -m "gpu or not gpu" -q -rs -p no:cacheprovider | tee $OUT/pytest_device_final.txt

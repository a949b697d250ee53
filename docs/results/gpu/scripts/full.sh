# One full campaign run: suite + litmus corpus + producer-consumer inputs, 3 heuristics, defaults.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
[ "$1" = 1 ] && python3 -m pytest tests/test_gpu_cuda.py tests/test_gpu_codegen.py -q -rs -p no:cacheprovider 2>&1 | tail -4
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv
SECONDS=0
python3 .gpu_carry/p.py run litmus/oopsla21 litmus tests/data/gpu -o $OUT/run$1.csv 2>&1 | tail -2
echo "wall seconds for run $1 (compile included): $SECONDS"

# The selected 3t5i suite (docs/results/gpu/select3t5i/suite, 83 tests) on the H200:
# two full runs, 3 heuristics, 20 iterations, the defaults (50 ms deadline), in one device call.
# .gpu_h10/ (ignored, carried) holds a copy of the suite and the lark wheel, the one
# dependency the device image lacks; the package is installed from the working tree.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .gpu_h10/*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-cache-dir --target /tmp/pkg . || exit 1
export PYTHONPATH=/tmp/pkg:/tmp/site PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv
for r in 1 2; do
  SECONDS=0
  python3 -P -m progress run .gpu_h10/suite -o $OUT/run$r.csv 2>&1 | tail -2
  echo "wall seconds for run $r (compile included): $SECONDS"
done

set -x
R=$PWD
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/site .h11/src 2>&1 | grep -v WARNING | tail -3
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
mkdir -p /tmp/w && cd /tmp/w
S=$R/.h11/src; D=$S/litmus/oopsla21; N=${1:-10}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv
(cd $S && python3 -P -m pytest tests/test_gpu_wgpu.py tests/test_gpu_wgsl.py -q -p no:cacheprovider 2>&1 | tail -4) | tee $OUT/pytest_wgpu_h200.txt
SECONDS=0
python3 -m progress run $D $S/litmus $S/tests/data/gpu --backend wgpu --iterations $N -o $OUT/wgpu.csv 2>&1 | tail -1
echo "wgpu wall seconds (compile and calibration included): $SECONDS"
SECONDS=0
python3 -m progress run $D $S/litmus $S/tests/data/gpu --backend cuda --iterations $N -o $OUT/cuda.csv 2>&1 | tail -1
echo "cuda wall seconds (compile included): $SECONDS"

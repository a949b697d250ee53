# issue 30: the 483 tests at the lane scope on the H200 (one command, both builds).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
python3 -m pip install -q --no-deps --no-build-isolation --no-index --no-compile --target /tmp/site . 2>&1 | tail -2
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
(cd /tmp && python3 -c "from progress.core.registry import all_models; print([m.name for m in all_models()])")
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv | tee $OUT/nvidia_smi.txt
python3 -m pytest tests/test_gpu_cuda_lanes.py tests/test_gpu_cuda.py -q -rs -p no:cacheprovider 2>&1 | tail -5 | tee $OUT/pytest_lanes.txt
cp p.py /tmp/p.py; SECONDS=0
timeout ${T1:-200} python3 /tmp/p.py run ../../litmus/oopsla21 --backend cuda --scope lane -o $OUT/lanes_sm90.csv 2>&1 | tail -2
echo "sm_90 build: $SECONDS s"
cp p.py /tmp/p.py; SECONDS=0
timeout ${T2:-300} python3 /tmp/p.py run ../../litmus/oopsla21 --backend cuda --scope lane --cuda-arch compute_60 --deadline ${D2:-20ms} -o $OUT/lanes_compute60.csv 2>&1 | tail -2
echo "compute_60 build: $SECONDS s"

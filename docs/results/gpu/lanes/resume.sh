python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
python3 -m pip install -q --no-deps --no-build-isolation --no-index --no-compile --target /tmp/site . 2>&1 | tail -2
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
cp p.py /tmp/p.py
(PROGRESS_DEBUG=1 timeout 60 python3 /tmp/p.py run ../../litmus/oopsla21/2t2i --backend cuda --scope lane --cuda-arch compute_60 -o /tmp/c60.csv 2>&1 | tail -4) > $OUT/compute60_error.txt
cat $OUT/compute60_error.txt
python3 -c "import cupy; print('cupy', cupy.__version__, 'nvrtc', cupy.cuda.nvrtc.getVersion(), 'arch list', cupy.cuda.nvrtc.getSupportedArchs())" 2>&1 | tee -a $OUT/compute60_error.txt
cp partial/* $OUT/
SECONDS=0
timeout 450 python3 /tmp/p.py run ../../litmus/oopsla21 --backend cuda --scope lane --resume -o $OUT/lanes_sm90.csv 2>&1 | tail -2
echo "sm_90 build, resumed: $SECONDS s"

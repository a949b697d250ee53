set -x
R=$PWD
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
ldconfig -p | grep libvulkan
ls /usr/local/nvidia/share/vulkan/icd.d/ /usr/share/vulkan/icd.d/ /etc/vulkan/icd.d 2>&1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/site .h11/src 2>&1 | tail -3
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
mkdir -p /tmp/w && cd /tmp/w
python3 -c "import wgpu; [print(a.info) for a in wgpu.gpu.enumerate_adapters_sync()]" 2>&1 | tail -5
if ! python3 -c "import wgpu,sys; sys.exit(0 if any('NVIDIA' in a.info['device'] for a in wgpu.gpu.enumerate_adapters_sync()) else 1)"; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  python3 -c "import wgpu; [print(a.info) for a in wgpu.gpu.enumerate_adapters_sync()]" 2>&1 | tail -5
fi
S=$R/.h11/src
time python3 -m progress run $S/litmus $S/tests/data/gpu --backend wgpu --iterations 3 -o $OUT/w_small.csv 2>&1 | tail -2
cat $OUT/w_small.csv; cat $OUT/w_small.json
time python3 -m progress run $S/litmus $S/tests/data/gpu --backend cuda --iterations 3 -o $OUT/c_small.csv 2>&1 | tail -2
cat $OUT/c_small.csv
time python3 -m progress run $R/.h11/oopsla21 --backend wgpu --iterations 1 -o $OUT/w_suite1.csv 2>&1 | tail -2
python3 -c "
import json,os
rs=[json.loads(l) for l in open(os.environ['OUT']+'/w_suite1.jsonl')]
for h in ('plain','rr','chunked'):
    s=[r for r in rs if r['heuristic']==h]; f=[r for r in s if r['result']!='P']
    print(h,len(s),'fail',len(f),'sec %.2f'%sum(r['seconds'] for r in s), 'max %.3f'%max(r['seconds'] for r in s))
"
grep -E "compile_seconds|elapsed" $OUT/w_suite1.json

# Device call (issue 30, scopes): the 483 tests at the lane scope through Vulkan (wgpu) on the H200, and issue 32's
# kernel command set (call C) again with the current spirv_deadline.py and toolchain (cmeel glslang 13.1.1 /
# SPIRV-Tools 2025.5, Slang 2026.12 from slangpy 0.43.1, staged by the call before: stage.sh).
set -o pipefail
R=$PWD; C=$R/.carry/scopes2; L=$OUT/log.txt
for f in $C/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $C/*.whl 2>&1 | tail -2
mkdir -p /tmp/src && tar -xzf $C/src.tar.gz -C /tmp/src && python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --upgrade --target /tmp/site /tmp/src 2>&1 | tail -2
PL=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
python3 -c "import lzma, sys, tarfile; tarfile.open(fileobj=lzma.open(sys.argv[1])).extractall(sys.argv[2])" $C/tools.tar.xz $PL
if [ -d /opt/stage/slangpy ]; then cp -r /opt/stage/slangpy /tmp/site/; else echo "no Slang staged: HLSL kernels refused" | tee -a $L; fi
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 COLUMNS=160 VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version --format=csv | tee -a $L
python3 -c "import wgpu; print('adapters:', [(a.info['device'], a.info['backend_type'], a.info['description']) for a in wgpu.gpu.enumerate_adapters_sync()])" 2>&1 | grep -v XDG | tail -3 | tee -a $L
S=$SECONDS; python3 -P $C/lane_check.py 2>&1 | grep -v XDG | tee -a $L; echo "lane check: wall $((SECONDS - S)) s" | tee -a $L
K=/tmp/k; mkdir -p $K
S=$SECONDS; timeout -s INT 120 python3 -P -m progress run litmus/kernels/* --iterations 20 -o $K/h200_kernels_d.json > $K/h200_kernels_d.txt 2>&1; echo "kernels: exit $? wall $((SECONDS - S)) s" | tee -a $L
S=$SECONDS; timeout -s INT 100 python3 -P -m progress run litmus/kernels/* --iterations 20 --leave break -o $K/h200_kernels_break_d.json > $K/h200_kernels_break_d.txt 2>&1; echo "kernels --leave break: exit $? wall $((SECONDS - S)) s" | tee -a $L
S=$SECONDS; timeout -s INT 40 python3 -P -m progress run benchmarks/kernel_probes/delayed_*.comp --no-check --iterations 20 --shapes alone,reverse -o $K/h200_probes_d.json > $K/h200_probes_d.txt 2>&1; echo "probes: exit $? wall $((SECONDS - S)) s" | tee -a $L
tar -czf $OUT/kernels_d.tar.gz -C $K .
S=$SECONDS; timeout -s INT ${T:-300} python3 -P -m progress run litmus/oopsla21 --backend wgpu --scope lane --iterations 10 -o $OUT/lanes_wgpu.csv > /tmp/lanes.txt 2>&1; echo "lanes: exit $? wall $((SECONDS - S)) s" | tee -a $L
tail -c 3000 /tmp/lanes.txt | tr '\r' '\n' | grep -v XDG | tail -4 | tee -a $L

# Device call E (gfx-rs/naga#1575 fix, 2026-12-02): the four HLSL kernels of litmus/kernels/ on the H200 (Vulkan
# through wgpu 0.32.0 / wgpu-native, naga), 20 iterations x 4 launch shapes, leaving by returning and by breaking.
# Prepared here first (Slang 2026.12 from slangpy 0.43.1, load, for_naga, instrumentation, spirv-val, checker System):
#   python docs/results/gpu/kernels/call_e_prepare.py .carry/naga/prepared.pickle litmus/kernels/*.hlsl
# then carried (.carry/naga: prepared.pickle, call_e_run.py, the wheels wgpu 0.32.0 cffi 2.1.1 pycparser click
# rendercanvas, the Debian bookworm debs libvulkan1 libglvnd0 libegl1 libgl1 libglx0 libgles2 libopengl0) with main's
# checkout (8f52da1, installed as the package). Two calls on one warm machine: the first found no adapter (libvulkan1
# alone: NVIDIA's ICD needs glvnd), the second is this script; 78 s of device time in all.
set -o pipefail; C=.carry/naga; L=$OUT/log_e.txt
for f in $C/gl/*.deb; do dpkg -x $f /; done; ldconfig; ldconfig -p | grep -E "libvulkan|GLX_nvidia|GLdispatch" | head -5 | tee $L
[ -d /tmp/site/progress ] || { python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $C/whl/*.whl; python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/site .; }
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 COLUMNS=160 VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
ls /usr/local/nvidia/share/vulkan/icd.d/ 2>&1 | tee -a $L
python3 -c "import wgpu; print('adapters:', [(a.info['device'], a.info['backend_type']) for a in wgpu.gpu.enumerate_adapters_sync()])" 2>&1 | grep -v XDG | tail -3 | tee -a $L
K="litmus/kernels/hlsl_include_ticket_lock.hlsl litmus/kernels/hlsl_spec_ticket_lock.hlsl litmus/kernels/hlsl_spinlock.hlsl litmus/kernels/hlsl_ticket_lock.hlsl"
S=$SECONDS; timeout -s INT 120 python3 $C/call_e_run.py $C/prepared.pickle run $K --iterations 20 -o $OUT/h200_hlsl_e.json > $OUT/h200_hlsl_e.txt 2>&1; echo "kernels: exit $? wall $((SECONDS - S)) s" | tee -a $L
S=$SECONDS; timeout -s INT 100 python3 $C/call_e_run.py $C/prepared.pickle run $K --iterations 20 --leave break -o $OUT/h200_hlsl_break_e.json > $OUT/h200_hlsl_break_e.txt 2>&1; echo "kernels --leave break: exit $? wall $((SECONDS - S)) s" | tee -a $L
for t in $OUT/h200_hlsl_e.txt $OUT/h200_hlsl_break_e.txt; do grep -h -v XDG $t | grep -E "^[a-z_]+\.hlsl|^  (alone|occupied|reverse|interleave)|violations|kernel|rror" | cut -c1-140 | tee -a $L; done

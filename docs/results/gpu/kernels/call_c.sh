# Device call C (issue 32): every kernel of litmus/kernels/ on the H200 (Vulkan through wgpu, naga), 20 iterations x 4
# launch shapes, as progress run instruments them (leave by returning) and as the WebGPU page does (--leave break);
# then the probes of plain-load waits (benchmarks/kernel_probes/delayed_{plain,volatile,atomic}_spin.comp), unchecked,
# alone and reversed. Run from the carry folder (.carry/gpu-kernel: the branch's tree; tools/ = glslangValidator,
# spirv-val, spirv-as and the spirv-headers grammars from the Debian machine).
set -o pipefail
for f in ../../.gl/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site ../../.whl/*.whl 2>&1 | tail -2
python3 -m pip install -q --upgrade --no-index --no-deps --no-build-isolation --no-compile --target /tmp/site . 2>&1 | tail -2
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 COLUMNS=160 PATH=$PWD/tools:$PATH
mkdir -p /usr/include/spirv && cp -r tools/unified1 /usr/include/spirv/
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
L=$OUT/log_c.txt
nvidia-smi --query-gpu=name,driver_version --format=csv | tee $L
S=$SECONDS; timeout -s INT 150 python3 -P -m progress run litmus/kernels/* --iterations 20 -o $OUT/h200_kernels_c.json > $OUT/h200_kernels_c.txt 2>&1; echo "kernels: exit $? wall $((SECONDS - S)) s" | tee -a $L
S=$SECONDS; timeout -s INT 100 python3 -P -m progress run litmus/kernels/* --iterations 20 --leave break -o $OUT/h200_kernels_break.json > $OUT/h200_kernels_break.txt 2>&1; echo "kernels --leave break: exit $? wall $((SECONDS - S)) s" | tee -a $L
S=$SECONDS; timeout -s INT 60 python3 -P -m progress run benchmarks/kernel_probes/delayed_*.comp --no-check --iterations 20 --shapes alone,reverse -o $OUT/h200_probes.json > $OUT/h200_probes.txt 2>&1; echo "probes: exit $? wall $((SECONDS - S)) s" | tee -a $L
grep -h -E "^[a-z_0-9]+\.(comp|hlsl|spvasm)|not run|^  (alone|occupied|reverse|interleave)" $OUT/h200_*.txt | cut -c1-110 | tail -40 | tee -a $L
ls -la $OUT | tee -a $L

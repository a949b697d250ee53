# Device call A (issue 32): the kernels of litmus/kernels/ on the H200 through Vulkan (wgpu, naga), 20 iterations x 4
# launch shapes, then test power: the 483 suite under rr with --pack 1 (one test per launch) and packed (auto), CUDA
# interpreter. Run from the carry folder (.carry/gpu-kernel: the branch's tree, tools/ = glslangValidator, spirv-val,
# spirv-as and the spirv-headers grammars from this Debian machine, build/oopsla21 = the published suite).
set -o pipefail
for f in ../../.gl/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site ../../.whl/*.whl 2>&1 | tail -2
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/site . 2>&1 | tail -2
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 COLUMNS=160 PATH=$PWD/tools:$PATH
mkdir -p /usr/include/spirv && cp -r tools/unified1 /usr/include/spirv/
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
L=$OUT/log_a.txt
nvidia-smi --query-gpu=name,driver_version --format=csv | tee $L
python3 -c "import wgpu; [print('adapter:', a.info['device'], a.info['backend_type'], a.info['adapter_type'], a.info['description']) for a in wgpu.gpu.enumerate_adapters_sync()]" 2>&1 | tail -3 | tee -a $L
S=$SECONDS; timeout -s INT 240 python3 -P -m progress run litmus/kernels/* --iterations 20 -o $OUT/h200_kernels.json > $OUT/h200_kernels.txt 2>&1; echo "kernels: exit $? wall $((SECONDS - S)) s" | tee -a $L
tail -3 $OUT/h200_kernels.txt | tee -a $L
for P in 1 auto; do S=$SECONDS; timeout -s INT 150 python3 -P -m progress run build/oopsla21 --heuristics rr --pack $P -o $OUT/rr_pack_$P.csv 2>&1 | tail -1 | tee -a $L; echo "rr --pack $P: wall $((SECONDS - S)) s" | tee -a $L; done
rm -f $OUT/*.jsonl; ls -la $OUT | tee -a $L

# Device call E: the rest of 3t5i (call D's CSV and JSON, --resume), conform on the whole suite,
# then the WGSL interpreter through wgpu on the H200's Vulkan driver (the loader carried as .gl).
. docs/results/gpu/interp/setup.sh
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
L=$OUT/log_e.txt
cp docs/results/gpu/interp/t3t5i.csv docs/results/gpu/interp/t3t5i.json $OUT/
S=$SECONDS
timeout -s INT 420 python3 -P docs/results/gpu/interp/p.py run --keys docs/results/suites/3t5i.keys.gz --iterations 5 --resume -o $OUT/t3t5i.csv 2>&1 | tail -2 | tee -a $L
echo "3t5i resumed: exit ${PIPESTATUS[0]}, wall seconds $((SECONDS - S)), rows $(($(wc -l < $OUT/t3t5i.csv) - 1))" | tee -a $L
python3 -P docs/results/gpu/interp/p.py conform $OUT/t3t5i.csv --keys docs/results/suites/3t5i.keys.gz > $OUT/conform_t3t5i_e.txt 2>&1; head -14 $OUT/conform_t3t5i_e.txt
(cd $OUT && xz -T4 t3t5i.jsonl && mv t3t5i.jsonl.xz t3t5i_e.jsonl.xz)
python3 -c "import wgpu; [print('adapter:', a.info['device'], a.info['backend_type'], a.info['adapter_type']) for a in wgpu.gpu.enumerate_adapters_sync()]" 2>&1 | tail -3 | tee -a $L
S=$SECONDS
timeout -s INT 150 python3 -P docs/results/gpu/interp/p.py run litmus/oopsla21 --backend wgpu --codegen interp -o $OUT/h200_wgpu_interp.csv 2>&1 | tail -3 | tee -a $L
echo "wgpu interp 483 x 3 x 20: wall seconds $((SECONDS - S))" | tee -a $L
(cd $OUT && xz -T4 h200_wgpu_interp.jsonl)
timeout 120 python3 -P -m pytest tests/test_gpu_wgpu_interp.py tests/test_gpu_wgpu.py -n0 -q -rs -p no:cacheprovider 2>&1 | tail -5 | tee -a $L
ls -la $OUT

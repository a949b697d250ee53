# Device call H, after merging the CPU-adapter layouts (pack.CPU_LAYOUTS) and making interp wgpu's default:
# the CUDA and wgpu GPU tests, then the 483 suite x 3 x 20 with each backend's default codegen (interp both).
. docs/results/gpu/interp/setup.sh
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
L=$OUT/log_h.txt
timeout 80 python3 -P -m pytest tests/test_gpu_cuda_interp.py tests/test_gpu_wgpu_interp.py tests/test_gpu_wgpu.py -n0 -v -rs -p no:cacheprovider --timeout 40 --durations=5 -k "not agrees_with_the_reference" > $OUT/pytest_h.txt 2>&1; echo "pytest exit $?" | tee -a $L; tail -12 $OUT/pytest_h.txt | tee -a $L
S=$SECONDS; timeout -s INT 30 python3 -P docs/results/gpu/interp/p.py run litmus/oopsla21 -o $OUT/h200_cuda_h.csv 2>&1 | tail -1 | tee -a $L; echo "cuda: wall $((SECONDS - S)) s" | tee -a $L
S=$SECONDS; timeout -s INT 100 python3 -P docs/results/gpu/interp/p.py run litmus/oopsla21 --backend wgpu -o $OUT/h200_wgpu_h.csv 2>&1 | tail -1 | tee -a $L; echo "wgpu: wall $((SECONDS - S)) s" | tee -a $L
cd $OUT && rm -f *.jsonl && ls -la

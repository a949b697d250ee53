# Device call F: rerun every failing 3t5i test (call E's CSV; under the heuristics it failed under, 5 iterations),
# the wgpu GPU tests through the H200's Vulkan driver, and tests/s of both codegens on wgpu (2 iterations).
. docs/results/gpu/interp/setup.sh
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
L=$OUT/log_f.txt; T0=$SECONDS; K=docs/results/suites/3t5i.keys.gz; CSV=docs/results/gpu/interp/t3t5i.csv
awk -F, 'NR > 1 && $4 ~ /^F/ {print $1}' $CSV > /tmp/chunked.txt
awk -F, 'NR > 1 && ($2 ~ /^F/ || $3 ~ /^F/) {print $1}' $CSV > /tmp/plainrr.txt
echo "failed under chunked: $(wc -l < /tmp/chunked.txt); under plain or rr: $(wc -l < /tmp/plainrr.txt)" | tee -a $L
timeout 100 python3 -P -m pytest tests/test_gpu_wgpu_interp.py tests/test_gpu_wgpu.py -n0 -q -rs -p no:cacheprovider > /tmp/pytest.txt 2>&1; echo "pytest exit $?" >> /tmp/pytest.txt; tail -6 /tmp/pytest.txt | tee -a $L
S=$SECONDS; timeout -s INT 70 python3 -P docs/results/gpu/interp/p.py run --keys $K --only /tmp/plainrr.txt --heuristics plain,rr --iterations 5 -o $OUT/t3t5i_rerun_plainrr.csv 2>&1 | tail -1 | tee -a $L
echo "rerun plain,rr: wall seconds $((SECONDS - S))" | tee -a $L
S=$SECONDS; timeout 130 python3 -P benchmarks/bench_interp.py --suite litmus/oopsla21 --backend wgpu --iterations 2 --out $OUT 2>&1 | grep -E "tests_per_s|speedup|elapsed|Error" | tee -a $L
echo "bench wgpu: wall seconds $((SECONDS - S))" | tee -a $L
S=$SECONDS; timeout -s INT $((565 - SECONDS + T0)) python3 -P docs/results/gpu/interp/p.py run --keys $K --only /tmp/chunked.txt --heuristics chunked --iterations 5 -o $OUT/t3t5i_rerun_chunked.csv 2>&1 | tail -1 | tee -a $L
echo "rerun chunked: wall seconds $((SECONDS - S)), rows $(($(wc -l < $OUT/t3t5i_rerun_chunked.csv) - 1))" | tee -a $L
cd $OUT && tar cJf t3t5i_rerun_jsonl.tar.xz *.jsonl && rm -f *.jsonl && ls -la

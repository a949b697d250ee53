# Device call B (issue 32): the look-back scan at scale on the H200 (Vulkan through wgpu): tile = workgroup id
# (lookback_static.comp) and tiles dealt in start order (lookback_dynamic.comp), 1024 and 16384 workgroups of two
# invocations (the H200 holds 4224 such workgroups at once), 20 iterations alone / reverse / interleave, unchecked
# (--no-check: too large for the checker); then both at the header's 3 workgroups, checked, all four shapes.
set -o pipefail
for f in ../../.gl/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site ../../.whl/*.whl 2>&1 | tail -2
python3 -m pip install -q --upgrade --no-index --no-deps --no-build-isolation --no-compile --target /tmp/site . 2>&1 | tail -2
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 COLUMNS=160 PATH=$PWD/tools:$PATH
mkdir -p /usr/include/spirv && cp -r tools/unified1 /usr/include/spirv/
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
L=$OUT/log_b.txt; K="litmus/kernels/lookback_static.comp litmus/kernels/lookback_dynamic.comp"
for W in 1024 16384; do S=$SECONDS; timeout -s INT 200 python3 -P -m progress run $K --workgroups $W --buffer flags=$W --buffer aggregates=$W --buffer prefixes=$W --no-check --iterations 20 --shapes alone,reverse,interleave -o $OUT/h200_lookback_$W.json > $OUT/h200_lookback_$W.txt 2>&1; echo "W=$W: exit $? wall $((SECONDS - S)) s" | tee -a $L; done
S=$SECONDS; timeout -s INT 200 python3 -P -m progress run $K --iterations 20 -o $OUT/h200_lookback_3.json > $OUT/h200_lookback_3.txt 2>&1; echo "W=3: exit $? wall $((SECONDS - S)) s" | tee -a $L
grep -h -E "^[a-z_]+\.comp|^  (alone|occupied|reverse|interleave)" $OUT/h200_lookback_*.txt | cut -c1-150 | tee -a $L

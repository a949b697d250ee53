# Device call (issue 30, scopes), third: Slang's downstream libraries (libslang-glslang, libslang-glsl-module: Slang
# runs spirv-opt from them) beside the compiler staged by stage.sh, then the kernels (call C's command set) and the
# lane run resumed (--resume) from what call.sh's 300 s left.
set -o pipefail
R=$PWD; C=$R/.carry/scopes2; L=$OUT/log3.txt
if [ -d /opt/stage/slangpy ]; then
  python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" $C/slang-glslang.xz /opt/stage/slangpy/libslang-glslang-2026.12.so
  python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" $C/slang-glsl-module.xz /opt/stage/slangpy/libslang-glsl-module-2026.12.so
fi
if [ ! -d /tmp/site/progress ]; then
  for f in $C/*.deb; do dpkg -x $f /; done; ldconfig
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $C/*.whl 2>&1 | tail -2
  mkdir -p /tmp/src && tar -xzf $C/src.tar.gz -C /tmp/src && python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --upgrade --target /tmp/site /tmp/src 2>&1 | tail -2
  PL=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
  python3 -c "import lzma, sys, tarfile; tarfile.open(fileobj=lzma.open(sys.argv[1])).extractall(sys.argv[2])" $C/tools.tar.xz $PL
  echo "fresh machine: set up again" | tee -a $L
fi
KS="litmus/kernels/*"
if [ -d /opt/stage/slangpy ]; then rm -rf /tmp/site/slangpy; cp -r /opt/stage/slangpy /tmp/site/; ls /tmp/site/slangpy | tee -a $L; else KS=$(ls litmus/kernels/* | grep -v '\.hlsl$'); echo "no Slang: HLSL kernels left out" | tee -a $L; fi
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 COLUMNS=160 VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
K=/tmp/k; rm -rf $K; mkdir -p $K
S=$SECONDS; timeout -s INT 120 python3 -P -m progress run $KS --iterations 20 -o $K/h200_kernels_d.json > $K/h200_kernels_d.txt 2>&1; echo "kernels: exit $? wall $((SECONDS - S)) s" | tee -a $L
S=$SECONDS; timeout -s INT 100 python3 -P -m progress run $KS --iterations 20 --leave break -o $K/h200_kernels_break_d.json > $K/h200_kernels_break_d.txt 2>&1; echo "kernels --leave break: exit $? wall $((SECONDS - S)) s" | tee -a $L
S=$SECONDS; timeout -s INT 40 python3 -P -m progress run benchmarks/kernel_probes/delayed_*.comp --no-check --iterations 20 --shapes alone,reverse -o $K/h200_probes_d.json > $K/h200_probes_d.txt 2>&1; echo "probes: exit $? wall $((SECONDS - S)) s" | tee -a $L
tail -2 $K/h200_kernels_d.txt | tee -a $L
tar -czf $OUT/kernels_d.tar.gz -C $K .
cp $C/lanes/lanes_wgpu.* $OUT/
S=$SECONDS; timeout -s INT ${T:-240} python3 -P -m progress run litmus/oopsla21 --backend wgpu --scope lane --iterations 10 --resume -o $OUT/lanes_wgpu.csv > /tmp/lanes.txt 2>&1; echo "lanes --resume: exit $? wall $((SECONDS - S)) s" | tee -a $L
tail -c 3000 /tmp/lanes.txt | tr '\r' '\n' | grep -v XDG | tail -4 | tee -a $L

# Device call (issue 30, scopes), first of two: stage Slang's compiler (libslang-compiler 2026.12 from slangpy 0.43.1,
# xz-compressed: the carry limit holds it or the rest of the toolchain, not both) outside the checkout, for call.sh.
mkdir -p /opt/stage/slangpy && touch /opt/stage/slangpy/__init__.py
python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" .carry/scopes1/slang.xz /opt/stage/slangpy/libslang-compiler.so.0.2026.12
ls -la /opt/stage/slangpy; python3 -V; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; ldconfig -p | grep -c libvulkan

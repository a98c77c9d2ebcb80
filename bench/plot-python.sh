# Sourced by the benchmark scripts that draw plots: PY is a python3 with matplotlib if there
# is one (pyenv's python3, first on PATH here, often lacks it; Debian's python3-matplotlib is
# /usr/bin/python3's), else python3 (the tables are written all the same).
PY=python3
for p in python3 /usr/bin/python3; do
    if "$p" -c 'import matplotlib' 2>/dev/null; then PY=$p; break; fi
done

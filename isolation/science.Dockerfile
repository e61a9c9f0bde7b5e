# The scientific Python image: the Python image's root with numpy, scipy,
# sympy, pandas, matplotlib and networkx from Debian, BLAS and LAPACK from
# OpenBLAS, matplotlib drawing with Agg and its font cache built, every
# module compiled ahead of time; /tmp 1777 and the runner as entrypoint.
# No shell, no package manager. Built by scripts/build-image.sh science
# (scripts/science-root.sh). Its interpreter is Python's, as the Python
# image's label says; a warm container (batch) imports numpy, scipy,
# pandas and matplotlib's pyplot once its hello passed, so a program that
# uses them does not pay the imports (the preload label). The root comes in four layers because
# scripts/reproducible refuses a layer over 256 MiB.
FROM scratch
LABEL io.synapse-isolation.exec="[\"python3\",\"-\"]"
LABEL io.synapse-isolation.preload="[\"numpy\",\"scipy\",\"pandas\",\"matplotlib.pyplot\"]"
COPY root/ /
COPY layers/libraries/ /
COPY layers/usr_lib_python3_dist-packages/ /
COPY layers/usr_lib_python3_dist-packages_scipy/ /
COPY runner /runner
USER 65534:65534
ENTRYPOINT ["/runner"]

# The Python image: Debian's python3.11 and the libraries it loads,
# unpacked from pinned .debs, its standard library compiled ahead of time,
# /tmp 1777, and the runner as entrypoint. No shell, no package manager.
# Built by scripts/build-image.sh python. The exec label is the image's
# default interpreter, a JSON array: run feeds the source to python3 on its
# stdin unless a command follows --.
FROM scratch
LABEL io.synapse-isolation.exec="[\"python3\",\"-\"]"
COPY root/ /
COPY runner /runner
USER 65534:65534
ENTRYPOINT ["/runner"]

# The Python image: Debian's python3.11 and the libraries it loads,
# unpacked from pinned .debs, its standard library compiled ahead of time,
# /tmp 1777, and the runner as entrypoint. No shell, no package manager.
# Built by scripts/build-image.sh python.
FROM scratch
COPY root/ /
COPY runner /runner
USER 65534:65534
ENTRYPOINT ["/runner"]

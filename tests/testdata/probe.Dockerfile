# The reference runner plus the static probe, for --exec boundary tests.
FROM scratch
COPY runner /runner
COPY probe /probe
USER 65534:65534
ENTRYPOINT ["/runner"]

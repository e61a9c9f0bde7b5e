# A lying runner: the probe in its hostile mode is the entrypoint.
FROM scratch
COPY probe /probe
USER 65534:65534
ENTRYPOINT ["/probe", "hostile"]

# The C++ image: Debian's g++-12 with libstdc++'s headers, binutils and
# the C library's headers, unpacked from pinned .debs (less LTO and
# gprofng), /tmp 1777, and the runner as entrypoint. No shell, no package
# manager. Built by scripts/build-image.sh cpp (scripts/compiler-root.sh).
# The language label, a JSON object: the source's file name in the
# program's working directory, the command that compiles it there once,
# and the command each run starts (./main, the compiled file, started
# from a sealed memfd since /tmp is noexec).
FROM scratch
LABEL io.synapse-isolation.language="{\"source\":\"main.cpp\",\"compile\":[\"g++-12\",\"-std=gnu++17\",\"-O2\",\"-pipe\",\"-o\",\"main\",\"main.cpp\"],\"run\":[\"./main\"]}"
COPY root/ /
COPY runner /runner
USER 65534:65534
ENTRYPOINT ["/runner"]
